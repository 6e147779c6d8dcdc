import LocCore
import Testing

/// How GSV parts and GSA lists become skies (`SkyAssembler`, through `NMEADecoder`): a
/// message with a part missing is dropped, another talker's set stays for a few cycles, and a
/// cycle without a GSA keeps the used list of the last one that had one.
@Suite struct SkyAssemblerTests {
  /// A decoder fed `lines` (checksums added).
  static func decode(_ lines: [String]) -> NMEADecoder {
    var decoder = NMEADecoder()
    for line in lines {
      var sum: UInt8 = 0
      for b in line.utf8.dropFirst() { sum ^= b }
      let full = line + "*" + (sum < 16 ? "0" : "") + String(sum, radix: 16, uppercase: true) + "\r\n"
      Array(full.utf8).withUnsafeBytes { decoder.feed($0) { _ in } }
    }
    return decoder
  }

  /// An RMC at second `s` (a fix, so the epoch is emitted).
  static func rmc(_ s: Int) -> String {
    "$GPRMC,1200\(s < 10 ? "0" : "")\(s).00,A,4807.038,N,01131.000,E,0.0,0.0,010125,,,A"
  }

  /// The sky's satellites as "prn used" words.
  static func words(_ d: NMEADecoder) -> [String] {
    d.sky?.satellites.map { "\($0.prn)\($0.used ? "u" : "")" } ?? []
  }

  @Test func aMessageWithAPartMissingIsDropped() {
    let d = Self.decode([
      Self.rmc(0), "$GPGSV,2,1,05,01,40,090,41,02,20,180,35,03,30,200,38,04,50,100,30",
      Self.rmc(1),  // part 2 never came: no sky
      Self.rmc(2), "$GPGSV,2,2,05,05,05,010,20",  // a second part alone: no sky either
      Self.rmc(3),
    ])
    #expect(d.skyCount == 0 && d.sky == nil)
  }

  @Test func otherTalkersStayForAFewCyclesThenGo() {
    var lines = [Self.rmc(0), "$GLGSV,1,1,01,70,15,270,28", "$GPGSV,1,1,01,07,40,090,41"]
    for s in 1...6 { lines += [Self.rmc(s), "$GPGSV,1,1,01,07,40,090,41"] }
    var d = Self.decode(Array(lines.prefix(2 + 1 + 2 * 3)) + [Self.rmc(9)])
    #expect(Self.words(d) == ["7", "70"], "GLONASS still in the sky three cycles on")
    d = Self.decode(lines + [Self.rmc(9)])
    #expect(Self.words(d) == ["7"], "and gone after five")
  }

  @Test func usedComesFromTheCycleOrTheLastGSA() {
    let d = Self.decode([
      Self.rmc(0), "$GPGSA,A,3,07,09,,,,,,,,,,,1.5,0.9,1.2", "$GPGSV,1,1,02,07,40,090,41,09,20,100,33",
      Self.rmc(1), "$GPGSV,1,1,02,07,40,090,41,09,20,100,33",  // no GSA: the last one's list
      Self.rmc(2),
    ])
    #expect(d.skyCount == 2)
    #expect(Self.words(d) == ["7u", "9u"])
    let e = Self.decode([
      Self.rmc(0), "$GPGSA,A,3,07,09,,,,,,,,,,,1.5,0.9,1.2", "$GPGSV,1,1,02,07,40,090,41,09,20,100,33",
      Self.rmc(1), "$GPGSA,A,3,09,,,,,,,,,,,,1.5,0.9,1.2", "$GPGSV,1,1,02,07,40,090,41,09,20,100,33",
      Self.rmc(2),
    ])
    #expect(Self.words(e) == ["7", "9u"], "this cycle's GSA wins")
  }
}
