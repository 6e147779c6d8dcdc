/// Cuts a byte stream into NMEA lines with a bounded buffer.
///
/// - A line starts at `$` or `!` and ends at CR or LF (CRLF, LF, CR and mixes all work; empty
///   lines are ignored). The terminator is not part of the line.
/// - A `$` or `!` inside a line starts a new line: the cut-off one is counted in
///   `truncatedLines` (NMEA reserves both characters as sentence starts).
/// - A control byte (NUL, ESC, ...) or a byte of 0x7F and above inside a line makes it
///   garbage: it is dropped (`truncatedLines`) and bytes are skipped up to the next start
///   or line end.
/// - Bytes outside any line are counted in `junkBytes`, except line terminators.
/// - A line longer than `maxLineLength` is dropped and counted in `overlongLines`; the framer
///   resynchronises on the next `$`/`!` or line end. Memory never grows past that bound.
/// - Lines whose first byte is `#` (gpsd's log comments) are skipped and counted in `comments`.
/// - With `maxJSONLineLength > 0`, lines starting with `{` are delivered too (gpsd's JSON
///   reports); inside them `$`, `!` and UTF-8 are ordinary bytes.
///
/// Complete lines that lie within one `feed` call are handed out in place, without a copy;
/// only a line split across calls is assembled in the buffer.
public struct NMEAFramer: Sendable {
  /// The default bound for an NMEA line. NMEA 0183 allows 82 characters, but receivers
  /// exceed it: the longest in locd's fixtures is MTK's 203-byte `$PMTKCHN`.
  public static let defaultMaxLineLength = 256
  /// The bound used for gpsd JSON lines when enabled: a SKY report with 60+ satellites is
  /// several kilobytes.
  public static let defaultMaxJSONLineLength = 16_384

  /// The longest NMEA line delivered, in bytes without the terminator.
  public let maxLineLength: Int
  /// The longest JSON line delivered; 0 means `{` lines are not framed (they count as junk).
  public let maxJSONLineLength: Int

  /// Counters (they only grow).
  public private(set) var counters = Counters()

  /// What the framer has seen.
  public struct Counters: Hashable, Sendable {
    /// Lines delivered.
    public var lines = 0
    /// `#` comment lines skipped.
    public var comments = 0
    /// Bytes outside any line, other than line terminators.
    public var junkBytes = 0
    /// Lines over the length bound, dropped.
    public var overlongLines = 0
    /// Lines cut off by a new `$`/`!` or spoilt by a control or non-ASCII byte, dropped.
    public var truncatedLines = 0
    /// A line still open at end of input (see `finish`).
    public var unterminatedLines = 0

    /// All zero.
    public init() {}

    /// Writes the framing counters into `counters` (which the framer does not own).
    public func copy(into counters: inout NMEACounters) {
      counters.lines = lines
      counters.comments = comments
      counters.junkBytes = junkBytes
      counters.overlongLines = overlongLines
      counters.truncatedLines = truncatedLines
      counters.unterminatedLines = unterminatedLines
    }
  }

  private enum State: Sendable {
    /// Between lines; `atLineStart` after a terminator (or at the start of input).
    case idle(atLineStart: Bool)
    /// Inside a line (NMEA or JSON); its bytes so far are in `buffer[0 ..< buffered]`
    /// plus, within one `feed`, the bytes of the current chunk from `chunkLineStart`.
    case line(json: Bool)
    /// Inside a `#` comment line.
    case comment
    /// Dropping a spoilt or overlong line up to the next start or terminator.
    case discard
  }

  /// Bytes of line buffer the framer holds now: never more than the larger line bound.
  public var bufferCapacity: Int { buffer.count }

  private var state = State.idle(atLineStart: true)
  private var buffer: [UInt8]
  private var buffered = 0

  /// A framer with the given bounds.
  public init(maxLineLength: Int = defaultMaxLineLength, maxJSONLineLength: Int = 0) {
    precondition(maxLineLength >= 8 && maxJSONLineLength >= 0, "line bounds too small")
    self.maxLineLength = maxLineLength
    self.maxJSONLineLength = maxJSONLineLength
    buffer = []
  }

  /// Nonzero when any of the eight bytes in `x` is not printable ASCII (below 0x20, 0x7F and
  /// above) or is `$` or `!` (the zero-byte and less-than tests of "Bit Twiddling Hacks",
  /// S. E. Anderson, graphics.stanford.edu/~seander/bithacks.html). Only "any" is needed:
  /// the caller rescans the word byte by byte.
  @inline(__always) static func specialBytes(_ x: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    @inline(__always) func hasZero(_ v: UInt64) -> UInt64 { (v &- ones) & ~v & highs }
    let control = (x &- ones &* 0x20) & ~x & highs  // a byte below 0x20
    return control | (x & highs) | hasZero(x ^ (ones &* 0x7F)) | hasZero(x ^ (ones &* 0x24))
      | hasZero(x ^ (ones &* 0x21))
  }

  @inline(__always) private static func isTerminator(_ b: UInt8) -> Bool { b == 0x0A || b == 0x0D }

  /// Feeds bytes; calls `body` once per complete line, in order. The line's memory is valid
  /// only during the call.
  @inlinable public mutating func feed(
    _ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void
  ) {
    feedImplementation(bytes, body)
  }

