import Foundation
import LocCore
import Testing

// One accessor per report class, so a test says `try #require(message.tpv)` and a parser that
// returns another class fails the test instead of skipping the rest of it.
extension GpsdMessage {
  var devices: [Device]? { if case .devices(let v) = self { v } else { nil } }
  var tpv: TPV? { if case .tpv(let v) = self { v } else { nil } }
  var sky: SKY? { if case .sky(let v) = self { v } else { nil } }
}

@Suite struct GpsdMessageTests {
  static func parse(_ text: String) throws -> GpsdMessage { try GpsdMessage.parse(Array(text.utf8)) }

  @Test func versionDevicesWatchError() throws {
    let v = try Self.parse(
      #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#)
    #expect(v == .version(.init(release: "3.22", revision: "3.22", protocolMajor: 3, protocolMinor: 14)))
    let d = try Self.parse(
      #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","driver":"u-blox","#
        + #""activated":"2026-08-05T05:52:34.156Z","bps":115200,"cycle":1.00},{"path":"/dev/x"}]}"#)
    let list = try #require(d.devices)
    #expect(list.count == 2)
    #expect(list[0].path == "/dev/ttyACM0" && list[0].driver == "u-blox" && list[0].bitsPerSecond == 115200)
    #expect(list[0].activated == Instant(iso8601: "2026-08-05T05:52:34.156Z"))
    #expect(list[0].cycleSeconds == 1.0)
    #expect(list[1].driver == nil)
    let w = try Self.parse(#"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0}"#)
    #expect(w == .watch(.init(enable: true, json: true, nmea: false, raw: 0, device: nil)))
    #expect(
      try Self.parse(#"{"class":"ERROR","message":"Unrecognized request"}"#)
        == .error(message: "Unrecognized request"))
    #expect(try Self.parse(#"{"class":"PPS","device":"/dev/pps0"}"#) == .other(className: "PPS"))
    #expect(throws: JSONParseError.self) { try Self.parse(#"{"nope":1}"#) }
    #expect(throws: JSONParseError.self) { try Self.parse("$GPGGA,1*00") }
  }

  @Test func tpvWithEveryFieldAndWithout() throws {
    let full = try Self.parse(
      #"{"class":"TPV","device":"/dev/ttyUSB0","status":2,"mode":3,"time":"2021-08-12T01:22:38.000Z","#
        + #""lat":-34.908203333,"lon":138.596028333,"altHAE":49.8,"altMSL":53.3,"geoidSep":-3.5,"#
        + #""track":7.5,"speed":0.25,"epx":3.0,"epy":4.0}"#)
    let tpv = try #require(full.tpv)
    #expect(tpv.mode == .threeD && tpv.status == 2)
    let fix = try #require(tpv.fix(sky: GpsdMessage.SKY(satellitesInView: 13, satellitesUsed: 9, hdop: 0.9)))
    #expect(fix.time == Instant(iso8601: "2021-08-12T01:22:38Z"))
    #expect(fix.coordinate == Coordinate(lat: -34.908203333, lon: 138.596028333))
    #expect(fix.quality == .dgps)
    #expect(fix.altitudeMSL == Meters(53.3) && fix.geoidSeparation == Meters(-3.5))
    #expect(fix.speed == MetersPerSecond(0.25) && fix.course == Degrees(7.5))
    // gpsd's epx 3 m and epy 4 m are 95 % half-widths along each axis: σ = 3 / 1.96 and
    // 4 / 1.96. The circular error of the same variance has σ = √((σx² + σy²) / 2) per axis,
    // and its 68 % radius is σ·√(−2 ln 0.32) (Rayleigh). Not √(3² + 4²) = 5, a 95 % figure.
    let sigma = ((3.0 / 1.959964 * 3.0 / 1.959964 + 4.0 / 1.959964 * 4.0 / 1.959964) / 2).squareRoot()
    #expect(close(fix.horizontalAccuracy?.value, sigma * (-2 * log(0.32)).squareRoot(), 1e-5))
    #expect(fix.satellitesUsed == 9 && fix.satellitesInView == 13 && fix.hdop == 0.9)

    let bare = try #require(
      try Self.parse(#"{"class":"TPV","mode":1,"time":"2021-08-12T01:22:38.000Z"}"#).tpv)
    let noFix = try #require(bare.fix(sky: nil))
    #expect(noFix.mode == .noFix && noFix.coordinate == nil && noFix.quality == nil)
    let old = try #require(try Self.parse(#"{"class":"TPV","mode":2,"lat":1,"lon":2,"alt":7}"#).tpv)
    #expect(old.altitudeMSL == Meters(7))
    #expect(old.fix(sky: nil) == nil)  // no time, no fix
    let bad = try #require(
      try Self.parse(#"{"class":"TPV","mode":3,"time":"2021-08-12T01:22:38Z","lat":91,"lon":2}"#).tpv)
    #expect(bad.fix(sky: nil)?.coordinate == nil)
  }

  @Test func skyCountsFromFieldsOrList() throws {
    let counted = try #require(
      try Self.parse(#"{"class":"SKY","nSat":12,"uSat":8,"pdop":1.8,"vdop":1.5}"#).sky)
    #expect(counted.satellitesInView == 12 && counted.satellitesUsed == 8 && counted.pdop == 1.8)
    let listed = try #require(
      try Self.parse(
        #"{"class":"SKY","satellites":[{"PRN":1,"used":true},{"PRN":2,"used":false},{"PRN":3,"used":true}]}"#
      ).sky)
    #expect(listed.satellitesInView == 3 && listed.satellitesUsed == 2)
    let empty = try #require(try Self.parse(#"{"class":"SKY"}"#).sky)
    #expect(empty.satellitesInView == nil && empty.satellitesUsed == nil)
  }

  @Test func gpsdsNinetyFivePercentEphBecomesTheSixtyEightPercentRadius() throws {
    // bu353s4.log.chk, gpsd's report for 2014-12-31T03:07:19Z: eph 20.9 m, which is gpsd's
    // error model at HDOP 1.1 (19 m per unit of HDOP, 95 % confidence). For a circular
    // normal error the 95 % radius is σ·√(−2 ln 0.05) and the 68 % one σ·√(−2 ln 0.32).
    let tpv = try #require(
      try Self.parse(
        #"{"class":"TPV","mode":3,"time":"2014-12-31T03:07:19.000Z","lat":-37.784788333,"#
          + #""lon":175.314896667,"eph":20.900,"epx":3.0,"epy":4.0}"#
      ).tpv)
    let fix = try #require(tpv.fix(sky: nil))
    let expected = 20.9 / (-2 * log(0.05)).squareRoot() * (-2 * log(0.32)).squareRoot()
    #expect(close(fix.horizontalAccuracy?.value, expected, 1e-9))  // eph wins over epx/epy
    #expect(close(expected, 12.89, 0.01))
  }
}
