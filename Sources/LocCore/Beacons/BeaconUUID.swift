/// A 128-bit UUID as beacons send it: 16 bytes, big-endian on air (RFC 9562 byte order).
public struct BeaconUUID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// Bytes 0...7 (the first eight written), most significant first.
  public var high: UInt64
  /// Bytes 8...15.
  public var low: UInt64

  /// A UUID from its two halves.
  @inlinable public init(high: UInt64, low: UInt64) {
    self.high = high
    self.low = low
  }

  /// A UUID from 16 bytes at `offset`, in the order they are written (big-endian).
  @inlinable public init(bytes p: UnsafeRawBufferPointer, at offset: Int) {
    var h: UInt64 = 0
    var l: UInt64 = 0
    for i in 0..<8 { h = h << 8 | UInt64(p[offset + i]) }
    for i in 8..<16 { l = l << 8 | UInt64(p[offset + i]) }
    high = h
    low = l
  }

  /// Parses `494e5445-4c4c-495f-524f-434b535f4857` (any case; the dashes may be left out, but
  /// if present they must be in the 8-4-4-4-12 places); `nil` for anything else.
  public init?(_ text: some StringProtocol) {
    let bytes = Array(text.utf8)
    let dashed = bytes.count == 36
    guard dashed || bytes.count == 32 else { return nil }
    var digits: [UInt8] = []
    digits.reserveCapacity(32)
    for (i, c) in bytes.enumerated() {
      if dashed && (i == 8 || i == 13 || i == 18 || i == 23) {
        guard c == UInt8(ascii: "-") else { return nil }
        continue
      }
      guard let v = hexValue(c) else { return nil }
      digits.append(v)
    }
    var h: UInt64 = 0
    var l: UInt64 = 0
    for i in 0..<16 { h = h << 4 | UInt64(digits[i]) }
    for i in 16..<32 { l = l << 4 | UInt64(digits[i]) }
    high = h
    low = l
  }

  @inlinable public static func < (a: BeaconUUID, b: BeaconUUID) -> Bool {
    (a.high, a.low) < (b.high, b.low)
  }

  /// Lower-case 8-4-4-4-12 form, as BlueZ and `uuidgen` print it.
  public var description: String {
    var out: [UInt8] = []
    out.reserveCapacity(36)
    for i in 0..<32 {
      if i == 8 || i == 12 || i == 16 || i == 20 { out.append(UInt8(ascii: "-")) }
      let word = i < 16 ? high : low
      let shift = UInt64((15 - i % 16) * 4)
      out.append(hexDigit(UInt8(truncatingIfNeeded: word >> shift) & 0xF))
    }
    return String(decoding: out, as: UTF8.self)
  }
}
