import LocCore
import LocHost

/// `locctl tz -`: one zone per input line, read and written in bulk. Standard input is read in
/// 64 KiB chunks cut into lines in place (`LineSplitter`), each line's two numbers are parsed
/// from its bytes (`CoordinateScanner`), looked up, and the zone's name (its bytes made once
/// per zone) is appended to the output buffer: no String per line.
/// A line longer than `lineLimit` is not a coordinate (and costs no memory).
struct TzStream {
  /// The boundary file (kept alive while its mapping is read).
  let file: ZoneBoundaryFile
  /// The system's zone rules, for `--json`.
  let rules: ZoneDatabase
  /// The instant of the offsets in `--json`.
  let instant: Instant
  /// One JSON object per line instead of the name.
  let json: Bool

  /// Longest line taken as a coordinate.
  static let lineLimit = 1024

  /// Reads standard input to its end; returns 0, or 1 when a line was not a coordinate.
  func run() -> Int32 {
    var state = State(file: file, rules: rules, instant: instant, json: json)
    var lines = LineSplitter(limit: TzStream.lineLimit)
    do {
      let input = try FileIO.openInput("-")
      try FileIO.forEachChunk(of: input, chunkSize: 1 << 16) { chunk in
        lines.feed(chunk) { piece in state.take(piece) }
      }
    } catch {
      state.flush()
      printError("locctl tz: cannot read standard input: \(error)")
      return ExitStatus.failure
    }
    lines.finish { piece in state.take(piece) }
    state.flush()
    withExtendedLifetime(file) {}
    return state.failed ? ExitStatus.failure : ExitStatus.ok
  }

  /// The lookup and the answers, and the output in a buffer of its own (no global in the
  /// loop). Per zone, the bytes of its answer are made once: its name and a newline, or for
  /// `--json` the members after `lat` and `lon`.
  struct State {
    let boundaries: ZoneBoundaries
    let names: [String]
    let rules: ZoneDatabase
    let instant: Instant
    let json: Bool
    /// Every zone's answer, one after the other; `ranges[i]` is zone i's (empty: not made yet).
    var answers: [UInt8] = []
    var ranges: [Range<Int>]
    var out: [UInt8] = []
    var number = 0
    var failed = false

    init(file: ZoneBoundaryFile, rules: ZoneDatabase, instant: Instant, json: Bool) {
      boundaries = file.boundaries
      names = file.boundaries.zoneNames
      ranges = Array(repeating: 0..<0, count: names.count)
      self.rules = rules
      self.instant = instant
      self.json = json
      out.reserveCapacity(TzStream.bufferSize + 4096)
    }

    /// One piece from the line splitter.
    @inline(__always)
    mutating func take(_ piece: LineSplitter.Piece) {
      switch piece {
      case .line(let base, let start, let stop): line(base, start, stop)
      case .overlong: bad("longer than \(TzStream.lineLimit) bytes")
      }
    }

    /// The bytes `base[start..<stop]` (without the newline) as one line.
    @inline(__always)
    mutating func line(_ base: UnsafePointer<UInt8>, _ start: Int, _ stop: Int) {
      number += 1
      guard let coordinate = CoordinateScanner.coordinate(base, start, stop) else {
        let text = String(
          decoding: UnsafeBufferPointer(start: base + start, count: min(stop - start, 80)), as: UTF8.self)
        return failure("'\(text)' is not LAT,LON with -90...90, -180...180")
      }
      let index: Int
      do { index = try boundaries.zoneIndex(at: coordinate) } catch {
        return failure("\(error)")
      }
      if json {
        out.append(contentsOf: TzStream.latKey)
        JSON.number(coordinate.latitude.value).write(to: &out)
        out.append(contentsOf: TzStream.lonKey)
        JSON.number(coordinate.longitude.value).write(to: &out)
      }
      if ranges[index].isEmpty { make(index) }
      let range = ranges[index]
      answers.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
      if out.count >= TzStream.bufferSize { flush() }
    }

    /// Makes zone `index`'s answer.
    mutating func make(_ index: Int) {
      let name = names[index]
      let from = answers.count
      if json {
        let local = TzCommand.localTimeType(name, rules: rules, at: instant)
        for (key, value) in TzCommand.zoneMembers(name, local: local) {
          answers.append(0x2C)
          JSON.string(key).write(to: &answers)
          answers.append(0x3A)
          value.write(to: &answers)
        }
        answers.append(0x7D)
      } else {
        answers.append(contentsOf: name.utf8)
      }
      answers.append(0x0A)
      ranges[index] = from..<answers.count
    }

    /// Writes the buffer.
    mutating func flush() {
      out.withUnsafeBytes { Output.write(bytes: $0) }
      out.removeAll(keepingCapacity: true)
    }

    /// A line that is too long.
    mutating func bad(_ why: String) {
      number += 1
      failure(why)
    }

    /// An empty output line for the current line, the reason on standard error.
    mutating func failure(_ why: String) {
      failed = true
      flush()
      printError("locctl tz: line \(number): \(why)")
      out.append(0x0A)
    }
  }

  /// Written once the buffer holds this much.
  static let bufferSize = 1 << 16
  static let latKey = Array("{\"lat\":".utf8)
  static let lonKey = Array(",\"lon\":".utf8)
}