  @usableFromInline mutating func feedImplementation(
    _ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void
  ) {
    guard let p = bytes.baseAddress else { return }
    let n = bytes.count
    var i = 0
    // Start of the current line within this chunk; a line carried over from the previous
    // chunk continues at 0 (its first bytes are in `buffer`).
    var lineStart = 0
    // Set when a line starts in this chunk and cleared once the `.line` state has taken its
    // bytes: a line that starts on the chunk's last byte must still be buffered.
    var unscanned = false
    while i < n {
      switch state {
      case .idle(let atLineStart):
        let b = p.load(fromByteOffset: i, as: UInt8.self)
        if b == 0x24 || b == 0x21 {
          state = .line(json: false)
          lineStart = i
          unscanned = true
        } else if NMEAFramer.isTerminator(b) {
          state = .idle(atLineStart: true)
        } else if atLineStart && b == 0x23 {  // #
          state = .comment
        } else if atLineStart && b == 0x7B && maxJSONLineLength > 0 {  // {
          state = .line(json: true)
          lineStart = i
          unscanned = true
        } else {
          counters.junkBytes += 1
          if atLineStart { state = .idle(atLineStart: false) }
        }
        i += 1
      case .comment:
        // Skip to the end of the comment without buffering it.
        while i < n, !NMEAFramer.isTerminator(p.load(fromByteOffset: i, as: UInt8.self)) { i += 1 }
        if i < n {
          counters.comments += 1
          state = .idle(atLineStart: true)
          i += 1
        }
      case .discard:
        while i < n {
          let b = p.load(fromByteOffset: i, as: UInt8.self)
          if NMEAFramer.isTerminator(b) {
            state = .idle(atLineStart: true)
            i += 1
            break
          }
          if b == 0x24 || b == 0x21 {
            state = .line(json: false)
            lineStart = i
            unscanned = true
            i += 1
            break
          }
          i += 1
        }
      case .line(let json):
        unscanned = false
        let limit = json ? maxJSONLineLength : maxLineLength
        // Scan for the end of the line; stop early at a byte that ends or spoils it.
        var j = i
        var stop: UInt8 = 0  // 0: chunk ended; 1: terminator; 2: restart; 3: spoilt
        if json {
          while j < n {
            let b = p.load(fromByteOffset: j, as: UInt8.self)
            if b < 0x20 {
              if NMEAFramer.isTerminator(b) {
                stop = 1
                break
              }
              if b != 0x09 {
                stop = 3
                break
              }
            }
            j += 1
          }
        } else {
          // Eight bytes at a time while none of them is special.
          while j + 8 <= n, NMEAFramer.specialBytes(p.loadUnaligned(fromByteOffset: j, as: UInt64.self)) == 0
          {
            j += 8
          }
          while j < n {
            let b = p.load(fromByteOffset: j, as: UInt8.self)
            // Printable ASCII other than the two start characters continues the line.
            if b &- 0x20 < 0x5F && b != 0x24 && b != 0x21 {
              j += 1
              continue
            }
            stop = NMEAFramer.isTerminator(b) ? 1 : (b == 0x24 || b == 0x21) ? 2 : 3
            break
          }
        }
        let length = buffered + (j - lineStart)
        if length > limit {
          // Too long, whether or not it ends in this chunk.
          counters.overlongLines += 1
          buffered = 0
          state = .discard
          i = j  // the byte that stopped the scan (if any) is handled by `.discard`
          continue
        }
        switch stop {
        case 0:
          // The chunk ended inside the line: keep what we have.
          append(p + lineStart, j - lineStart, capacity: limit)
          i = n
        case 1:
          counters.lines += 1
          if buffered == 0 {
            body(UnsafeRawBufferPointer(start: p + lineStart, count: j - lineStart))
          } else {
            append(p + lineStart, j - lineStart, capacity: limit)
            buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[0..<buffered])) }
            buffered = 0
          }
          state = .idle(atLineStart: true)
          i = j + 1
        case 2:
          counters.truncatedLines += 1
          buffered = 0
          state = .line(json: false)
          lineStart = j
          unscanned = true
          i = j + 1
        default:
          counters.truncatedLines += 1
          buffered = 0
          state = .discard
          i = j + 1
        }
      }
    }
    if unscanned, case .line(let json) = state {
      append(p + lineStart, n - lineStart, capacity: json ? maxJSONLineLength : maxLineLength)
    }
  }

  private mutating func append(_ p: UnsafeRawPointer, _ count: Int, capacity: Int) {
    if buffer.count < capacity {
      // Grows once per bound (to the NMEA bound, later maybe to the JSON one), never past it.
      buffer.append(contentsOf: repeatElement(0, count: capacity - buffer.count))
    }
    guard count > 0 else { return }
    buffer.withUnsafeMutableBytes { dst in
      (dst.baseAddress! + buffered).copyMemory(from: p, byteCount: count)
    }
    buffered += count
  }

  /// Ends the input (EOF, connection closed). A line still open is delivered to `body` and
  /// counted in `unterminatedLines` — a half line will then fail its checksum, but a file
  /// whose last line merely lacks a newline loses nothing. The framer can be fed again after.
  public mutating func finish(_ body: (UnsafeRawBufferPointer) -> Void) {
    if case .line = state, buffered > 0 {
      counters.unterminatedLines += 1
      counters.lines += 1
      buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[0..<buffered])) }
    } else if case .comment = state {
      counters.comments += 1
    }
    buffered = 0
    state = .idle(atLineStart: true)
  }
}
