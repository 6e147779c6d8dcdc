import Testing

@testable import LocCore
@testable import LocSystem

/// The gpsd face's rules without sockets: commands, the watch, what a client is asked of
/// the engine, and what each position becomes. Expectations from gpsd_json(5) and from the
/// conversions worked in each test; the real clients are EndToEndTests' GpsdFaceTests.
@Suite struct GpsdFaceMachineTests {
  static let t0 = Instant(iso8601: "2026-06-21T12:00:00Z")!
  static let peer = Peer(pid: 4242, uid: 1000, gid: 1000)
  static let s1 = SessionID(1)
  static let device = "serial:/dev/ttyUSB0"

  static func face(skies: [SourceSky] = [], sendsSentences: Bool = false) -> GpsdFace {
    GpsdFace(
      environment: GpsdFace.Environment(
        release: "locd test",
        devices: { [GpsdDevice(path: device, driver: "NMEA0183", activated: t0, seenData: true)] },
        skies: { skies }, sendsSentences: { _ in sendsSentences }))
  }

  /// Each line written and to whom (a line for several clients once for each).
  static func sends(_ actions: [GpsdFace.Action]) -> [(to: SessionID, line: String)] {
    actions.flatMap { action -> [(to: SessionID, line: String)] in
      switch action {
      case .send(let id, let l): return [(id, l)]
      case .sendAll(let ids, let l): return ids.map { ($0, l) }
      default: return []
      }
    }
  }

