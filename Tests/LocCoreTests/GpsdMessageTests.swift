import LocCore
import Testing

@Suite struct GpsdMessageTests {
  static func parse(_ text: String) throws -> GpsdMessage { try GpsdMessage.parse(Array(text.utf8)) }

  @Test func versionDevicesWatchError() throws {
    let v = try Self.parse(
      #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#)
    #expect(v == .version(.init(release: "3.22", revision: "3.22", protocolMajor: 3, protocolMinor: 14)))
    let d = try Self.parse(
      #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","driver":"u-blox","#
        + #""activated":"2026-08-05T05:52:34.156Z","bps":115200,"cycle":1.00},{"path":"/dev/x"}]}"#)
    guard case .devices(let list) = d else {
      Issue.record("not DEVICES")
      return
    }
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
    guard case .tpv(let tpv) = full else {
      Issue.record("not TPV")
      return
    }
    #expect(tpv.mode == .threeD && tpv.status == 2)
    let fix = try #require(tpv.fix(sky: GpsdMessage.SKY(satellitesInView: 13, satellitesUsed: 9, hdop: 0.9)))
    #expect(fix.time == Instant(iso8601: "2021-08-12T01:22:38Z"))
    #expect(fix.coordinate == Coordinate(lat: -34.908203333, lon: 138.596028333))
    #expect(fix.quality == .dgps)
    #expect(fix.altitudeMSL == Meters(53.3) && fix.geoidSeparation == Meters(-3.5))
    #expect(fix.speed == MetersPerSecond(0.25) && fix.course == Degrees(7.5))
    #expect(fix.horizontalAccuracy == Meters(5.0))
    #expect(fix.satellitesUsed == 9 && fix.satellitesInView == 13 && fix.hdop == 0.9)

    guard case .tpv(let bare) = try Self.parse(#"{"class":"TPV","mode":1,"time":"2021-08-12T01:22:38.000Z"}"#)
    else { return }
    let noFix = try #require(bare.fix(sky: nil))
    #expect(noFix.mode == .noFix && noFix.coordinate == nil && noFix.quality == nil)
    guard case .tpv(let old) = try Self.parse(#"{"class":"TPV","mode":2,"lat":1,"lon":2,"alt":7}"#) else {
      return
    }
    #expect(old.altitudeMSL == Meters(7))
    #expect(old.fix(sky: nil) == nil)  // no time, no fix
    guard
      case .tpv(let bad) = try Self.parse(
        #"{"class":"TPV","mode":3,"time":"2021-08-12T01:22:38Z","lat":91,"lon":2}"#)
    else { return }
    #expect(bad.fix(sky: nil)?.coordinate == nil)
  }

  @Test func skyCountsFromFieldsOrList() throws {
    guard
      case .sky(let counted) = try Self.parse(#"{"class":"SKY","nSat":12,"uSat":8,"pdop":1.8,"vdop":1.5}"#)
    else { return }
    #expect(counted.satellitesInView == 12 && counted.satellitesUsed == 8 && counted.pdop == 1.8)
    guard
      case .sky(let listed) = try Self.parse(
        #"{"class":"SKY","satellites":[{"PRN":1,"used":true},{"PRN":2,"used":false},{"PRN":3,"used":true}]}"#)
    else { return }
    #expect(listed.satellitesInView == 3 && listed.satellitesUsed == 2)
    guard case .sky(let empty) = try Self.parse(#"{"class":"SKY"}"#) else { return }
    #expect(empty.satellitesInView == nil && empty.satellitesUsed == nil)
  }
}
