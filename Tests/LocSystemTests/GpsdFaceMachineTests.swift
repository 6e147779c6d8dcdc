import LocCore
import Testing

@testable import LocSystem

/// The gpsd face's rules without sockets: commands, the watch, what a client is asked of
/// the engine, and what each position becomes. Expectations from gpsd_json(5) and from the
/// conversions worked in each test; the real clients are EndToEndTests' GpsdFaceTests.
@Suite struct GpsdFaceMachineTests {
  static let t0 = Instant(iso8601: "2026-06-21T12:00:00Z")!
  static let peer = Peer(pid: 4242, uid: 1000, gid: 1000)
  static let s1 = SessionID(1)
  static let device = "serial:/dev/ttyUSB0"

  static func face(skies: [SourceSky] = []) -> GpsdFace {
    GpsdFace(
      environment: GpsdFace.Environment(
        release: "locd test",
        devices: { [GpsdDevice(path: device, driver: "NMEA0183", activated: t0, seenData: true)] },
        skies: { skies }))
  }

  static func lines(_ actions: [GpsdFace.Action]) -> [String] {
    actions.compactMap { if case .send(_, let l) = $0 { return l } else { return nil } }
  }

  static func requests(_ actions: [GpsdFace.Action]) -> [Request] {
    actions.compactMap { if case .request(_, _, let r) = $0 { return r } else { return nil } }
  }

  static let fix = Fix(
    time: t0, coordinate: Coordinate(latitude: 59.9, longitude: 10.75), mode: .threeD,
    altitudeMSL: Meters(100),
    geoidSeparation: Meters(40), speed: MetersPerSecond(2), course: Degrees(90),
    horizontalAccuracy: Meters(10),
    vdop: 2)

  @Test func greetsWithVersionAndOpensAPlainSessionForTheAdmin() throws {
    var f = Self.face()
    let a = f.connected(Self.s1, peer: Self.peer, access: .admin, standing: .plain, unit: .none)
    let line = try #require(Self.lines(a).first)
    let v = try JSON.parse(String(line.dropLast(1)))
    #expect(v["class"] == .string("VERSION") && v["proto_major"] == .int(3))
    #expect(line.hasSuffix("\r\n"))
    guard case .open(_, let hello) = a.first else { Issue.record("no open"); return }
    #expect(hello.app == nil && hello.access == .admin)
  }

  @Test func anAppAsksForAuthorizationWhenItWatchesAndStopsWhenItStops() {
    var f = Self.face()
    let app = AppID("gpspipe")!
    let a = f.connected(Self.s1, peer: Self.peer, access: .none, standing: .app(app), unit: .none)
    guard case .open(_, let hello) = a.first else {
      Issue.record("no open")
      return
    }
    #expect(hello.app == "gpspipe")
    let on = f.received(Self.s1, line: "?WATCH={\"enable\":true,\"json\":true};", at: Self.t0)
    let r = Self.requests(on)
    #expect(r.contains(.setActivity(.foreground)))
    #expect(r.contains { if case .requestAuthorization(.whenInUse, _) = $0 { true } else { false } })
    #expect(r.contains { if case .startUpdates = $0 { true } else { false } })
    // DEVICES first (none: no decision yet), then WATCH.
    let l = Self.lines(on)
    #expect(l.count == 2 && l[0].contains("\"devices\":[]") && l[1].contains("\"class\":\"WATCH\""))
    let off = Self.requests(f.received(Self.s1, line: "?WATCH={\"enable\":false}", at: Self.t0))
    #expect(off == [.stopUpdates, .setActivity(.background)])
  }

  @Test func malformedUnknownAndOverlongCommandsGetAnError() {
    var f = Self.face()
    _ = f.connected(Self.s1, peer: Self.peer, access: .admin, standing: .plain, unit: .none)
    for text in [
      "WATCH;", "?WATCH={", "?NOPE;", "?WATCH={\"enable\":1};", "?WATCH={\"raw\":7};", "?WATCH={\"x\":true};",
    ] {
      let l = Self.lines(f.received(Self.s1, line: Substring(text), at: Self.t0))
      #expect(l.count == 1 && l[0].hasPrefix("{\"class\":\"ERROR\""), "\(text): \(l)")
    }
    #expect(Self.lines(f.overlong(Self.s1)).first?.contains("longer than 1024") == true)
    #expect(f.counters.badCommands == 7)
  }

