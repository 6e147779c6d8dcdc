import Testing

@testable import LocCore

/// Regions and visits in the engine: requests of app sessions, fixes through the regions
/// machine, delivery by the apps rules (docs/REGIONS.md, "In the daemon"). Geometry: a
/// 500 m region in Oslo; fixes at its centre (inside by 485 m with the 15 m margin of a 5 m
/// accuracy) or 1,000 m north of it (outside by 485 m), so the rule decides at every fix and
/// a crossing is confirmed by the fix 20 s after the first one on the new side.
@Suite struct RegionEngineTests {
  static let t0 = at("2026-06-01T10:00:00Z")
  static let centre = Coordinate(lat: 59.9139, lon: 10.7522)!
  /// 1,000 m north of the centre (a degree of latitude is 111,195 m on the mean sphere).
  static let north = Coordinate(lat: 59.9139 + 1000 / 111_195.0, lon: 10.7522)!
  static let admin = SessionID(50)
  static let app = SessionID(1)
  static let id = "org.example.Fences"
  static let key = AppKey(uid: 1000, app: AppID(id)!)

  static func region(_ name: String = "home", radius: Double = 500, dwell: Duration? = nil) -> CircularRegion
  {
    try! CircularRegion(id: RegionID(name), centre: centre, radius: Meters(radius), dwell: dwell)
  }

  /// An engine with apps.json loaded, the admin, and the app granted `grant` (nil: none),
  /// in the foreground or not.
  static func started(
    _ grant: AppChange? = .grant(.whenInUse, .full), foreground: Bool = true,
    config: DaemonConfig = DaemonConfig(), store: AppStore? = nil
  ) -> EngineHarness {
    // The watcher takes no location: a location subscriber would hold acquisition open.
    var h = EngineHarness(config: config, at: t0, watching: [.acquisition])
    h.handle(.appsLoaded(store, problem: nil))
    h.plain(admin, uid: 0, access: .admin)
    h.app(app, id)
    if let grant { h.send(admin, .changeApp(AppID(id)!, uid: 1000, grant)) }
    h.send(app, .setActivity(foreground ? .foreground : .background))
    return h
  }

  /// The region events `session` got.
  static func events(_ h: EngineHarness, _ session: SessionID) -> [RegionNotice] {
    h.pushed(to: session).compactMap { if case .region(let n) = $0 { return n } else { return nil } }
  }

  /// Fixes at `c` every 10 s from `from` to `to` seconds after t0.
  static func fixes(_ h: inout EngineHarness, _ c: Coordinate, _ from: Int, _ to: Int) {
    for s in stride(from: from, through: to, by: 10) { h.fix(c, at: t0.adding(seconds: Double(s))) }
  }

  @Test func entryAndExitAtTheConfirmingFixes() throws {
    var h = Self.started()
    let reply = h.send(Self.app, .registerRegion(Self.region()))
    guard case .success(.regions(let list))? = reply else {
      Issue.record("\(String(describing: reply))"); return
    }
    #expect(list.map(\.state) == [.unknown])
    Self.fixes(&h, Self.north, 10, 30)  // first determination: outside, no event
    Self.fixes(&h, Self.centre, 40, 90)  // inside from 40 s, confirmed at 60 s
    Self.fixes(&h, Self.north, 100, 130)  // outside from 100 s, confirmed at 120 s
    let got = Self.events(h, Self.app)
    #expect(got.map(\.event) == [.enter, .exit])
    #expect(got.map(\.at) == [Self.t0.adding(seconds: 60), Self.t0.adding(seconds: 120)])
    #expect(got.map(\.since) == [Self.t0.adding(seconds: 40), Self.t0.adding(seconds: 100)])
    guard case .success(.regions(let state))? = h.send(Self.app, .regionState(try RegionID("home"))) else {
      Issue.record("no state")
      return
    }
    #expect(state.map(\.state) == [.outside])
  }

  /// The dwell comes from the engine's `regions` timer, with no fix at that moment (the
  /// receiver may sleep): the stay began at the first fix inside (10 s), the dwell is 60 s.
  @Test func dwellFiresFromTheTimerWithoutAFix() {
    var h = Self.started(.grant(.always, .full))
    h.send(Self.app, .registerRegion(Self.region("home", dwell: .seconds(60))))
    h.fix(Self.centre, at: Self.t0.adding(seconds: 10))
    #expect(h.armed[.regions] == Self.t0.adding(seconds: 70))
    h.advance(to: Self.t0.adding(seconds: 100))
    let got = Self.events(h, Self.app)
    #expect(got.map(\.event) == [.enter, .dwell])
    #expect(got.last?.at == Self.t0.adding(seconds: 70) && got.last?.since == Self.t0.adding(seconds: 10))
  }

