import LocCore
import LocSystem

/// `locbench tzparse FILE [--rounds N]`: the parsing half of `locctl tz -` alone, in lines per
/// second. The file's `LAT,LON` lines are held in memory and fed in 64 KiB chunks, as the
/// command reads standard input, through the same `LineSplitter` and `CoordinateScanner`; no
/// lookup and no output. CPU time of one thread, median of the rounds. bench/35-offline.sh
/// prints it beside the whole-process figures (issue 16: at least 10 M lines/s).
enum TzParseBenchmark: Benchmark {
  static let name = "tzparse"

  static func run(_ arguments: [String]) -> Int32 {
    let (path, rounds) = pathAndRounds(arguments, path: "", rounds: 5)
    let bytes: [UInt8]
    do { bytes = try FileIO.read(path: path) } catch {
      print("locbench tzparse: \(path): \(error)")
      return 1
    }
    var rates: [Double] = []
    var result = Parsed()
    for _ in 0..<rounds {
      let start = TzBenchmark.cpuClock()
      result = bytes.withUnsafeBytes { parse($0) }
      rates.append(Double(result.lines) / (TzBenchmark.cpuClock() - start))
    }
    rates.sort()
    let median = rates[rates.count / 2]
    print("tzparse: \(result.lines) lines (\(result.coordinates) coordinates) x \(rounds) rounds, \(path)")
    print("locd parse lines/s \(Int(median)) (\(TzBenchmark.format(1e9 / median)) ns per line)")
    print("checksum \(result.checksum)")
    return 0
  }

  struct Parsed {
    var lines = 0
    var coordinates = 0
    var checksum = 0.0

    @inline(__always)
    mutating func take(_ piece: LineSplitter.Piece) {
      lines += 1
      guard case .line(let p, let from, let to) = piece, let c = CoordinateScanner.coordinate(p, from, to)
      else { return }
      coordinates += 1
      checksum += c.latitude.value
    }
  }

  /// One pass over `all` in chunks of the command's size.
  static func parse(_ all: UnsafeRawBufferPointer) -> Parsed {
    var parsed = Parsed()
    var splitter = LineSplitter(limit: TzStreamInput.lineLimit)
    var offset = 0
    while offset < all.count {
      let end = min(all.count, offset + TzStreamInput.chunkSize)
      splitter.feed(UnsafeRawBufferPointer(rebasing: all[offset..<end])) { parsed.take($0) }
      offset = end
    }
    splitter.finish { parsed.take($0) }
    return parsed
  }
}

/// How `locctl tz -` reads (its `TzStream`; locbench does not link locctl).
enum TzStreamInput {
  /// Longest line taken as a coordinate (locctl's `TzStream.lineLimit`).
  static let lineLimit = 1024
  /// Bytes per read (locctl's chunk size).
  static let chunkSize = 1 << 16
}
