import LocCore

/// Output made in place, for the commands that print a line per input (`sun --days`, `decode`):
/// digits, dates and numbers appended to a buffer of the command's own, without a String per
/// value, and handed to `Output` in 64 KiB writes. A local buffer, not `Output.buffer`: a
/// global is checked for exclusive access on every append, which cost more than the digits.
struct ByteText {
  /// Bytes not yet handed to `Output`.
  var bytes: [UInt8] = []
  /// The UTC day (since the epoch) of the last instant written to the second, and its date:
  /// a day's events mostly share their date, which is then converted once.
  private var lastDay = Int64.min
  private var lastDate = CivilDate(daysSinceEpoch: 0)

  init() {
    bytes.reserveCapacity(Output.capacity + 4096)
  }

  /// Appends the ASCII/UTF-8 bytes of a static text.
  @inline(__always)
  mutating func append(_ text: StaticString) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  /// Appends one byte.
  @inline(__always)
  mutating func append(_ byte: UInt8) {
    bytes.append(byte)
  }

  /// Appends bytes made earlier (a key, a zone's name).
  @inline(__always)
  mutating func append(_ made: [UInt8]) {
    bytes.append(contentsOf: made)
  }

  /// Appends `value` (≥ 0) as exactly two digits.
  @inline(__always)
  mutating func append(twoDigits value: Int) {
    bytes.append(UInt8(truncatingIfNeeded: 48 + value / 10 % 10))
    bytes.append(UInt8(truncatingIfNeeded: 48 + value % 10))
  }

  /// Appends `2026-06-21`.
  mutating func append(date: CivilDate) {
    guard (0...9999).contains(date.year) else {
      bytes.append(contentsOf: date.description.utf8)
      return
    }
    append(twoDigits: date.year / 100)
    append(twoDigits: date.year)
    bytes.append(0x2D)
    append(twoDigits: date.month)
    bytes.append(0x2D)
    append(twoDigits: date.day)
  }

  /// Appends an instant as `Instant.iso8601(fractionDigits:)` writes it.
  @inline(__always)
  mutating func append(iso8601 t: Instant, fractionDigits: Int = 0) {
    t.writeISO8601(fractionDigits: fractionDigits, to: &bytes)
  }

  /// Appends an instant to the second, `2026-06-21T19:52:10Z` (truncated), as
  /// `Instant.iso8601()` writes it.
  mutating func append(iso8601Seconds t: Instant) {
    let us = t.microsecondsSinceEpoch
    let day = us >= 0 ? us / 86_400_000_000 : -((-us + 86_399_999_999) / 86_400_000_000)
    if day != lastDay {
      lastDay = day
      lastDate = CivilDate(daysSinceEpoch: Int(day))
    }
    guard (0...9999).contains(lastDate.year) else { return append(iso8601: t) }
    let secs = Int((us - day * 86_400_000_000) / 1_000_000)
    append(date: lastDate)
    bytes.append(0x54)
    append(twoDigits: secs / 3600)
    bytes.append(0x3A)
    append(twoDigits: secs / 60 % 60)
    bytes.append(0x3A)
    append(twoDigits: secs % 60)
    bytes.append(0x5A)
  }

  /// Appends a JSON value.
  @inline(__always)
  mutating func append(json: JSON) {
    json.write(to: &bytes)
  }

  /// Appends `value` rounded to `decimals` places as the JSON writer writes the rounded number.
  @inline(__always)
  mutating func append(number value: Double, decimals: Int) {
    JSON.writeNumber(value, decimals: decimals, to: &bytes)
  }

  /// Appends `key` (`,"name":`) and `value` rounded to `decimals`, or nothing when there is
  /// no value.
  @inline(__always)
  mutating func append(_ key: StaticString, _ value: Double?, decimals: Int) {
    guard let value else { return }
    append(key)
    append(number: value, decimals: decimals)
  }

  /// Appends an integer as a JSON number.
  @inline(__always)
  mutating func append(integer value: Int) {
    JSON.writeInteger(value, to: &bytes)
  }

  /// Hands the bytes to `Output` once they fill a write.
  @inline(__always)
  mutating func flushIfFull() {
    if bytes.count >= Output.capacity { flush() }
  }

  /// Writes what is buffered (and whatever `Output` held before it).
  mutating func flush() {
    guard !bytes.isEmpty else { return }
    bytes.withUnsafeBytes { Output.write(bytes: $0) }
    bytes.removeAll(keepingCapacity: true)
  }
}