  static func lines(_ actions: [GpsdFace.Action]) -> [String] { sends(actions).map(\.line) }

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
    // No HDOP: locd's own accuracy, 10 m at 68 % of a circular normal error: σ = 10 / 1.5096 =
    // 6.624 m; 95 % = 2.4477 σ = 16.21 m. VDOP 2: gpsd's rule, VDOP × 23 m = 46 m.
    #expect(abs((tpv["eph"]?.number ?? 0) - 16.214) < 0.002)
    #expect(abs((tpv["epv"]?.number ?? 0) - 46) < 0.001)
  }

  @Test func aCycleNobodyWatchedCountsForTheNextTPVAsOneThatWasSent() throws {
    // A cycle with no JSON watcher is not made into a TPV, but gpsd keeps every cycle for the
    // next one's climb (from two ellipsoid altitudes): 100 m then 101 m MSL a second apart,
    // each plus the 40 m geoid separation, is 1 m/s whether or not the first was sent.
    var second = Self.fix
    second.time = Self.t0.adding(.seconds(1))
    second.altitudeMSL = Meters(101)
    var watched = Self.face()
    _ = watched.connected(Self.s1, peer: Self.peer, access: .admin, standing: .plain, unit: .none)
    _ = watched.received(Self.s1, line: "?WATCH={\"enable\":true}", at: Self.t0)
    #expect(Self.lines(watched.cycle(Self.fix, device: Self.device)).count == 1)
    let sent = try #require(Self.lines(watched.cycle(second, device: Self.device)).first)
    var unwatched = Self.face()
    #expect(unwatched.cycle(Self.fix, device: Self.device).isEmpty)
    _ = unwatched.connected(Self.s1, peer: Self.peer, access: .admin, standing: .plain, unit: .none)
    _ = unwatched.received(Self.s1, line: "?WATCH={\"enable\":true}", at: Self.t0)
    let late = try #require(Self.lines(unwatched.cycle(second, device: Self.device)).first)
    #expect(late == sent)
    #expect(try JSON.parse(String(late.dropLast(1)))["climb"] == .number(1))
    #expect(unwatched.counters.tpvReports == 1)
  }

  @Test func withDOPsEphAndEpvAreGpsdsFigures() {
    // gpsd 3.22's own regression file for this receiver (test/daemon/bu353s4.log.chk, whose
    // first cycle is HDOP 1.1, VDOP 1.5): eph 20.900, epv 34.500; with DGPS (GGA quality 2)
    // gpsd takes 4.75 m and 5.75 m (gpsd_error_model): 5.225 and 8.625.
    var fix = Self.fix
    fix.hdop = 1.1
    fix.vdop = 1.5
    #expect(abs((GpsdErrorEstimate.eph(fix) ?? 0) - 20.9) < 1e-9)
    #expect(abs((GpsdErrorEstimate.epv(fix) ?? 0) - 34.5) < 1e-9)
    fix.quality = .dgps
    #expect(abs((GpsdErrorEstimate.eph(fix) ?? 0) - 5.225) < 1e-9)
    #expect(abs((GpsdErrorEstimate.epv(fix) ?? 0) - 8.625) < 1e-9)
    fix.mode = .twoD
    #expect(GpsdErrorEstimate.epv(fix) == nil, "no epv in 2D, as gpsd")
    fix.mode = .noFix
    #expect(GpsdErrorEstimate.eph(fix) == nil)
  }

  @Test func whetherAnyoneReadsSentencesFollowsTheClients() {
    // Kept, not worked out per sentence: it must follow every client that comes, changes its
    // watch, is given full accuracy by the engine, or leaves.
    var f = Self.face(sendsSentences: true)
    let plain = SessionID(1)
    let app = SessionID(2)
    _ = f.connected(plain, peer: Self.peer, access: .read, standing: .plain, unit: .none)
    #expect(!f.wantsSentences, "connected, not watching")
    _ = f.received(plain, line: "?WATCH={\"enable\":true,\"json\":true}", at: Self.t0)
    #expect(!f.wantsSentences, "watching JSON only")
    _ = f.received(plain, line: "?WATCH={\"nmea\":true}", at: Self.t0)
    #expect(f.wantsSentences)
    _ = f.received(plain, line: "?WATCH={\"enable\":false}", at: Self.t0)
    #expect(!f.wantsSentences, "the watch stopped")
    _ = f.connected(app, peer: Self.peer, access: .none, standing: .app(AppID("gpspipe")!), unit: .none)
    _ = f.received(app, line: "?WATCH={\"enable\":true,\"raw\":1}", at: Self.t0)
    #expect(!f.wantsSentences, "an app without a decision gets no sentences")
    let p = Position(
      coordinate: Self.fix.coordinate!, accuracy: Meters(10), time: Self.t0, receivedAt: Self.t0,
      source: Self.device)
    _ = f.located(ResolvedPosition(tier: .fix, position: p), fix: Self.fix, to: [app])
    #expect(f.wantsSentences, "the engine gave the app a full fix")
    _ = f.disconnected(app)
    #expect(!f.wantsSentences, "it left")
  }

  static let sentence = "$GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000*7D\r\n"

  @Test func theReceiversSentencesGoOnlyToWatchersOfFullAccuracy() {
    var f = Self.face(sendsSentences: true)
    let plain = SessionID(1)
    let json = SessionID(2)
    let undecided = SessionID(3)
    let reduced = SessionID(4)
    let granted = SessionID(5)
    _ = f.connected(plain, peer: Self.peer, access: .read, standing: .plain, unit: .none)
    _ = f.connected(json, peer: Self.peer, access: .read, standing: .plain, unit: .none)
    for id in [undecided, reduced, granted] {
      _ = f.connected(id, peer: Self.peer, access: .none, standing: .app(AppID("gpspipe")!), unit: .none)
    }
    for id in [plain, undecided, reduced, granted] {
      _ = f.received(id, line: "?WATCH={\"enable\":true,\"raw\":1}", at: Self.t0)
    }
    _ = f.received(json, line: "?WATCH={\"enable\":true,\"json\":true}", at: Self.t0)
    let p = Position(
      coordinate: Self.fix.coordinate!, accuracy: Meters(10), time: Self.t0, receivedAt: Self.t0,
      source: Self.device)
    // What the engine's gate gave each app: a full fix, or the reduced cell.
    _ = f.located(ResolvedPosition(tier: .fix, position: p), fix: Self.fix, to: [granted])
    let cell = f.located(ResolvedPosition(tier: .fix, position: p), fix: nil, to: [reduced])
    // A reduced grant gets sentences rebuilt from its cell, never the receiver's.
    #expect(Self.lines(cell).contains { $0.contains("GGA") })
    let a = f.relayed(Self.sentence, device: Self.device)
    let to = Self.sends(a).filter { $0.line == Self.sentence }.map(\.to)
    #expect(Set(to) == [plain, granted])
    #expect(f.counters.relayedSentences == 2)
    // Watching another device: nothing of this one.
    _ = f.received(plain, line: "?WATCH={\"device\":\"gpsd://other:2947\"}", at: Self.t0)
    #expect(Self.lines(f.relayed(Self.sentence, device: Self.device)).count == 1)
  }

  @Test func aSourceWithItsOwnSentencesGetsNoneRebuilt() {
    var f = Self.face(sendsSentences: true)
    _ = f.connected(Self.s1, peer: Self.peer, access: .read, standing: .plain, unit: .none)
    _ = f.received(Self.s1, line: "?WATCH={\"enable\":true,\"json\":true,\"nmea\":true}", at: Self.t0)
    let p = Position(
      coordinate: Self.fix.coordinate!, accuracy: Meters(10), time: Self.t0, receivedAt: Self.t0,
      source: Self.device)
    let l = Self.lines(f.located(ResolvedPosition(tier: .fix, position: p), fix: Self.fix, to: [Self.s1]))
    #expect(l.count == 1 && l[0].hasPrefix("{\"class\":\"TPV\""), "\(l)")
    var rebuilt = Self.face(sendsSentences: false)
    _ = rebuilt.connected(Self.s1, peer: Self.peer, access: .read, standing: .plain, unit: .none)
    _ = rebuilt.received(Self.s1, line: "?WATCH={\"enable\":true,\"nmea\":true}", at: Self.t0)
    let r = Self.lines(
      rebuilt.located(ResolvedPosition(tier: .fix, position: p), fix: Self.fix, to: [Self.s1]))
    #expect(r.count == 1 && r[0].hasPrefix("$GPRMC"), "a manual or network source: rebuilt, \(r)")
  }

  @Test func aSkyGoesOutBeforeAnyFixToWatchersOfFullAccuracy() throws {
    let sky = SourceSky(
      source: Self.device,
      sky: Sky(satellites: [
        Satellite(constellation: .gps, svid: 5, prn: 5, elevation: 40, azimuth: 120, used: false)
      ]),
      time: Self.t0)
    var f = Self.face(skies: [sky])
    let app = SessionID(2)
    _ = f.connected(Self.s1, peer: Self.peer, access: .read, standing: .plain, unit: .none)
    _ = f.connected(app, peer: Self.peer, access: .none, standing: .app(AppID("cgps")!), unit: .none)
    for id in [Self.s1, app] { _ = f.received(id, line: "?WATCH={\"enable\":true}", at: Self.t0) }
    let a = Self.sends(f.skyDecoded())
    #expect(a.count == 1, "the app without a decision gets none: \(a)")
    let (to, line) = try #require(a.first)
    #expect(to == Self.s1 && line.hasPrefix("{\"class\":\"SKY\"") && line.contains("\"PRN\":5"))
    #expect(f.skyDecoded().isEmpty, "the same sky is not sent twice")
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

  /// Issue 40, finding 6: an app told it waits for a decision, then granted, then reset
  /// (`locctl apps reset`) went silent: the reset's report said the same words as the first
  /// refusal, which the face tells only once. A grant makes the next refusal news, and a
  /// grant taken back says that the reports stop.
  @Test func anAppWhoseGrantIsTakenBackIsToldWhyEachTime() throws {
    var f = Self.face()
    let app = AppID("gpspipe")!
    _ = f.connected(Self.s1, peer: Self.peer, access: .none, standing: .app(app), unit: .none)
    _ = f.received(Self.s1, line: "?WATCH={\"enable\":true,\"json\":true};", at: Self.t0)
    let identity = AppIdentity(key: AppKey(uid: Self.peer.uid, app: app), verification: .claimed, unit: nil)
    func report(_ a: AppAuthorization) -> AppStatusReport {
      AppStatusReport(identity: identity, authorization: a, prompt: .noAgent, inUse: true, decidedBy: nil)
    }
    let waits = Self.lines(f.authorized(Self.s1, report(.notDetermined)))
    #expect(waits.count == 1 && waits[0].contains("waits for a decision"), "\(waits)")
    let granted = AppAuthorization(.whenInUse, accuracy: .full)
    #expect(f.authorized(Self.s1, report(granted)).isEmpty, "a grant is told nothing")
    let p = Position(
      coordinate: Self.fix.coordinate!, accuracy: Meters(10), time: Self.t0, receivedAt: Self.t0,
      source: Self.device)
    let tpv = Self.lines(f.located(ResolvedPosition(tier: .fix, position: p), fix: Self.fix, to: [Self.s1]))
    #expect(tpv.contains { $0.contains("\"lat\":") })
    // Reset: the same decision as before the grant, and now an ERROR again.
    let reset = Self.lines(f.authorized(Self.s1, report(.notDetermined)))
    let error = try #require(reset.first, "the reset is told")
    #expect(error.hasPrefix("{\"class\":\"ERROR\""))
    #expect(error.contains("withdrawn") && error.contains("its reports stop"), "\(error)")
    // Granted again, then denied: told again, in its own words.
    _ = f.authorized(Self.s1, report(granted))
    _ = f.located(ResolvedPosition(tier: .fix, position: p), fix: Self.fix, to: [Self.s1])
    let denied = Self.lines(f.authorized(Self.s1, report(AppAuthorization(.denied))))
    #expect(denied.count == 1 && denied[0].contains("may no longer have the location: denied"), "\(denied)")
    #expect(f.counters.refusalsTold == 3)
  }
}
