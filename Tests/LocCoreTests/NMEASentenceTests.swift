import LocCore
import Testing

/// `$body*hh` with the correct checksum.
func nmea(_ body: String) -> String {
  let sum = body.utf8.reduce(UInt8(0), ^)
  let hex = Array("0123456789ABCDEF".utf8)
  return "$" + body + "*" + String(decoding: [hex[Int(sum >> 4)], hex[Int(sum & 15)]], as: UTF8.self)
}

func parse(_ line: String) -> NMEAParseResult {
  Array(line.utf8).withUnsafeBytes { NMEASentence.parse($0) }
}

func sentence(_ line: String) -> NMEASentence? {
  if case .sentence(let s) = parse(line) { return s }
  return nil
}

// One accessor per sentence kind, so a test says `try #require(content.rmc)` and a parser that
// returns another kind fails the test instead of skipping the rest of it.
extension NMEASentence.Content {
  var rmc: NMEASentence.RMC? { if case .rmc(let v) = self { v } else { nil } }
  var gga: NMEASentence.GGA? { if case .gga(let v) = self { v } else { nil } }
  var gll: NMEASentence.GLL? { if case .gll(let v) = self { v } else { nil } }
  var gns: NMEASentence.GNS? { if case .gns(let v) = self { v } else { nil } }
  var gsa: NMEASentence.GSA? { if case .gsa(let v) = self { v } else { nil } }
  var gsv: NMEASentence.GSV? { if case .gsv(let v) = self { v } else { nil } }
  var vtg: NMEASentence.VTG? { if case .vtg(let v) = self { v } else { nil } }
  var zda: NMEASentence.ZDA? { if case .zda(let v) = self { v } else { nil } }
  var gst: NMEASentence.GST? { if case .gst(let v) = self { v } else { nil } }
}

extension NMEAParseResult {
  /// The field error, if the line was refused as malformed.
  var malformed: NMEAFieldError? { if case .malformed(let e) = self { e } else { nil } }
}

func close(_ a: Double?, _ b: Double, _ tolerance: Double = 1e-9) -> Bool {
  guard let a else { return false }
  return abs(a - b) <= tolerance
}

