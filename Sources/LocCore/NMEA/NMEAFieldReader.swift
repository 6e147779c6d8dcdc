/// Walks the comma-separated fields of one sentence in order, in place. Past the last field
/// it yields empty fields, so a short sentence from an older NMEA version reads as one with
/// its newer trailing fields empty.
public struct NMEAFieldReader {
  @usableFromInline let base: UnsafeRawPointer
  @usableFromInline var position: Int
  @usableFromInline let end: Int
  @usableFromInline var number = 0
  @usableFromInline var done: Bool

  /// A reader over the fields in `line[start ..< end]` (between the address comma and `*`).
  /// `start > end` means the sentence has no fields at all.
  @inlinable public init(_ line: UnsafeRawBufferPointer, start: Int, end: Int) {
    // A line is never empty here; the parser checked its length.
    base = line.baseAddress!
    position = start
    self.end = end
    done = start > end
  }

  /// The next field (empty once the fields run out).
  @inlinable public mutating func next() -> NMEAField {
    number += 1
    if done { return NMEAField(UnsafeRawBufferPointer(start: base, count: 0), number: number) }
    var i = position
    while i < end, base.load(fromByteOffset: i, as: UInt8.self) != 0x2C { i += 1 }
    let field = NMEAField(UnsafeRawBufferPointer(start: base + position, count: i - position), number: number)
    if i >= end { done = true } else { position = i + 1 }
    return field
  }

  /// Skips `count` fields.
  @inlinable public mutating func skip(_ count: Int) {
    for _ in 0..<count { _ = next() }
  }

  /// The last field of the sentence, without consuming anything (empty when none are left).
  @inlinable public func lastField(number: Int) -> NMEAField {
    if done { return NMEAField(UnsafeRawBufferPointer(start: base, count: 0), number: number) }
    var i = end
    while i > position, base.load(fromByteOffset: i - 1, as: UInt8.self) != 0x2C { i -= 1 }
    return NMEAField(UnsafeRawBufferPointer(start: base + i, count: end - i), number: number)
  }

  /// The number of fields left, counting this one; scans without consuming.
  @inlinable public var remainingCount: Int {
    if done { return 0 }
    var count = 1
    var i = position
    while i < end {
      if base.load(fromByteOffset: i, as: UInt8.self) == 0x2C { count += 1 }
      i += 1
    }
    return count
  }
}
