import Testing

@testable import LocCore

/// Which lines are passed on as the receiver sent them: whole sentences with a checksum that
/// matches (NMEA 0183: the XOR of the bytes between `$` and `*`), printable, bounded.
@Suite struct RelayedSentenceTests {
  static func text(_ s: String) -> String? {
    Array(s.utf8).withUnsafeBytes { RelayedSentence.text(of: $0) }
  }

  // The first GGA of Tests/Fixtures/nmea/bu353s4.log (gpsd's regression log), checksum 7D.
  static let gga = "$GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000*7D"

  @Test func aGoodSentenceIsPassedOnWithCRLF() {
    #expect(Self.text(Self.gga) == Self.gga + "\r\n")
    #expect(Self.text(Self.gga + "\r\n") == Self.gga + "\r\n", "its own line end is not doubled")
    #expect(Self.text(Self.gga + "\n") == Self.gga + "\r\n")
    // The checksum in lower case is the same number.
    #expect(Self.text("$GPGSA,A,3,17,28,06,01,30,20,26,13,,,,,1.8,1.1,1.5*33") != nil)
    #expect(Self.text("!AIVDM,1,1,,A,13aEOK?P00PD2wVMdLDRhgvL289?,0*26") != nil, "! sentences too")
  }

  @Test func aBadOrMissingChecksumIsNot() {
    #expect(Self.text(String(Self.gga.dropLast(2)) + "7E") == nil)
    #expect(Self.text(String(Self.gga.dropLast(3))) == nil, "no checksum")
    #expect(Self.text(String(Self.gga.dropLast(2)) + "7G") == nil, "not hexadecimal")
  }

  @Test func garbageAndOverlongLinesAreNot() {
    #expect(Self.text("{\"class\":\"TPV\"}") == nil, "gpsd JSON")
    #expect(Self.text("# Name: GlobalSat BU-353-S4") == nil)
    #expect(Self.text("$GP*00") == nil, "too short")
    // A control byte inside, with the checksum made to match it anyway.
    var bytes = Array("$GPTXT,01,01,02,ab".utf8)
    bytes[12] = 0x07
    var sum: UInt8 = 0
    for b in bytes.dropFirst() { sum ^= b }
    let tail = Array("*".utf8) + Array(String(sum, radix: 16, uppercase: true).utf8)
    #expect((bytes + tail).withUnsafeBytes { RelayedSentence.text(of: $0) } == nil)
    // 102 bytes with a good checksum pass; 103 are one over the bound.
    #expect(Self.text(Self.sentence(bytes: 102))?.utf8.count == 104)
    #expect(Self.text(Self.sentence(bytes: 103)) == nil)
  }

  /// A `$GPTXT` sentence of `bytes` bytes (without its line end) with its checksum.
  static func sentence(bytes: Int) -> String {
    let body = "GPTXT," + String(repeating: "A", count: bytes - 4 - 6)
    var sum: UInt8 = 0
    for b in body.utf8 { sum ^= b }
    let digits = Array("0123456789ABCDEF")
    return "$" + body + "*" + String([digits[Int(sum >> 4)], digits[Int(sum & 15)]])
  }
}
