import LocCore

/// Output made in place, for the commands that print a line per input (`sun --days`, `decode`):
/// digits, dates and numbers appended to a buffer of the command's own, without a String per
/// value, and handed to `Output` in 64 KiB writes. A local buffer, not `Output.buffer`: a
/// global is checked for exclusive access on every append, which cost more than the digits.
struct ByteText {
  /// Bytes not yet handed to `Output`.
  var bytes: [UInt8] = []

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
