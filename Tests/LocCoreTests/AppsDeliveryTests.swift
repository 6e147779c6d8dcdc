import Testing

@testable import LocCore

/// The delivery table of docs/APPS.md, one test per cell: what an app with each
/// authorization gets of `location` events while in use and while not.
@Suite struct AppsDeliveryTests {
  static let t0 = at("2026-06-01T10:00:00Z")
  static let oslo = Coordinate(lat: 59.9139, lon: 10.7522)!
  static let admin = SessionID(50)
  static let app = SessionID(1)
  static let id = "org.example.Weather"
  static let key = AppKey(uid: 1000, app: AppID(id)!)

  /// An engine with apps.json loaded (empty), a root admin session and app session `app`.
  static func started(_ config: DaemonConfig = DaemonConfig()) -> EngineHarness {
    var h = EngineHarness(config: config, at: t0)
    h.handle(.appsLoaded(nil, problem: nil))
    h.plain(admin, uid: 0, access: .admin)
    h.app(app, id)
    return h
  }

  /// The app granted `change` by the administrator, running updates, in the foreground or not.
  static func granted(_ change: AppChange?, foreground: Bool) -> EngineHarness {
    var h = started()
    if let change { h.send(admin, .changeApp(AppID(id)!, uid: 1000, change)) }
    h.send(app, .startUpdates(AppSession.Updates()))
    h.send(app, .setActivity(foreground ? .foreground : .background))
    return h
  }

  /// Whether the app gets the location of a fix 30 s later.
  static func getsFix(_ h: inout EngineHarness) -> Bool {
    let before = h.locations(app).count
    h.fix(oslo, at: h.now.adding(seconds: 30))
    return h.locations(app).count > before
  }

  @Test func alwaysInUse() {
    var h = Self.granted(.grant(.always, .full), foreground: true)
    #expect(Self.getsFix(&h))
  }

  @Test func alwaysNotInUse() {
    var h = Self.granted(.grant(.always, .full), foreground: false)
    #expect(Self.getsFix(&h))
  }

  @Test func whenInUseInUse() {
    var h = Self.granted(.grant(.whenInUse, .full), foreground: true)
    #expect(Self.getsFix(&h))
  }

  @Test func whenInUseNotInUse() {
    var h = Self.granted(.grant(.whenInUse, .full), foreground: false)
    #expect(!Self.getsFix(&h))
  }

  @Test func notDeterminedGetsNothingEvenInUse() {
    var h = Self.granted(nil, foreground: true)
    #expect(!Self.getsFix(&h))
    let r = h.send(Self.app, .locate(timeout: .zero, accuracy: nil))
    guard case .failure(let e)? = r else { Issue.record("locate answered: \(String(describing: r))"); return }
    #expect(e.code == .notAuthorized)
  }

  @Test func deniedGetsNothingEvenInUse() {
    var h = Self.granted(.deny, foreground: true)
    #expect(!Self.getsFix(&h))
  }

  /// Provisional always acts as when-in-use for continuous updates: delivered in use only.
  @Test func provisionalInUseAndNot() throws {
    var h = Self.started()
    var agent = AgentFlow(&h)
    h.send(Self.app, .startUpdates(AppSession.Updates()))
    h.send(Self.app, .setActivity(.foreground))
    h.send(Self.app, .requestAuthorization(.always, purpose: "forecasts"))
    try agent.answer(&h, .allowWhileUsing)
    let status = try #require(h.engine.appReport(Self.app, at: h.now))
    #expect(status.authorization.status == .always && status.authorization.provisional)
    #expect(Self.getsFix(&h))
    h.send(Self.app, .setActivity(.background))
    h.advance(to: h.now.adding(seconds: 11))
    #expect(!Self.getsFix(&h))
  }

  /// Allow Once: in use, delivered; once not in use, nothing (and the grant is gone).
  @Test func onceInUseAndNot() throws {
    var h = Self.started()
    var agent = AgentFlow(&h)
    h.send(Self.app, .startUpdates(AppSession.Updates()))
    h.send(Self.app, .setActivity(.foreground))
    h.send(Self.app, .requestAuthorization(.whenInUse, purpose: "forecasts"))
    try agent.answer(&h, .allowOnce)
    #expect(Self.getsFix(&h))
    h.send(Self.app, .setActivity(.background))
    h.advance(to: h.now.adding(seconds: 11))
    #expect(!Self.getsFix(&h))
  }

