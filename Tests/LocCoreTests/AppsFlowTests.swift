import Testing

@testable import LocCore

/// The transitions of docs/APPS.md: the provisional always flow (allowed in time, kept while
/// using, no answer), Allow Once ending, denial, policy, and events queued for an always app
/// that is not connected.
@Suite struct AppsFlowTests {
  static let app = AppsDeliveryTests.app
  static let oslo = AppsDeliveryTests.oslo

  /// An app with provisional always (asked for always, allowed while using), subscribed to
  /// significant changes, in the foreground; prompts time out after `promptTimeout`.
  static func provisional(promptTimeout: Duration = .seconds(3600)) throws -> (EngineHarness, AgentFlow) {
    var config = DaemonConfig()
    config.apps.promptTimeout = promptTimeout
    var h = AppsDeliveryTests.started(config)
    var agent = AgentFlow(&h)
    h.send(app, .subscribe([.significantChange, .authorization]))
    h.send(app, .setActivity(.foreground))
    h.fix(oslo, at: h.now.adding(seconds: 1))
    h.send(app, .requestAuthorization(.always, purpose: "rain alerts where you are"))
    let asked = try #require(agent.prompts(h).last)
    #expect(asked.kind == .authorization && asked.requested == .always)
    #expect(asked.purpose == "rain alerts where you are")
    try agent.answer(&h, .allowWhileUsing)
    return (h, agent)
  }

  /// A fix `km` east of the last one `seconds` later: a significant change (> 1 km).
  static func move(_ h: inout EngineHarness, km: Double, after seconds: Double) {
    let from = h.engine.resolve(at: h.now).position?.coordinate ?? oslo
    h.fix(from.destination(distance: Meters(km * 1000), bearing: 90), at: h.now.adding(seconds: seconds))
  }

  /// Leaves the foreground and lets the grace window pass.
  static func background(_ h: inout EngineHarness) {
    h.send(app, .setActivity(.background))
    h.advance(to: h.now.adding(seconds: 11))
  }

  @Test func provisionalAlwaysIsShownAsAlwaysAndDeliversInUse() throws {
    var (h, _) = try Self.provisional()
    let told = try #require(h.authorizations(Self.app).last)
    #expect(told.authorization.status == .always)
    #expect(told.authorization.provisional)
    // 2 km in 30 s (67 m/s) passes fix acceptance (2 km in 5 s would be faster than sound).
    Self.move(&h, km: 2, after: 30)
    #expect(h.significantChanges(Self.app).count == 1)
  }

  /// Allowed in time: the events held while the person was asked are delivered, except
  /// those older than MaxEventAge (10 min), which are dropped and counted.
  @Test func upgradeAllowedInTimeDeliversTheHeldEventsAndDropsStaleOnes() throws {
    var (h, agent) = try Self.provisional()
    Self.background(&h)
    Self.move(&h, km: 2, after: 5)
    let firstHeld = h.now
    #expect(h.significantChanges(Self.app).isEmpty)
    let upgrade = try #require(agent.prompts(h).last)
    #expect(upgrade.kind == .upgrade)
    #expect(h.authorizations(Self.app).last?.prompt == .asking)
    Self.move(&h, km: 2, after: 8 * 60)
    let secondHeld = h.now
    // The first held event turns 10 minutes old before the answer: dropped, counted.
    h.advance(to: firstHeld.adding(seconds: 12 * 60))
    try agent.answer(&h, .always)
    let delivered = h.log.compactMap { entry -> Instant? in
      if case .push(let s, .significantChange, let t) = entry.effect, s.contains(Self.app) { return t }
      return nil
    }
    #expect(delivered == [secondHeld])
    #expect(h.appsCounter("staleDropped") == 1)
    let now = try #require(h.authorizations(Self.app).last)
    #expect(now.authorization.status == .always && !now.authorization.provisional)
    // From now on background events go straight through.
    Self.move(&h, km: 2, after: 30)
    #expect(h.significantChanges(Self.app).count == 2)
  }

  /// Kept while using: the app is told it has when-in-use, the held events are dropped, and
  /// later background events are neither held nor asked about again.
  @Test func upgradeKeptWhileUsingDropsTheHeldEvents() throws {
    var (h, agent) = try Self.provisional()
    Self.background(&h)
    Self.move(&h, km: 2, after: 5)
    try agent.answer(&h, .keepWhileUsing)
    let told = try #require(h.authorizations(Self.app).last)
    #expect(told.authorization.status == .whenInUse && !told.authorization.provisional)
    #expect(h.significantChanges(Self.app).isEmpty)
    #expect(h.appsCounter("heldDiscarded") == 1)
    let prompts = agent.prompts(h).count
    Self.move(&h, km: 2, after: 60)
    #expect(h.significantChanges(Self.app).isEmpty)
    #expect(agent.prompts(h).count == prompts)
    #expect(h.lastStore?.records.first?.status == .whenInUse)
  }

