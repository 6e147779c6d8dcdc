import Testing

@testable import LocCore

/// Beacons for app sessions (docs/BEACONS.md, "Access"; decision 0029): the app's
/// authorization admits its requests, the apps gate decides each list and region change,
/// and a decision that takes the location away ends the requests. One beacon at −60 dBm
/// (near), heard every half second, so that every ranging tick has it.
@Suite struct BeaconAppsEngineTests {
  static let t0 = at("2026-03-01T10:00:00Z")
  static let admin = SessionID(50)
  static let app = SessionID(1)
  static let id = "org.example.Shop"
  static let all = BeaconEngineTests.all

  /// The app granted `grant` (nil: not determined) by the administrator, in the
  /// foreground or not.
  static func started(_ grant: AppChange? = .grant(.whenInUse, .full), foreground: Bool = true)
    -> EngineHarness
  {
    var h = EngineHarness(at: t0, watching: [.acquisition])
    h.handle(.appsLoaded(nil, problem: nil))
    h.plain(admin, uid: 0, access: .admin)
    h.app(app, id)
    if let grant { h.send(admin, .changeApp(AppID(id)!, uid: 1000, grant)) }
    h.send(app, .setActivity(foreground ? .foreground : .background))
    return h
  }

  /// The beacon heard every half second for `seconds` from now.
  static func hear(_ h: inout EngineHarness, for seconds: Double) {
    let end = h.now.adding(seconds: seconds)
    while h.now < end {
      h.advance(to: h.now.adding(seconds: 0.5))
      h.handle(.beaconHeard(BeaconEngineTests().sighting(rssi: -60), source: h.source))
    }
  }

  /// The ranging lists `session` got, with when.
  static func lists(_ h: EngineHarness, _ session: SessionID) -> [(at: Instant, beacons: [RangedBeacon])] {
    h.log.compactMap { entry in
      if case .push(let s, .beaconsRanged(_, let list), _) = entry.effect, s.contains(session) {
        return (entry.at, list)
      }
      return nil
    }
  }

  /// The beacon region changes `session` got.
  static func changes(_ h: EngineHarness, _ session: SessionID) -> [BeaconRegionEvent] {
    h.pushed(to: session).compactMap {
      if case .beaconRegion(_, let event, _) = $0 { return event } else { return nil }
    }
  }

  static func code(_ r: Result<Response, RequestError>?) -> ErrorCode? {
    if case .failure(let e)? = r { return e.code } else { return nil }
  }

  static func counter(_ h: EngineHarness, _ name: String) -> Int? {
    h.engine.status(at: h.now).beacons?.counters.first { $0.name == name }?.value
  }

  static let requests = [Request.rangeBeacons(all), .monitorBeacons(all, exitAfter: .seconds(5))]

  @Test func anAppNotDeterminedOrDeniedIsRefusedAndNothingScans() {
    for grant in [nil, AppChange.deny] {
      var h = Self.started(grant)
      for request in Self.requests {
        let effects = h.handle(.requestReceived(Self.app, .number(1), request))
        #expect(Self.code(h.reply(to: effects)) == .notAuthorized, "\(String(describing: grant)) \(request)")
        #expect(!effects.contains(.beaconScanning(active: true)))
      }
      #expect(Self.counter(h, "refusedApps") == 2)
    }
  }

  @Test func reducedAccuracyIsRefusedAsForRegions() {
    var h = Self.started(.grant(.always, .reduced))
    for request in Self.requests {
      let r = h.send(Self.app, request)
      #expect(Self.code(r) == .preciseLocationRequired, "\(request)")
    }
  }