  /// The grace window: 10 s after leaving the foreground the app is still in use; the
  /// apps timer is armed for the end of it.
  @Test func graceWindowKeepsTheAppInUseForTenSeconds() {
    var h = Self.granted(.grant(.whenInUse, .full), foreground: true)
    h.send(Self.app, .setActivity(.background))
    let left = h.now
    #expect(h.armed[.apps] == left.adding(seconds: 10))
    let before = h.locations(Self.app).count
    h.fix(Self.oslo, at: left.adding(seconds: 9))
    #expect(h.locations(Self.app).count == before + 1)
    h.fix(Self.oslo, at: left.adding(seconds: 10.5))
    #expect(h.locations(Self.app).count == before + 1)
  }

  /// Updates started in use with background updates allowed keep a when-in-use app in use
  /// while it stays connected (the counterpart of the blue bar).
  @Test func backgroundUpdatesStartedInUseKeepTheAppInUse() {
    var h = Self.started()
    h.send(Self.admin, .changeApp(AppID(Self.id)!, uid: 1000, .grant(.whenInUse, .full)))
    h.send(Self.app, .setActivity(.foreground))
    h.send(Self.app, .startUpdates(AppSession.Updates(background: true)))
    h.send(Self.app, .setActivity(.background))
    h.advance(to: h.now.adding(seconds: 60))
    #expect(Self.getsFix(&h))
    #expect(h.appsReport?.using.first?.background == true)
    // Stopped, then started again while not in use: background updates do not keep it in use.
    h.send(Self.app, .stopUpdates)
    h.send(Self.app, .startUpdates(AppSession.Updates(background: true)))
    #expect(!Self.getsFix(&h))
  }

  /// Plain sessions keep the access rules; an app session gets nothing through its uid's
  /// group (it may not read status, and its location comes through the gate).
  @Test func appSessionsDoNotReadThroughTheirGroup() {
    var h = EngineHarness(at: Self.t0)
    h.handle(.appsLoaded(nil, problem: nil))
    h.app(Self.app, Self.id, access: .read)
    guard case .failure(let e)? = h.send(Self.app, .status) else { Issue.record("status answered"); return }
    #expect(e.code == .permissionDenied)
    guard case .failure(let r)? = h.send(Self.app, .subscribe([.timerFired])) else {
      Issue.record("subscribed")
      return
    }
    #expect(r.code == .permissionDenied)
  }

  /// The index: with 1,000 when-in-use apps of which 200 are in the foreground, a fix is one
  /// push to exactly those 200 (and the admin watcher), nothing for the others.
  @Test func aFixGoesToTheAppsInUseOnly() {
    var config = DaemonConfig()
    config.apps.maxAppsPerUser = 2000
    var h = EngineHarness(config: config, at: Self.t0)
    h.handle(.appsLoaded(nil, problem: nil))
    h.plain(Self.admin, uid: 0, access: .admin)
    for i in 1...1000 {
      let id = SessionID(UInt64(100 + i))
      h.app(id, "org.example.App\(i)")
      h.send(Self.admin, .changeApp(AppID("org.example.App\(i)")!, uid: 1000, .grant(.whenInUse, .full)))
      h.send(id, .startUpdates(AppSession.Updates()))
      if i <= 200 { h.send(id, .setActivity(.foreground)) }
    }
    let effects = h.handle(
      .fixDecoded(
        Fix(time: h.now, coordinate: Self.oslo, mode: .threeD, quality: .gps, horizontalAccuracy: 5),
        source: h.source))
    let pushes = effects.compactMap {
      if case .push(let s, .location, _) = $0 { return s } else { return nil }
    }
    #expect(pushes.count == 1)
    let expected = [h.watcher] + (101...300).map { SessionID(UInt64($0)) }
    #expect(pushes.first.map { Set($0) } == Set(expected))
    #expect(pushes.first?.count == 201)
  }
}

/// An agent session of uid 1000 registered in the harness, answering its last prompt.
struct AgentFlow {
  static let id = SessionID(60)
  var answered = 0