  /// No answer: the prompt is withdrawn at its timeout, the app is told, the held events
  /// age out (counted); the app is not asked again before PromptInterval (5 min).
  @Test func upgradeNotAnsweredTimesOutAndHeldEventsAgeOut() throws {
    var (h, agent) = try Self.provisional(promptTimeout: .seconds(60))
    Self.background(&h)
    Self.move(&h, km: 2, after: 5)
    let asked = try #require(agent.prompts(h).last)
    h.advance(to: h.now.adding(seconds: 61))
    let withdrawn = h.pushed(to: AgentFlow.id).contains {
      if case .agentPromptWithdrawn(let id, _) = $0 { return id == asked.id } else { return false }
    }
    #expect(withdrawn)
    #expect(h.authorizations(Self.app).last?.prompt == .noAnswer)
    #expect(h.appsCounter("promptsTimedOut") == 1)
    Self.move(&h, km: 2, after: 60)
    #expect(agent.prompts(h).count == 2, "not asked again within PromptInterval")
    h.advance(to: h.now.adding(seconds: 10 * 60))
    #expect(h.appsCounter("staleDropped") == 2)
    #expect(h.significantChanges(Self.app).isEmpty)
    Self.move(&h, km: 2, after: 5)
    #expect(agent.prompts(h).count == 3, "asked again after PromptInterval")
  }

  /// An app whose prompt went unanswered cannot get a new prompt by reconnecting: the
  /// PromptInterval outlives its session; after it, the app is asked again.
  @Test func reconnectingDoesNotGetAroundPromptInterval() throws {
    var config = DaemonConfig()
    config.apps.promptTimeout = .seconds(60)
    var h = AppsDeliveryTests.started(config)
    let agent = AgentFlow(&h)
    h.send(Self.app, .requestAuthorization(.whenInUse, purpose: "p"))
    #expect(agent.prompts(h).count == 1)
    h.advance(to: h.now.adding(seconds: 61))
    #expect(h.appsCounter("promptsTimedOut") == 1)
    h.handle(.sessionClosed(Self.app))
    let again = SessionID(2)
    h.app(again, AppsDeliveryTests.id)
    let r = EngineHarness.status(h.send(again, .requestAuthorization(.whenInUse, purpose: "p")))
    #expect(r?.prompt == .noAnswer)
    #expect(agent.prompts(h).count == 1, "no new prompt within PromptInterval (5 min)")
    h.advance(to: h.now.adding(seconds: 5 * 60))
    let later = EngineHarness.status(h.send(again, .requestAuthorization(.whenInUse, purpose: "p")))
    #expect(later?.prompt == .asking)
    #expect(agent.prompts(h).count == 2)
  }

  /// Requesting when-in-use never gives provisional always.
  @Test func whenInUseRequestNeverGivesProvisional() throws {
    var h = AppsDeliveryTests.started()
    var agent = AgentFlow(&h)
    h.send(Self.app, .requestAuthorization(.whenInUse, purpose: "p"))
    try agent.answer(&h, .allowWhileUsing)
    let a = h.engine.appAuthorization.authorization(AppsDeliveryTests.key)
    #expect(a.status == .whenInUse && !a.provisional)
  }

  /// Allow Once: reset to not-determined when the grace window after leaving the
  /// foreground ends; never stored; the app may ask again.
  @Test func onceResetsAfterTheGraceWindow() throws {
    var h = AppsDeliveryTests.started()
    var agent = AgentFlow(&h)
    h.send(Self.app, .subscribe([.authorization]))
    h.send(Self.app, .setActivity(.foreground))
    h.send(Self.app, .requestAuthorization(.whenInUse, purpose: "p"))
    try agent.answer(&h, .allowOnce)
    #expect(h.authorizations(Self.app).last?.authorization == AppAuthorization(.whenInUse, once: true))
    h.send(Self.app, .setActivity(.background))
    let left = h.now
    h.advance(to: left.adding(seconds: 9))
    #expect(h.authorizations(Self.app).last?.authorization.once == true)
    h.advance(to: left.adding(seconds: 11))
    #expect(h.authorizations(Self.app).last?.authorization.status == .notDetermined)
    #expect(h.lastStore.map { $0.records.isEmpty } ?? true)
    h.send(Self.app, .setActivity(.foreground))
    h.send(Self.app, .requestAuthorization(.whenInUse, purpose: "p"))
    #expect(agent.prompts(h).count == 2)
  }