  @Test func whenInUseRangesInUseOnly() throws {
    var h = Self.started(.grant(.whenInUse, .full))
    #expect(h.send(Self.app, .rangeBeacons(Self.all)) == .success(.beaconRanging(Self.all)))
    Self.hear(&h, for: 3)
    let inUse = Self.lists(h, Self.app)
    #expect(inUse.count == 3, "a list each second while in use")
    #expect(inUse.allSatisfy { $0.beacons.first?.proximity == .near })
    // Background at 3 s: in use for InUseGrace (10 s), so the ticks at 4…12 s are
    // delivered; from 13 s on none is, and each is counted.
    h.send(Self.app, .setActivity(.background))
    Self.hear(&h, for: 10)
    let graced = Self.lists(h, Self.app).count
    #expect(graced == 3 + 9)
    Self.hear(&h, for: 10)
    #expect(Self.lists(h, Self.app).count == graced)
    #expect(Self.counter(h, "notDeliveredToApps") == 11)
    #expect(h.engine.beacons.scanningNeeded, "the request stays; only its delivery stops")
    h.send(Self.app, .setActivity(.foreground))
    Self.hear(&h, for: 2)
    #expect(Self.lists(h, Self.app).count == graced + 2)
  }

  @Test func alwaysRangesAndMonitorsOutOfUse() {
    var h = Self.started(.grant(.always, .full), foreground: false)
    h.advance(to: h.now.adding(seconds: 20))
    h.send(Self.app, .rangeBeacons(Self.all))
    h.send(Self.app, .monitorBeacons(Self.all, exitAfter: .seconds(5)))
    Self.hear(&h, for: 3)
    h.advance(to: h.now.adding(seconds: 10))
    #expect(Self.lists(h, Self.app).count >= 3)
    #expect(Self.changes(h, Self.app) == [.entered, .exited])
    #expect(Self.counter(h, "notDeliveredToApps") == 0)
  }

  @Test func whenInUseGetsRegionChangesInUseOnly() {
    var h = Self.started(.grant(.whenInUse, .full))
    h.send(Self.app, .monitorBeacons(Self.all, exitAfter: .seconds(5)))
    Self.hear(&h, for: 1)
    #expect(Self.changes(h, Self.app) == [.entered])
    // Heard through InUseGrace (10 s), then silent: the exit comes out of use, and so does
    // the entry after it; neither is delivered.
    h.send(Self.app, .setActivity(.background))
    Self.hear(&h, for: 12)
    h.advance(to: h.now.adding(seconds: 20))
    Self.hear(&h, for: 1)
    #expect(Self.changes(h, Self.app) == [.entered])
    #expect(Self.counter(h, "notDeliveredToApps") == 2)
    h.send(Self.app, .setActivity(.foreground))
    h.advance(to: h.now.adding(seconds: 10))
    #expect(Self.changes(h, Self.app) == [.entered, .exited])
  }

  /// Provisional always out of use: in use only, as when-in-use; the change that needs
  /// always makes locd ask the person to upgrade (the change itself is not held).
  @Test func provisionalGetsRegionChangesInUseOnlyAndTheUpgradeIsAsked() throws {
    var (h, agent) = try AppsFlowTests.provisional()
    let app = AppsFlowTests.app
    #expect(h.send(app, .monitorBeacons(Self.all, exitAfter: .seconds(5))) != nil)
    Self.hear(&h, for: 1)
    #expect(Self.changes(h, app) == [.entered])
    let asked = agent.prompts(h).count
    // The exit 5 s after the last sighting comes within InUseGrace (10 s): delivered.
    AppsFlowTests.background(&h)
    #expect(Self.changes(h, app) == [.entered, .exited])
    #expect(agent.prompts(h).count == asked)
    // Out of use: the entry and exit are not delivered, and the upgrade is asked once.
    Self.hear(&h, for: 1)
    h.advance(to: h.now.adding(seconds: 10))
    #expect(Self.changes(h, app) == [.entered, .exited])
    #expect(Self.counter(h, "notDeliveredToApps") == 2)
    let upgrade = try #require(agent.prompts(h).last)
    #expect(agent.prompts(h).count == asked + 1 && upgrade.kind == .upgrade)
    try agent.answer(&h, .always)
    Self.hear(&h, for: 1)
    #expect(Self.changes(h, app) == [.entered, .exited, .entered], "with always, out of use too")
  }

