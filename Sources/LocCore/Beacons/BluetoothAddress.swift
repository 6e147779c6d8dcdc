/// A Bluetooth device address (BD_ADDR, 48 bits), as HCI carries it.
///
/// HCI sends the address least-significant byte first (Core 5.4, Vol 4, Part E, 5.2); people
/// and BlueZ write it most-significant byte first, `a4:c1:38:ec:0b:03`, which is what
/// `description` gives.
public struct BluetoothAddress: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The 48 bits, most significant byte of the written form in bits 40...47.
  public var value: UInt64

  /// An address from its 48-bit value (higher bits are dropped).
  @inlinable public init(value: UInt64) { self.value = value & 0xFFFF_FFFF_FFFF }

  /// An address from six bytes in HCI order (least significant first).
  @inlinable public init(hciBytes p: UnsafeRawBufferPointer, at offset: Int) {
    var v: UInt64 = 0
    for i in (0..<6).reversed() { v = v << 8 | UInt64(p[offset + i]) }
    value = v
  }

  /// Parses `a4:c1:38:ec:0b:03` (also with `-`, any case); `nil` for anything else.
  public init?(_ text: some StringProtocol) {
    let bytes = Array(text.utf8)
    guard bytes.count == 17 else { return nil }
    var v: UInt64 = 0
    for i in 0..<6 {
      if i > 0 {
        let sep = bytes[i * 3 - 1]
        guard sep == UInt8(ascii: ":") || sep == UInt8(ascii: "-") else { return nil }
      }
      guard let hi = hexValue(bytes[i * 3]), let lo = hexValue(bytes[i * 3 + 1]) else { return nil }
      v = v << 8 | UInt64(hi << 4 | lo)
    }
    value = v
  }

  @inlinable public static func < (a: BluetoothAddress, b: BluetoothAddress) -> Bool { a.value < b.value }

  /// Most significant byte first, lower-case hex, colons: `a4:c1:38:ec:0b:03`.
  public var description: String {
    var out: [UInt8] = []
    out.reserveCapacity(17)
    for i in (0..<6).reversed() {
      let byte = UInt8(truncatingIfNeeded: value >> UInt64(i * 8))
      out.append(hexDigit(byte >> 4))
      out.append(hexDigit(byte & 0xF))
      if i > 0 { out.append(UInt8(ascii: ":")) }
    }
    return String(decoding: out, as: UTF8.self)
  }
}

/// The value of one hex digit (`0-9a-fA-F`), or `nil`.
func hexValue(_ c: UInt8) -> UInt8? {
  switch c {
  case 0x30...0x39: return c - 0x30
  case 0x41...0x46: return c - 0x41 + 10
  case 0x61...0x66: return c - 0x61 + 10
  default: return nil
  }
}

/// The lower-case hex digit for `nibble` (0...15).
func hexDigit(_ nibble: UInt8) -> UInt8 {
  nibble < 10 ? 0x30 + nibble : 0x61 + nibble - 10
}