  @Test func aFixBecomesATPVWithGpsds95PercentFigures() throws {
    var f = Self.face()
    _ = f.connected(Self.s1, peer: Self.peer, access: .admin, standing: .plain, unit: .none)
    _ = f.received(Self.s1, line: "?WATCH={\"enable\":true}", at: Self.t0)  // json by default
    let position = Position(
      coordinate: Self.fix.coordinate!, accuracy: Meters(10), time: Self.t0, receivedAt: Self.t0,
      source: Self.device)
    let a = f.located(
      ResolvedPosition(tier: .fix, position: position, age: .zero), fix: Self.fix, to: [Self.s1])
    let tpv = try JSON.parse(String(try #require(Self.lines(a).first).dropLast(1)))
    #expect(tpv["mode"] == .int(3) && tpv["lat"] == .number(59.9) && tpv["lon"] == .number(10.75))
    #expect(tpv["altMSL"] == .number(100) && tpv["altHAE"] == .number(140) && tpv["geoidSep"] == .number(40))
    #expect(tpv["speed"] == .number(2) && tpv["track"] == .number(90))
    #expect(tpv["time"] == .string("2026-06-21T12:00:00.000Z") && tpv["device"] == .string(Self.device))
    // 10 m at 68 % of a circular normal error: σ = 10 / 1.5096 = 6.624 m; 95 % = 2.4477 σ =
    // 16.21 m. VDOP 2 with a 5 m range error: σv = 10 m, 95 % = 1.96 σv = 19.6 m.
    #expect(abs((tpv["eph"]?.number ?? 0) - 16.214) < 0.002)
    #expect(abs((tpv["epv"]?.number ?? 0) - 19.6) < 0.001)
  }

  @Test func aReducedPositionIsTwoDimensionalAndGetsNoSky() throws {
    let sky = SourceSky(
      source: Self.device,
      sky: Sky(satellites: [Satellite(constellation: .gps, svid: 5, prn: 5, used: true)]),
      time: Self.t0)
    var f = Self.face(skies: [sky])
    _ = f.connected(Self.s1, peer: Self.peer, access: .none, standing: .app(AppID("cgps")!), unit: .none)
    _ = f.received(Self.s1, line: "?WATCH={\"enable\":true,\"json\":true}", at: Self.t0)
    let cell = Position(
      coordinate: Coordinate(latitude: 59.92, longitude: 10.73)!, accuracy: Meters(3536), time: Self.t0,
      receivedAt: Self.t0, source: Self.device)
    let a = f.located(ResolvedPosition(tier: .fix, position: cell, age: .zero), fix: nil, to: [Self.s1])
    let l = Self.lines(a)
    #expect(l.count == 1)
    let tpv = try JSON.parse(String(try #require(l.first).dropLast(1)))
    #expect(
      tpv["mode"] == .int(2) && tpv["lat"] == .number(59.92) && tpv["altMSL"] == nil && tpv["speed"] == nil)
  }

  @Test func aFullClientGetsTheSkyOncePerChange() throws {
    let sky = SourceSky(
      source: Self.device,
      sky: Sky(satellites: [
        Satellite(constellation: .gps, svid: 5, prn: 5, elevation: 40, azimuth: 120, used: true)
      ]),
      time: Self.t0)
    var f = Self.face(skies: [sky])
    _ = f.connected(Self.s1, peer: Self.peer, access: .admin, standing: .plain, unit: .none)
    _ = f.received(Self.s1, line: "?WATCH={\"enable\":true,\"json\":true}", at: Self.t0)
    let p = Position(
      coordinate: Self.fix.coordinate!, accuracy: Meters(10), time: Self.t0, receivedAt: Self.t0,
      source: Self.device)
    let first = Self.lines(f.located(ResolvedPosition(tier: .fix, position: p), fix: Self.fix, to: [Self.s1]))
    #expect(first.count == 2 && first[0].contains("\"class\":\"SKY\"") && first[0].contains("\"ss\":0"))
    let again = Self.lines(f.located(ResolvedPosition(tier: .fix, position: p), fix: Self.fix, to: [Self.s1]))
    #expect(again.count == 1, "the same sky is not sent twice")
  }
}