  init(_ h: inout EngineHarness) {
    h.plain(AgentFlow.id)
    h.send(AgentFlow.id, .registerAgent)
  }

  /// The prompts put to the agent so far.
  func prompts(_ h: EngineHarness) -> [AppPrompt] { h.prompts(AgentFlow.id) }

  /// Answers the latest prompt.
  mutating func answer(_ h: inout EngineHarness, _ answer: AgentAnswer, precise: Bool = true) throws {
    let p = try #require(prompts(h).last, "a prompt was put to the agent")
    let r = h.send(AgentFlow.id, .answerPrompt(p.id, answer, precise: precise))
    guard case .success? = r else { throw HarnessFailure("answer refused: \(String(describing: r))") }
    answered += 1
  }
}

/// Starting updates while authorized and in use answers at once with the current position,
/// as subscribing to `location` does for a plain session: an app does not wait for the next
/// fix (with a manual location there may never be one).
@Suite struct AppsGreetingTests {
  @Test func startingUpdatesGivesTheCurrentPositionAtOnce() throws {
    var h = AppsDeliveryTests.started()
    h.send(AppsDeliveryTests.admin, .setLocation(AppsDeliveryTests.oslo, name: nil, accuracy: nil))
    h.send(
      AppsDeliveryTests.admin, .changeApp(AppID(AppsDeliveryTests.id)!, uid: 1000, .grant(.whenInUse, .full)))
    h.send(AppsDeliveryTests.app, .setActivity(.foreground))
    h.send(AppsDeliveryTests.app, .startUpdates(AppSession.Updates()))
    let got = try #require(h.locations(AppsDeliveryTests.app).last)
    #expect(got.tier == .manual && got.position?.coordinate == AppsDeliveryTests.oslo)
  }

  /// The position given at once is the one the distance filter measures from: a fix 10 m
  /// away after it is not delivered with a 25 m filter, one 30 m away is.
  @Test func theDistanceFilterMeasuresFromThePositionGivenAtOnce() throws {
    var h = AppsDeliveryTests.started()
    let oslo = AppsDeliveryTests.oslo
    h.fix(oslo, at: h.now.adding(seconds: 1))
    h.send(
      AppsDeliveryTests.admin, .changeApp(AppID(AppsDeliveryTests.id)!, uid: 1000, .grant(.whenInUse, .full)))
    h.send(AppsDeliveryTests.app, .setActivity(.foreground))
    h.send(AppsDeliveryTests.app, .startUpdates(AppSession.Updates(distanceFilter: Meters(25))))
    #expect(h.locations(AppsDeliveryTests.app).count == 1)
    h.fix(oslo.destination(distance: Meters(10), bearing: 0), at: h.now.adding(seconds: 1))
    #expect(h.locations(AppsDeliveryTests.app).count == 1, "10 m is inside the 25 m filter")
    h.fix(oslo.destination(distance: Meters(30), bearing: 0), at: h.now.adding(seconds: 1))
    let got = h.locations(AppsDeliveryTests.app)
    #expect(got.count == 2)
    let north = try #require(got.last?.position?.coordinate).distance(to: oslo).value
    #expect(abs(north - 30) < 0.5)
  }

  /// Updates started before the person answered: the answer brings the current position at
  /// once (nothing else would: a manual location does not change by itself); once, not again.
  @Test func theGrantBringsTheCurrentPositionToRunningUpdates() throws {
    var h = AppsDeliveryTests.started()
    var agent = AgentFlow(&h)
    h.send(AppsDeliveryTests.admin, .setLocation(AppsDeliveryTests.oslo, name: nil, accuracy: nil))
    h.send(AppsDeliveryTests.app, .setActivity(.foreground))
    h.send(AppsDeliveryTests.app, .requestAuthorization(.whenInUse, purpose: "p"))
    h.send(AppsDeliveryTests.app, .startUpdates(AppSession.Updates()))
    #expect(h.locations(AppsDeliveryTests.app).isEmpty, "not before the answer")
    try agent.answer(&h, .allowWhileUsing)
    #expect(h.locations(AppsDeliveryTests.app).map(\.tier) == [.manual])
    h.send(AppsDeliveryTests.app, .setActivity(.foreground))
    #expect(h.locations(AppsDeliveryTests.app).count == 1, "no repeat while nothing changed")
  }
}
