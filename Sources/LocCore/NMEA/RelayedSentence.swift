/// Which of a receiver's lines locd passes on as they came (the gpsd face's `raw` and `nmea`
/// watches, the NMEA output; docs/GPSD.md): a whole sentence, `$` or `!` first, printable
/// ASCII only, ending in a `*hh` checksum that matches, no longer than `maxBytes`. Anything
/// else (a bad checksum, none, a control byte, a gpsd JSON line, a log comment) is not
/// passed on; the decoder still reads what it can of it.
public enum RelayedSentence {
  /// The longest sentence passed on, without its line end: NMEA 0183 allows 82 characters
  /// with CR LF, receivers exceed it a little (GSV with a signal id, long talker fields), and
  /// gpsd's clients are written for gpsd's own bound, 102 (gpsd.h, `NMEA_MAX`).
  public static let maxBytes = 102
  /// The shortest: `$` (or `!`), a five-letter address, `*hh`.
  static let minBytes = 9

  /// The sentence's length in `line` without its line end (CR, LF or both at its end), or
  /// nil when it is not to be passed on.
  public static func length(of line: UnsafeRawBufferPointer) -> Int? {
    var n = line.count
    while n > 0, line[n - 1] == 0x0A || line[n - 1] == 0x0D { n -= 1 }
    guard n >= minBytes, n <= maxBytes, line[0] == 0x24 || line[0] == 0x21, line[n - 3] == 0x2A,
      let high = hex(line[n - 2]), let low = hex(line[n - 1])
    else { return nil }
    var sum: UInt8 = 0
    for i in 1..<(n - 3) {
      let b = line[i]
      // Printable ASCII only; a second sentence start means two lines glued together.
      guard b >= 0x20, b < 0x7F, b != 0x24, b != 0x21 else { return nil }
      sum ^= b
    }
    return sum == high << 4 | low ? n : nil
  }

  /// The sentence of `line` with CR LF, as it is passed on; nil when it is not to be.
  public static func text(of line: UnsafeRawBufferPointer) -> String? {
    guard let n = length(of: line) else { return nil }
    return String(decoding: UnsafeRawBufferPointer(rebasing: line[0..<n]), as: UTF8.self) + "\r\n"
  }

  /// A hexadecimal digit's value (either case, as NMEA 0183's checksum may be written).
  private static func hex(_ b: UInt8) -> UInt8? {
    switch b {
    case 0x30...0x39: return b - 0x30
    case 0x41...0x46: return b - 0x41 + 10
    case 0x61...0x66: return b - 0x61 + 10
    default: return nil
    }
  }
}