  /// With no fix coming, the hint (no position: now) does not keep the receiver on: after a
  /// timed-out attempt the retry's back-off decides, and no attempt is started for regions.
  @Test func noFixComingLeavesTheRetryBackOffInCharge() {
    var h = Self.started()
    h.send(Self.app, .registerRegion(Self.region()))
    h.advance(to: Self.t0.adding(seconds: 900))
    let starts = h.log.compactMap { e -> Acquisition.Transition? in
      if case .push(_, .acquisition(let c), _) = e.effect, c.transition.from == .idle,
        c.transition.to == .acquiring
      {
        return c.transition
      }
      return nil
    }
    #expect(!starts.isEmpty && starts.allSatisfy { $0.reason == .triggered(.refresh) }, "\(starts)")
    // Retries after 60 s, 120 s, 240 s, 480 s of back-off (each attempt 60 s): four in 15 min.
    #expect(starts.count <= 4)
  }

  @Test func whenInUseInTheBackgroundGetsNoEventButTheRightState() throws {
    var h = Self.started()
    h.send(Self.app, .registerRegion(Self.region()))
    Self.fixes(&h, Self.centre, 10, 30)  // first determination inside: an entry, in use
    h.send(Self.app, .setActivity(.background))
    Self.fixes(&h, Self.north, 60, 100)  // after the 10 s grace: the exit is not delivered
    #expect(Self.events(h, Self.app).map(\.event) == [.enter])
    h.send(Self.app, .setActivity(.foreground))
    guard case .success(.regions(let state))? = h.send(Self.app, .regionState(nil)) else {
      Issue.record("no state")
      return
    }
    #expect(state.map(\.state) == [.outside])
    #expect(h.engine.status(at: h.now).regions?.counters.first { $0.name == "notDelivered" }?.value == 1)
  }

  @Test func alwaysAppNotConnectedIsQueuedAndItsUnitStarted() throws {
    var h = Self.started(.grant(.always, .full))
    // Launch units are kept only for an app the kernel vouches for: its systemd app unit.
    let verified = SessionID(40)
    h.app(verified, Self.id, unit: .app(AppID(Self.id)!, unit: "app-gnome-\(Self.id)@7.service"))
    let r1 = h.send(verified, .setLaunchUnit("app-\(Self.id).service"))
    _ = try #require(r1).get()
    h.handle(.sessionClosed(verified))
    h.send(Self.app, .registerRegion(Self.region()))
    Self.fixes(&h, Self.centre, 10, 30)
    h.handle(.sessionClosed(Self.app))
    Self.fixes(&h, Self.north, 60, 100)  // exit confirmed at 80 s
    let launches = h.log.compactMap {
      if case .launchApp(let u, let k) = $0.effect { return (u, k) } else { return nil }
    }
    #expect(launches.count == 1)
    #expect(launches.first?.0 == "app-\(Self.id).service" && launches.first?.1 == Self.key)
    // Back within MaxEventAge: subscribing to `region` delivers the exit that waited.
    let back = SessionID(2)
    h.app(back, Self.id)
    h.send(back, .subscribe([.region]))
    #expect(Self.events(h, back).map(\.event) == [.exit])
  }

  /// set-launch-unit (issue 28): a claimed id is anyone's word and locd starts the unit as
  /// root, so only an app the kernel vouches for names one, and only its own service:
  /// `app-ID.service` or with the launcher of the unit it runs in, never an instance or a
  /// template, nor another launcher's.
  @Test func onlyAVerifiedAppNamesALaunchUnitAndOnlyItsOwnService() throws {
    var h = Self.started(.grant(.always, .full))
    func code(_ session: SessionID, _ unit: String?) -> ErrorCode? {
      guard case .failure(let e)? = h.send(session, .setLaunchUnit(unit)) else { return nil }
      return e.code
    }
    #expect(code(Self.app, "app-\(Self.id).service") == .notAuthorized, "a claimed id names no unit")
    #expect(code(Self.app, nil) == .notAuthorized, "nor clears one")
    let verified = SessionID(41)
    h.app(verified, Self.id, unit: .app(AppID(Self.id)!, unit: "app-gnome-\(Self.id)@7.service"))
    for refused in [
      "app-ssh-\(Self.id).service",  // another launcher
      "app-\(Self.id)@ssh.service",  // an instance
      "app-gnome-\(Self.id)@.service",  // a template
      "app-org.example.Other.service", "sshd.service", "app-\(Self.id).scope",
      "app-\(Self.id)\u{7F}.service",
    ] {
      #expect(code(verified, refused) == .invalidParams, "\(refused)")
    }
    #expect(code(verified, "app-\(Self.id).service") == nil)
    #expect(code(verified, "app-gnome-\(Self.id).service") == nil)
    #expect(code(verified, nil) == nil)
    let refusedCount = h.engine.status(at: h.now).apps?.counters.first { $0.name == "launchUnitRefused" }?
      .value
    #expect(refusedCount == 9)
    // A Flatpak app: its own service, with or without the launcher flatpak.
    let flatpak = SessionID(42)
    h.app(flatpak, nil, unit: .flatpak(AppID(Self.id)!, unit: "app-flatpak-\(Self.id)-99.scope"))
    #expect(code(flatpak, "app-flatpak-\(Self.id).service") == nil)
    #expect(code(flatpak, "app-gnome-\(Self.id).service") == .invalidParams)
  }