  /// Denied: nothing delivered, asking again gets the decision, not a prompt.
  @Test func deniedIsFinalUntilTheUserChangesIt() throws {
    var h = AppsDeliveryTests.started()
    var agent = AgentFlow(&h)
    h.send(Self.app, .setActivity(.foreground))
    h.send(Self.app, .requestAuthorization(.whenInUse, purpose: "p"))
    try agent.answer(&h, .deny)
    let again = EngineHarness.status(h.send(Self.app, .requestAuthorization(.always, purpose: "please")))
    #expect(again?.authorization.status == .denied)
    #expect(again?.prompt == PromptState.none)
    #expect(agent.prompts(h).count == 1)
    // The user changes it with locctl apps grant (a plain session of the same uid).
    h.plain(SessionID(70))
    h.send(SessionID(70), .changeApp(AppID(AppsDeliveryTests.id)!, uid: nil, .grant(.whenInUse, .full)))
    #expect(h.engine.appAuthorization.authorization(AppsDeliveryTests.key).status == .whenInUse)
  }

  /// Restricted by policy: the app is told so at hello, asking prompts nobody, and no grant
  /// changes it.
  @Test func restrictedByPolicy() throws {
    var h = EngineHarness(at: AppsDeliveryTests.t0)
    h.handle(.appsLoaded(nil, problem: nil))
    var rule = AppRule()
    rule.app = AppID("org.example.Kid")
    rule.preset = .restricted
    h.handle(
      .appPolicyLoaded(
        AppPolicy([.init(rule: rule, uids: nil, file: "/etc/locd/apps.d/kid.conf")]), problems: []))
    let agent = AgentFlow(&h)
    let hello = EngineHarness.status(h.app(Self.app, "org.example.Kid"))
    #expect(hello?.authorization.status == .restricted)
    #expect(hello?.decidedBy == "policy")
    h.send(Self.app, .requestAuthorization(.whenInUse, purpose: "p"))
    #expect(agent.prompts(h).isEmpty)
    h.plain(SessionID(70), uid: 0, access: .admin)
    guard
      case .failure(let e)? = h.send(
        SessionID(70), .changeApp(AppID("org.example.Kid")!, uid: 1000, .grant(.always, .full)))
    else { Issue.record("granted over a policy"); return }
    #expect(e.code == .failed && e.message.contains("kid.conf"))
    _ = agent
  }

  /// An always app that is not connected gets its registered monitoring events queued; on
  /// reconnecting and subscribing it gets those younger than MaxEventAge.
  @Test func eventsAreQueuedForAnAlwaysAppWhileItIsAway() {
    var h = AppsDeliveryTests.started()
    h.send(
      AppsDeliveryTests.admin, .changeApp(AppID(AppsDeliveryTests.id)!, uid: 1000, .grant(.always, .full)))
    h.send(Self.app, .subscribe([.significantChange]))
    h.fix(Self.oslo, at: h.now.adding(seconds: 1))
    h.handle(.sessionClosed(Self.app))
    Self.move(&h, km: 2, after: 60)
    Self.move(&h, km: 2, after: 11 * 60)
    let back = SessionID(2)
    h.app(back, AppsDeliveryTests.id)
    #expect(h.significantChanges(back).isEmpty, "nothing before it subscribes")
    h.send(back, .subscribe([.significantChange]))
    #expect(h.significantChanges(back).count == 1)
    #expect(h.appsCounter("staleDropped") == 1)
    #expect(h.lastStore?.records.first?.registrations == [.significantChange])
  }

  /// An agent that goes away mid-prompt: the app hears there is no agent; the next agent of
  /// the user gets the same question.
  @Test func agentDisconnectingMidPromptLeavesTheRequestWaiting() throws {
    var h = AppsDeliveryTests.started()
    let agent = AgentFlow(&h)
    h.send(Self.app, .subscribe([.authorization]))
    h.send(Self.app, .requestAuthorization(.whenInUse, purpose: "p"))
    let first = try #require(agent.prompts(h).last)
    h.handle(.sessionClosed(AgentFlow.id))
    #expect(h.authorizations(Self.app).last?.prompt == .noAgent)
    let next = SessionID(61)
    h.plain(next)
    h.send(next, .registerAgent)
    let again = try #require(h.prompts(next).last)
    #expect(again.id == first.id && again.identity.key == AppsDeliveryTests.key)
    #expect(h.authorizations(Self.app).last?.prompt == .asking)
    guard case .success? = h.send(next, .answerPrompt(again.id, .allowWhileUsing, precise: true)) else {
      Issue.record("answer refused")
      return
    }
    #expect(h.engine.appAuthorization.authorization(AppsDeliveryTests.key).status == .whenInUse)
  }

  /// Without an agent the request stays not-determined and says so.
  @Test func withoutAnAgentTheRequestSaysNoAgent() {
    var h = AppsDeliveryTests.started()
    let r = EngineHarness.status(h.send(Self.app, .requestAuthorization(.whenInUse, purpose: "p")))
    #expect(r?.authorization.status == .notDetermined)
    #expect(r?.prompt == .noAgent)
  }
}
