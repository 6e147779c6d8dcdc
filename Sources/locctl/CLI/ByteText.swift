import LocCore

/// Text written straight into `Output.buffer`, for the commands that print a line per input
/// (`tz -`, `sun --days`, `decode`): digits and dates without an intermediate String.
enum ByteText {
  /// Appends the ASCII/UTF-8 bytes of a static text.
  @inline(__always)
  static func append(_ text: StaticString) {
    text.withUTF8Buffer { Output.buffer.append(contentsOf: $0) }
  }

  /// Appends `value` with at least `width` digits (zero-padded); `value` ≥ 0.
  @inline(__always)
  static func append(digits value: Int, width: Int) {
    var divisor = 1
    var n = 1
    while n < width || divisor * 10 <= value {
      divisor *= 10
      n += 1
    }
    var v = value
    while divisor > 0 {
      Output.buffer.append(UInt8(48 + v / divisor % 10))
      v %= divisor
      divisor /= 10
    }
  }

  /// Appends `2026-06-21`.
  static func append(date: CivilDate) {
    append(digits: date.year, width: 4)
    Output.buffer.append(0x2D)
    append(digits: date.month, width: 2)
    Output.buffer.append(0x2D)
    append(digits: date.day, width: 2)
  }

  /// Appends an instant as ISO 8601 UTC to the second, `2026-06-21T19:52:10Z` (truncated, as
  /// `Instant.iso8601()` writes it).
  static func append(iso8601 t: Instant) {
    let us = t.microsecondsSinceEpoch
    let days = us >= 0 ? us / 86_400_000_000 : (us - 86_399_999_999) / 86_400_000_000
    let date = CivilDate(daysSinceEpoch: Int(days))
    guard (0...9999).contains(date.year) else {
      let text = t.iso8601()
      Output.write(text)
      return
    }
    let secs = Int((us - days * 86_400_000_000) / 1_000_000)
    append(date: date)
    Output.buffer.append(0x54)
    append(digits: secs / 3600, width: 2)
    Output.buffer.append(0x3A)
    append(digits: secs / 60 % 60, width: 2)
    Output.buffer.append(0x3A)
    append(digits: secs % 60, width: 2)
    Output.buffer.append(0x5A)
  }

  /// Appends `text` as a JSON string (quotes and escapes).
  static func append(jsonString text: String) {
    var bytes: [UInt8] = []
    JSON.string(text).write(to: &bytes)
    Output.buffer.append(contentsOf: bytes)
  }
}