  @Test func alwaysAppBackAfterMaxEventAgeGetsNothingAndTheDropIsCounted() {
    var config = DaemonConfig()
    config.apps.maxEventAge = .seconds(120)
    var h = Self.started(.grant(.always, .full), config: config)
    h.send(Self.app, .registerRegion(Self.region()))
    Self.fixes(&h, Self.centre, 10, 30)
    h.handle(.sessionClosed(Self.app))
    Self.fixes(&h, Self.north, 60, 100)
    h.advance(to: Self.t0.adding(seconds: 400))
    let back = SessionID(2)
    h.app(back, Self.id)
    h.send(back, .subscribe([.region]))
    #expect(Self.events(h, back).isEmpty)
    #expect(h.appsCounter("staleDropped") == 1)
  }

  @Test func provisionalAlwaysOutOfUseHoldsAndAsksForTheUpgrade() {
    var h = Self.started(nil, foreground: false)
    let agent = SessionID(9)
    h.plain(agent, uid: 1000)
    h.send(agent, .registerAgent)
    h.send(Self.app, .setActivity(.foreground))
    h.send(Self.app, .requestAuthorization(.always, purpose: "fences"))
    let ask = h.prompts(agent).last!
    h.send(agent, .answerPrompt(ask.id, .allowWhileUsing, precise: true))
    h.send(Self.app, .registerRegion(Self.region()))
    h.send(Self.app, .setActivity(.background))
    Self.fixes(&h, Self.centre, 60, 80)  // an entry while not in use
    #expect(Self.events(h, Self.app).isEmpty)
    #expect(h.prompts(agent).last?.kind == .upgrade)
  }

  @Test func reducedAccuracyIsRefused() {
    var h = Self.started(.grant(.always, .reduced))
    let r = h.send(Self.app, .registerRegion(Self.region()))
    guard case .failure(let e)? = r else { Issue.record("\(String(describing: r))"); return }
    #expect(e.code == .preciseLocationRequired)
    guard case .failure(let v)? = h.send(Self.app, .monitorVisits(true)) else {
      Issue.record("visits"); return
    }
    #expect(v.code == .preciseLocationRequired)
  }

  @Test func limitsAndDuplicatesAreRefusedWithTheirCodes() throws {
    var config = DaemonConfig()
    config.regions.maxRegionsPerApp = 2
    var h = Self.started(config: config)
    let r2 = h.send(Self.app, .registerRegion(Self.region("a")))
    _ = try #require(r2).get()
    let duplicate = h.send(Self.app, .registerRegion(Self.region("a")))
    guard case .failure(let d)? = duplicate else { Issue.record("duplicate taken"); return }
    #expect(d.code == .alreadyExists)
    let r3 = h.send(Self.app, .registerRegion(Self.region("b")))
    _ = try #require(r3).get()
    guard case .failure(let over)? = h.send(Self.app, .registerRegion(Self.region("c"))) else {
      Issue.record("third taken")
      return
    }
    #expect(over.code == .tooManyRegions && over.message.contains("MaxRegionsPerApp=2"))
    guard case .failure(let gone)? = h.send(Self.app, .unregisterRegion(try RegionID("zzz"))) else {
      Issue.record("unknown id unregistered")
      return
    }
    #expect(gone.code == .notFound)
    // A plain session may not register regions.
    guard case .failure(let plain)? = h.send(Self.admin, .registerRegion(Self.region("p"))) else {
      Issue.record("plain session registered")
      return
    }
    #expect(plain.code == .permissionDenied)
  }