  @Test func denyOrResetEndsTheAppsRequestsAndScanning() {
    for change in [AppChange.deny, .reset] {
      var h = Self.started(.grant(.whenInUse, .full))
      h.send(Self.app, .rangeBeacons(Self.all))
      h.send(Self.app, .monitorBeacons(Self.all, exitAfter: nil))
      Self.hear(&h, for: 2)
      let before = Self.lists(h, Self.app).count
      let effects = h.handle(
        .requestReceived(Self.admin, .number(9), .changeApp(AppID(Self.id)!, uid: 1000, change)))
      #expect(effects.contains(.beaconScanning(active: false)), "\(change)")
      #expect(h.engine.beacons.requests(of: Self.app).isEmpty)
      Self.hear(&h, for: 3)
      #expect(Self.lists(h, Self.app).count == before)
      #expect(Self.code(h.send(Self.app, .stopRangingBeacons(Self.all))) == .notFound)
    }
  }

  /// A policy file read again that restricts the app, or caps it to reduced accuracy.
  @Test(arguments: [AppRule.Preset.restricted, .whenInUse])
  func aPolicyThatTakesTheLocationAwayEndsTheRequests(preset: AppRule.Preset) {
    var h = Self.started(.grant(.always, .full))
    h.send(Self.app, .monitorBeacons(Self.all, exitAfter: nil))
    #expect(h.engine.beacons.scanningNeeded)
    var rule = AppRule()
    rule.app = AppID(Self.id)
    rule.preset = preset
    if preset == .whenInUse { rule.maxAccuracy = .reduced }
    let effects = h.handle(
      .appPolicyLoaded(
        AppPolicy([.init(rule: rule, uids: nil, file: "/etc/locd/apps.d/shop.conf")]), problems: []))
    #expect(effects.contains(.beaconScanning(active: false)), "\(preset)")
    #expect(h.engine.beacons.requests(of: Self.app).isEmpty)
  }

  @Test func allowOnceEndingEndsTheRequests() throws {
    var h = AppsDeliveryTests.started()
    var agent = AgentFlow(&h)
    let app = AppsDeliveryTests.app
    h.send(app, .setActivity(.foreground))
    h.send(app, .requestAuthorization(.whenInUse, purpose: "find the shelf"))
    try agent.answer(&h, .allowOnce)
    #expect(h.send(app, .rangeBeacons(Self.all)) == .success(.beaconRanging(Self.all)))
    Self.hear(&h, for: 2)
    #expect(Self.lists(h, app).count == 2)
    h.send(app, .setActivity(.background))
    Self.hear(&h, for: 12)  // the grace window ends, and with it Allow Once
    #expect(h.engine.beacons.requests(of: app).isEmpty)
    #expect(!h.engine.beacons.scanningNeeded)
  }

  /// Plain sessions keep the read-access rule; an app that stops its ranging ends scanning.
  @Test func plainSessionsAreUnchangedAndAppsStop() {
    var h = Self.started()
    let reader = SessionID(7)
    h.plain(reader, access: .read)
    #expect(h.send(reader, .rangeBeacons(Self.all)) == .success(.beaconRanging(Self.all)))
    h.send(Self.app, .rangeBeacons(Self.all))
    Self.hear(&h, for: 1)
    #expect(Self.lists(h, reader).count == 1 && Self.lists(h, Self.app).count == 1)
    h.send(reader, .stopRangingBeacons(Self.all))
    let effects = h.handle(.requestReceived(Self.app, .number(3), .stopRangingBeacons(Self.all)))
    #expect(h.reply(to: effects) == .success(.done))
    #expect(effects.contains(.beaconScanning(active: false)))
  }
}