@Suite struct NMEASentenceTests {
  @Test func rmcAllFields() throws {
    let s = try #require(
      sentence(nmea("GPRMC,123519.25,A,4807.038,N,01131.000,W,022.4,084.4,230394,003.1,W,D,S")))
    #expect(s.talker == .gps)
    let r = try #require(s.content.rmc)
    #expect(r.time == TimeOfDay(hour: 12, minute: 35, second: 19, microsecond: 250_000))
    #expect(r.valid)
    #expect(close(r.coordinate?.latitude.value, 48 + 7.038 / 60))
    #expect(close(r.coordinate?.longitude.value, -(11 + 31.0 / 60)))
    #expect(close(r.speed?.value, 22.4 * 1852 / 3600))
    #expect(r.course == Degrees(84.4))
    #expect(r.date == CivilDate(year: 1994, month: 3, day: 23))
    #expect(r.mode == .differential)
    #expect(r.navigationalStatus == UInt8(ascii: "S"))
  }

  @Test func rmcWithoutFixKeepsTimeAndDateOnly() throws {
    let s = try #require(sentence(nmea("GPRMC,123519,V,8960.000000,N,00000.000000,E,0.000,0.00,050180,,,N")))
    let r = try #require(s.content.rmc)
    #expect(!r.valid)
    #expect(r.coordinate == nil)  // MTK's placeholder (89°60') is not even looked at
    #expect(r.speed == nil)
    #expect(r.date == CivilDate(year: 1980, month: 1, day: 5))
    // Status A with mode N is no fix either.
    let n = try #require(sentence(nmea("GPRMC,123519,A,4807.038,N,01131.000,E,0,0,230394,,,N"))?.content.rmc)
    #expect(!n.valid)
  }

  @Test func ggaAllFields() throws {
    let s = try #require(
      sentence(nmea("GNGGA,235959.999,4807.0380,S,01131.0000,E,4,12,0.9,545.4,M,46.9,M,1.0,0000")))
    #expect(s.talker == .combined)
    let g = try #require(s.content.gga)
    #expect(g.time == TimeOfDay(hour: 23, minute: 59, second: 59, microsecond: 999_000))
    #expect(close(g.coordinate?.latitude.value, -(48 + 7.038 / 60)))
    #expect(g.quality == .rtkFixed)
    #expect(g.satellitesUsed == 12)
    #expect(g.hdop == 0.9)
    #expect(g.altitudeMSL == Meters(545.4))
    #expect(g.geoidSeparation == Meters(46.9))
  }

  @Test func ggaQualityIndicators() throws {
    let expected: [Int: FixQuality?] = [
      0: nil, 1: .gps, 2: .dgps, 3: .pps, 4: .rtkFixed, 5: .rtkFloat, 6: .deadReckoning, 7: .manual,
      8: .simulated,
    ]
    for (q, quality) in expected {
      let g = try #require(
        sentence(nmea("GPGGA,123519,4807.038,N,01131.000,E,\(q),08,0.9,545.4,M,46.9,M,,"))?.content.gga,
        "quality \(q) not parsed")
      #expect(g.quality == quality)
      #expect((g.coordinate != nil) == (quality != nil))
    }
    #expect(
      parse(nmea("GPGGA,123519,4807.038,N,01131.000,E,9,08,0.9,545.4,M,46.9,M,,"))
        == .malformed(NMEAFieldError(field: 6, reason: .outOfRange)))
  }

  @Test func noFixGGAWithEmptyFields() throws {
    let g = try #require(sentence(nmea("GPGGA,,,,,,0,00,99.99,,,,,,"))?.content.gga)
    #expect(g.time == nil)
    #expect(g.coordinate == nil)
    #expect(g.quality == nil)
    #expect(g.satellitesUsed == 0)
    #expect(g.hdop == 99.99)
    #expect(g.altitudeMSL == nil)
  }

  @Test func gllGnsVtgZdaGst() throws {
    let gll = try #require(sentence(nmea("GPGLL,4916.45,N,12311.12,W,225444,A,A"))?.content.gll)
    #expect(gll.valid)
    #expect(close(gll.coordinate?.latitude.value, 49 + 16.45 / 60))
    #expect(gll.time == TimeOfDay(hour: 22, minute: 54, second: 44))
    let void = try #require(sentence(nmea("GPGLL,,,,,,V,N"))?.content.gll)
    #expect(!void.valid && void.coordinate == nil)

    let gnsLine = nmea("GNGNS,014035.00,4332.69262,S,17235.48549,E,RRNN,13,0.9,25.63,11.24,,,S")
    let gns = try #require(sentence(gnsLine)?.content.gns)
    #expect(gns.mode == .rtkFixed)
    #expect(gns.satellitesUsed == 13)
    #expect(gns.altitudeMSL == Meters(25.63))
    #expect(gns.geoidSeparation == Meters(11.24))
    #expect(gns.navigationalStatus == UInt8(ascii: "S"))
    let noFix = try #require(sentence(nmea("GNGNS,014035.00,,,,,NNNN,00,,,,,,V"))?.content.gns)
    #expect(noFix.mode == .noFix && noFix.coordinate == nil)

    let vtg = try #require(sentence(nmea("GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A"))?.content.vtg)
    #expect(vtg.course == Degrees(54.7))
    #expect(close(vtg.speed?.value, 5.5 * 1852 / 3600))
    let kmh = try #require(sentence(nmea("GPVTG,054.7,T,,M,,N,010.8,K,D"))?.content.vtg)
    #expect(close(kmh.speed?.value, 3.0))
    let none = try #require(sentence(nmea("GPVTG,,T,,M,,N,,K,N"))?.content.vtg)
    #expect(none.speed == nil && none.course == nil && none.mode == .noFix)

    let zda = try #require(sentence(nmea("GPZDA,201530.00,04,07,2002,00,00"))?.content.zda)
    #expect(zda.date == CivilDate(year: 2002, month: 7, day: 4))
    #expect(zda.time == TimeOfDay(hour: 20, minute: 15, second: 30))
    let empty = try #require(sentence(nmea("GPZDA,,,,,00,00"))?.content.zda)
    #expect(empty.date == nil && empty.time == nil)

    let gst = try #require(sentence(nmea("GNGST,003956.00,235111,,,,2.3,3.5,4.0"))?.content.gst)
    #expect(gst.latitudeSigma == Meters(2.3))
    #expect(gst.longitudeSigma == Meters(3.5))
    #expect(gst.altitudeSigma == Meters(4.0))
  }

  @Test func gsaAndGsv() throws {
    let a = try #require(sentence(nmea("GNGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1,1"))?.content.gsa)
    #expect(a.fixMode == .threeD)
    #expect(a.satellitesUsed == 5)
    #expect(a.pdop == 2.5 && a.hdop == 1.3 && a.vdop == 2.1)
    #expect(a.systemID == 1)
    // SiRF puts a TDOP where NMEA 4.10 has the system id; Jackson Labs sends 0.00 DOPs.
    let sirf = try #require(sentence(nmea("GPGSA,A,3,25,32,,,,,,,,,,,5.1,1.3,4.9,3.3"))?.content.gsa)
    #expect(sirf.systemID == nil && sirf.vdop == 4.9)
    let zero = try #require(sentence(nmea("GNGSA,A,3,27,9,,,,,,,,,,,0.00,0.00,0.00"))?.content.gsa)
    #expect(zero.pdop == nil && zero.hdop == nil && zero.vdop == nil)

    let multi = nmea("GPGSV,3,1,12,01,17,083,03,02,20,056,27,07,18,123,25,08,,,15,7")
    let v = try #require(sentence(multi)?.content.gsv)
    #expect(v.totalParts == 3 && v.part == 1 && v.satellitesInView == 12 && v.signalID == 7)
    let old = try #require(sentence(nmea("GPGSV,1,1,00"))?.content.gsv)
    #expect(old.satellitesInView == 0 && old.signalID == nil)
    #expect(parse(nmea("GPGSV,2,3,08")).malformed != nil, "part 3 of 2 accepted")
  }

  @Test func checksums() {
    let good = nmea("GPGLL,4916.45,N,12311.12,W,225444,A,A")
    #expect(sentence(good) != nil)
    // The checksum covers the body: changing a letter breaks it.
    #expect(sentence(good.lowercased().replacingOccurrences(of: "$gpgll", with: "$GPGLL")) == nil)
    #expect(sentence(String(good.dropLast(2)) + good.suffix(2).lowercased()) != nil)  // hex case
    #expect(sentence(good + "  ") != nil)  // trailing spaces
    var wrong = Array(good.utf8)
    wrong[wrong.count - 1] = wrong[wrong.count - 1] == 0x30 ? 0x31 : 0x30
    #expect(parse(String(decoding: wrong, as: UTF8.self)) == .badChecksum)
    #expect(parse("$GPGLL,4916.45,N,12311.12,W,225444,A,A") == .badChecksum)  // missing
    #expect(parse("$GPGLL,4916.45,N,12311.12,W,225444,A,A*5") == .badChecksum)  // truncated
    #expect(parse(nmea("PMTK001,604,3")) == .proprietary)
    #expect(parse("$PMTK001,604,3") == .proprietary)
    #expect(parse("$PMTK001,604,3*00") == .badChecksum)
    #expect(parse(nmea("GPTXT,01,01,02,ANTENNA OK")) == .unsupported)
    #expect(parse("!" + nmea("AIVDM,1,1,,A,13aEOK?P00PD2wVMdLDRhgvL289?,0").dropFirst()) == .unsupported)
    #expect(parse(nmea("GPgga,1")) == .malformed(NMEAFieldError(field: 0, reason: .malformed)))
    #expect(parse(nmea("GP")) == .malformed(NMEAFieldError(field: 0, reason: .malformed)))
    #expect(parse("") == .malformed(NMEAFieldError(field: 0, reason: .missing)))
  }

  @Test func outOfRangeAndMalformedFieldsRejectTheSentence() {
    let cases: [(String, NMEAFieldError)] = [
      (
        "GPGGA,123519,9100.000,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
        NMEAFieldError(field: 2, reason: .outOfRange)
      ),
      (
        "GPGGA,123519,4860.000,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
        NMEAFieldError(field: 2, reason: .outOfRange)
      ),
      (
        "GPGGA,123519,4807.038,N,18100.000,E,1,08,0.9,545.4,M,46.9,M,,",
        NMEAFieldError(field: 4, reason: .outOfRange)
      ),
      (
        "GPGGA,123519,4807.038,X,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
        NMEAFieldError(field: 3, reason: .malformed)
      ),
      (
        "GPGGA,123519,4807.038,,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
        NMEAFieldError(field: 3, reason: .missing)
      ),
      (
        "GPGGA,240000,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
        NMEAFieldError(field: 1, reason: .outOfRange)
      ),
      (
        "GPGGA,123560,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
        NMEAFieldError(field: 1, reason: .outOfRange)
      ),
      (
        "GPGGA,1a3519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
        NMEAFieldError(field: 1, reason: .malformed)
      ),
      (
        "GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,5x5.4,M,46.9,M,,",
        NMEAFieldError(field: 9, reason: .malformed)
      ),
      (
        "GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,F,46.9,M,,",
        NMEAFieldError(field: 10, reason: .malformed)
      ),
      (
        "GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,310294,,",
        NMEAFieldError(field: 9, reason: .outOfRange)
      ),
      (
        "GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,,,X",
        NMEAFieldError(field: 12, reason: .malformed)
      ),
      ("GPRMC,123519,A,,,01131.000,E,022.4,084.4,230394,,", NMEAFieldError(field: 3, reason: .missing)),
      (
        "GPRMC,123519,A,4807.038,N,01131.000,E,-1,084.4,230394,,",
        NMEAFieldError(field: 7, reason: .outOfRange)
      ),
      ("GPRMC,123519,A,4807.038,N,01131.000,E,1,361,230394,,", NMEAFieldError(field: 8, reason: .outOfRange)),
      ("GPRMC,123519,Q,4807.038,N,01131.000,E,1,36,230394,,", NMEAFieldError(field: 2, reason: .malformed)),
      ("GPZDA,201530.00,31,02,2002,00,00", NMEAFieldError(field: 2, reason: .outOfRange)),
      ("GPZDA,201530.00,28,02,,00,00", NMEAFieldError(field: 4, reason: .missing)),
      ("GPGSA,A,4,04,,,,,,,,,,,,2.5,1.3,2.1", NMEAFieldError(field: 2, reason: .outOfRange)),
    ]
    for (body, error) in cases {
      #expect(parse(nmea(body)) == .malformed(error), "\(body)")
    }
  }

  @Test func timeOfDayForPacing() throws {
    let rmc = nmea("GPRMC,123519.25,A,4807.038,N,01131.000,W,022.4,084.4,230394,003.1,W,D,S")
    let t = try #require(Array(rmc.utf8).withUnsafeBytes { NMEASentence.timeOfDay($0) })
    #expect(t.time == TimeOfDay(hour: 12, minute: 35, second: 19, microsecond: 250_000))
    #expect(t.date == CivilDate(year: 1994, month: 3, day: 23))
    let gga = Array(nmea("GPGGA,000001,,,,,0,00,,,,,,,").utf8).withUnsafeBytes { NMEASentence.timeOfDay($0) }
    #expect(gga?.time == TimeOfDay(hour: 0, minute: 0, second: 1) && gga?.date == nil)
    #expect(
      Array(nmea("GPGSA,A,1,,,,,,,,,,,,,,,").utf8).withUnsafeBytes { NMEASentence.timeOfDay($0) } == nil)
    #expect(
      Array("$GPGGA,000001,,,,,0,00,,,,,,,*00".utf8).withUnsafeBytes { NMEASentence.timeOfDay($0) } == nil)
  }

  /// The field's decimal: `.some(value or nil)`, or `.none` when it throws.
  static func decimal(_ text: String) -> Double?? {
    Array(text.utf8).withUnsafeBytes { bytes -> Double?? in
      do { return .some(try NMEAField(bytes, number: 1).decimal()) } catch { return .none }
    }
  }

  @Test func numbersParseByHand() {
    #expect(Self.decimal("12.50") == 12.5)
    #expect(Self.decimal("-0.25") == -0.25)
    #expect(Self.decimal(".5") == 0.5)
    #expect(Self.decimal("3.") == 3)
    #expect(Self.decimal("") == .some(nil))
    #expect(Self.decimal("1.2.3") == .none)
    #expect(Self.decimal("-") == .none)
    #expect(Self.decimal("1e5") == .none)
    #expect(Self.decimal("4134.49795459") == 4134.49795459)
    #expect(Self.decimal("0.1") == 0.1)  // correctly rounded
    #expect(Self.decimal("99999999999999999999") == .none)
    // Fraction digits beyond what a Double resolves are dropped, however many zeros lead them.
    #expect(Self.decimal("0." + String(repeating: "0", count: 40) + "1") == 0)
    #expect(Self.decimal("1." + String(repeating: "0", count: 40)) == 1)
    #expect(Self.decimal("0.1234567890123456789012345") == 0.1234567890123456789)
    #expect(Self.decimal("000000000000000000000000012.5") == 12.5)
  }
}
