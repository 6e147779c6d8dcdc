/// CRC-32 as in IEEE 802.3, zlib and PNG (reflected polynomial 0xEDB88320, initial and
/// final XOR 0xFFFFFFFF); `CRC32.checksum(of: "123456789")` is 0xCBF43926.
public enum CRC32 {
  private static let table: [UInt32] = (0..<256).map { (n: Int) -> UInt32 in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
  }

  /// The CRC-32 of `bytes`.
  public static func checksum(of bytes: UnsafeRawBufferPointer) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    table.withUnsafeBufferPointer { t in
      for byte in bytes { crc = t[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }
    return crc ^ 0xFFFF_FFFF
  }

  /// The CRC-32 of the UTF-8 bytes of `text`.
  public static func checksum(of text: String) -> UInt32 {
    var copy = text
    return copy.withUTF8 { checksum(of: UnsafeRawBufferPointer($0)) }
  }
}