  @Test func registrationsAreStoredAndComeBackUnknown() throws {
    var h = Self.started(.grant(.always, .full))
    h.send(Self.app, .registerRegion(Self.region("home", dwell: .seconds(300))))
    Self.fixes(&h, Self.centre, 10, 30)
    let store = try #require(h.lastStore)
    let record = try #require(store.records.first { $0.key == Self.key })
    #expect(record.regions.map(\.id.value) == ["home"] && record.regions.first?.dwell == .seconds(300))
    #expect(record.registrations.contains(.region))
    // Through the file's bytes, into a new engine.
    let reread = try AppStore(decoding: store.encoded())
    var again = Self.started(nil, store: reread)
    guard case .success(.regions(let list))? = again.send(Self.app, .regionState(nil)) else {
      Issue.record("no regions after the restart")
      return
    }
    #expect(list.map(\.region) == [Self.region("home", dwell: .seconds(300))])
    #expect(list.map(\.state) == [.unknown])
  }

  @Test func theHintWakesAcquisitionWhenABoundaryCouldFirstBeReached() {
    var h = Self.started()
    h.send(Self.app, .registerRegion(Self.region()))
    // 20 km south of the region: the boundary is 19,500 m away; less the 5 m accuracy, at
    // 40 m/s it cannot be reached for 487 s.
    let far = Coordinate(lat: 59.9139 - 20_000 / 111_195.0, lon: 10.7522)!
    h.fix(far, at: Self.t0.adding(seconds: 1))
    h.fix(far, at: Self.t0.adding(seconds: 2))
    let due = h.armed[.regionsFix]
    let expected = Self.t0.adding(seconds: 2 + (19_500 - 5) / 40.0)
    #expect(due.map { abs($0.duration(since: expected).seconds) < 2 } == true, "\(String(describing: due))")
    let report = h.engine.status(at: h.now).regions
    #expect(report?.because?.contains("region boundary") == true, "\(String(describing: report))")
    h.advance(to: expected.adding(seconds: 2))
    #expect(h.engine.status(at: h.now).acquisition?.reasons.contains(.regions) == true)
  }

  @Test func resettingTheAppForgetsItsRegions() throws {
    var h = Self.started(.grant(.always, .full))
    h.send(Self.app, .registerRegion(Self.region("a")))
    h.send(Self.app, .monitorVisits(true))
    h.send(Self.admin, .changeApp(AppID(Self.id)!, uid: 1000, .reset))
    guard case .success(.regions(let list))? = h.send(Self.app, .regionState(nil)) else {
      Issue.record("no answer")
      return
    }
    #expect(list.isEmpty)
    // Nothing monitored and nothing counted: status has no regions member at all.
    #expect(h.engine.status(at: h.now).regions == nil)
  }

  /// Every registration and unregistration asks for the apps store to be written ahead of
  /// its reply, never later (issue 40: they were gathered for 5 s, and kill -9 after 50
  /// acknowledged registrations left 1). Grouping the writes of many registrations into one
  /// is the shell's (decision 0061): the engine only says the store changed.
  @Test func everyRegistrationIsWrittenAheadOfItsReply() throws {
    var h = Self.started(.grant(.always, .full))
    let requests: [Request] =
      try (0..<1000).map {
        .registerRegion(try CircularRegion(id: RegionID("r\($0)"), centre: Self.centre, radius: 50))
      }
      + [.unregisterRegion(try RegionID("r7"))]
    for request in requests {
      let effects = h.handle(.requestReceived(Self.app, .number(2), request))
      let write = try #require(effects.firstIndex { if case .persistApps = $0 { true } else { false } })
      let reply = try #require(
        effects.firstIndex { if case .reply(_, _, .success) = $0 { true } else { false } })
      #expect(write < reply, "\(request): \(effects)")
    }
    let record = try #require(h.lastStore?.records.first { $0.key == Self.key })
    #expect(record.regions.count == 999)
    #expect(!record.regions.contains { $0.id.value == "r7" })
  }
}

/// apps.json holds every region (the file is read only up to 32 MiB, AppStoreFile): the
/// largest store `MaxRegions=` allows, 100,000 regions with ids of the longest length, fits.
@Suite struct RegionStoreSizeTests {
  @Test func theLargestRegistrationFitsTheFileLimit() throws {
    var record = AppRecord(
      key: AppKey(uid: 1000, app: AppID("org.example.Fences")!), firstSeen: at("2026-06-01T00:00:00Z"))
    record.status = .always
    record.registrations = [.region]
    let long = String(repeating: "é", count: 60) + "12345678"  // 128 bytes of UTF-8
    record.regions = try (0..<100_000).map { n in
      try CircularRegion(
        id: RegionID(String(long.dropLast(String(n).count)) + String(n)),
        centre: Coordinate(lat: -89.123456789012 + Double(n) * 1e-6, lon: 179.123456789012)!,
        radius: 99_999.5,
        dwell: .seconds(86_399))
    }
    let bytes = AppStore([record]).encoded()
    #expect(bytes.count < 32 << 20, "\(bytes.count) bytes")
  }
}
