import Testing

@testable import LocCore

/// Temporary full accuracy (docs/APPS.md, decision 0067), after Core Location's
/// requestTemporaryFullAccuracyAuthorization(withPurposeKey:): an app granted reduced accuracy
/// asks, while in use, for full accuracy with a purpose; the user's agent is asked (Allow Once
/// or Don't Allow); a yes lasts until the app is no longer in use (Apple: "until the app is no
/// longer in use", the rule Allow Once follows here too), then the app is reduced again; the
/// grant is never stored.
@Suite struct TemporaryFullAccuracyTests {
  static let app = AppsDeliveryTests.app
  static let admin = AppsDeliveryTests.admin
  static let oslo = AppsDeliveryTests.oslo
  static let key = AppsDeliveryTests.key
  /// The centre of the reduced grid's cell around Oslo: what a reduced app is given.
  static let cell = ReducedGrid.centre(ReducedGrid.cell(of: oslo))

  /// The app granted when-in-use at reduced accuracy by the administrator, the manual location
  /// at Oslo, the app in the foreground with updates running and told its authorization, and
  /// an agent registered.
  static func reducedInUse() -> (EngineHarness, AgentFlow) {
    var h = AppsDeliveryTests.started()
    let agent = AgentFlow(&h)
    h.send(admin, .setLocation(oslo, name: nil, accuracy: nil))
    h.send(admin, .changeApp(AppID(AppsDeliveryTests.id)!, uid: 1000, .grant(.whenInUse, .reduced)))
    h.send(app, .subscribe([.authorization]))
    h.send(app, .setActivity(.foreground))
    h.send(app, .startUpdates(AppSession.Updates()))
    return (h, agent)
  }

  /// The app asks; the agent is put a `temporary-full-accuracy` prompt with the purpose.
  static func ask(_ h: inout EngineHarness, _ agent: AgentFlow) throws -> AppPrompt {
    let before = agent.prompts(h).count
    let reply = try #require(
      EngineHarness.status(h.send(app, .requestTemporaryFullAccuracy(purpose: "turn-by-turn directions"))))
    #expect(reply.authorization.accuracy == .reduced && reply.prompt == .asking)
    #expect(agent.prompts(h).count == before + 1)
    let p = try #require(agent.prompts(h).last)
    #expect(p.kind == .temporaryFullAccuracy && p.purpose == "turn-by-turn directions")
    #expect(p.requested == .whenInUse)
    return p
  }

  @Test func allowedOnceTheAppGetsExactPositionsUntilItLeavesUse() throws {
    var (h, agent) = Self.reducedInUse()
    #expect(h.locations(Self.app).last?.position?.coordinate == Self.cell)
    _ = try Self.ask(&h, agent)
    try agent.answer(&h, .allowOnce)
    let told = try #require(h.authorizations(Self.app).last)
    #expect(told.authorization.accuracy == .full && told.authorization.temporaryFullAccuracy)
    #expect(told.authorization.status == .whenInUse && told.prompt == PromptState.none)
    // The exact position at once (the session may now have more than its cell).
    #expect(h.locations(Self.app).last?.position?.coordinate == Self.oslo)
    // Not a decision: the store keeps reduced, `locctl apps` shows the grant as temporary.
    #expect(h.engine.appsStore.records.first?.accuracy == .reduced)
    let listed = h.engine.appListing(Self.key, at: h.now)
    #expect(listed.authorization.accuracy == .full && listed.authorization.temporaryFullAccuracy)
    // In use through the grace window (10 s after leaving the foreground), then reduced again.
    h.send(Self.app, .setActivity(.background))
    let left = h.now
    h.advance(to: left.adding(seconds: 9))
    #expect(h.authorizations(Self.app).last?.authorization.accuracy == .full)
    h.advance(to: left.adding(seconds: 11))
    let after = try #require(h.authorizations(Self.app).last)
    #expect(after.authorization.accuracy == .reduced && !after.authorization.temporaryFullAccuracy)
    #expect(after.authorization.status == .whenInUse)
    // Back in the foreground it is reduced and may ask again: a new prompt.
    h.send(Self.app, .setActivity(.foreground))
    #expect(h.engine.appAuthorization.authorization(Self.key).accuracy == .reduced)
    _ = try Self.ask(&h, agent)
  }

  @Test func disconnectingEndsTheGrantAndTheAppComesBackReduced() throws {
    var (h, agent) = Self.reducedInUse()
    _ = try Self.ask(&h, agent)
    try agent.answer(&h, .allowOnce)
    #expect(h.engine.appAuthorization.authorization(Self.key).accuracy == .full)
    h.handle(.sessionClosed(Self.app))
    let back = SessionID(2)
    let hello = try #require(EngineHarness.status(h.app(back, AppsDeliveryTests.id)))
    #expect(hello.authorization.accuracy == .reduced && !hello.authorization.temporaryFullAccuracy)
    #expect(hello.authorization.status == .whenInUse, "the decision itself stays")
    h.send(back, .setActivity(.foreground))
    h.send(back, .startUpdates(AppSession.Updates()))
    #expect(h.locations(back).last?.position?.coordinate == Self.cell)
  }

  /// Don't Allow: reduced, and not asked again while the app stays in use (a prompt per call
  /// would let an app nag); asked again in its next use.
  @Test func refusedIsNotAskedAgainInTheSameUse() throws {
    var (h, agent) = Self.reducedInUse()
    _ = try Self.ask(&h, agent)
    try agent.answer(&h, .deny)
    let a = h.engine.appAuthorization.authorization(Self.key)
    #expect(a.accuracy == .reduced && a.status == .whenInUse, "a no to full accuracy is not a denial")
    let again = try #require(
      EngineHarness.status(h.send(Self.app, .requestTemporaryFullAccuracy(purpose: "please"))))
    #expect(again.authorization.accuracy == .reduced && again.prompt == PromptState.none)
    #expect(agent.prompts(h).count == 1)
    h.send(Self.app, .setActivity(.background))
    h.advance(to: h.now.adding(seconds: 11))
    h.send(Self.app, .setActivity(.foreground))
    _ = try Self.ask(&h, agent)
  }

  /// Only Allow Once and Don't Allow answer it.
  @Test func whileUsingDoesNotAnswerIt() throws {
    var (h, agent) = Self.reducedInUse()
    let p = try Self.ask(&h, agent)
    guard case .failure(let e)? = h.send(AgentFlow.id, .answerPrompt(p.id, .allowWhileUsing, precise: true))
    else {
      Issue.record("allow-while-using answered a temporary-full-accuracy prompt")
      return
    }
    #expect(e.code == .invalidParams && e.message.contains("allow-once"))
  }

  /// A decision by hand replaces the answer for this use.
  @Test func aDecisionByHandEndsTheGrant() throws {
    var (h, agent) = Self.reducedInUse()
    _ = try Self.ask(&h, agent)
    try agent.answer(&h, .allowOnce)
    h.send(Self.admin, .changeApp(AppID(AppsDeliveryTests.id)!, uid: 1000, .grant(.whenInUse, .reduced)))
    let a = h.engine.appAuthorization.authorization(Self.key)
    #expect(a.accuracy == .reduced && !a.temporaryFullAccuracy)
  }

  @Test func anAppWithFullAccuracyIsAnsweredWithoutAPrompt() throws {
    var h = AppsDeliveryTests.started()
    let agent = AgentFlow(&h)
    h.send(Self.admin, .changeApp(AppID(AppsDeliveryTests.id)!, uid: 1000, .grant(.whenInUse, .full)))
    h.send(Self.app, .setActivity(.foreground))
    let r = try #require(EngineHarness.status(h.send(Self.app, .requestTemporaryFullAccuracy(purpose: "p"))))
    #expect(r.authorization.accuracy == .full && !r.authorization.temporaryFullAccuracy)
    #expect(agent.prompts(h).isEmpty)
  }

  /// Refused, with the reason, and nobody asked: an app not allowed the location, one not in
  /// use, one a policy file holds to reduced.
  @Test func refusedWhenNotAllowedNotInUseOrCappedByPolicy() throws {
    func refusal(_ h: inout EngineHarness) -> RequestError? {
      if case .failure(let e)? = h.send(Self.app, .requestTemporaryFullAccuracy(purpose: "p")) { return e }
      return nil
    }
    var h = AppsDeliveryTests.started()
    let agent = AgentFlow(&h)
    h.send(Self.app, .setActivity(.foreground))
    #expect(refusal(&h)?.code == .notAuthorized, "not determined")
    h.send(Self.admin, .changeApp(AppID(AppsDeliveryTests.id)!, uid: 1000, .grant(.whenInUse, .reduced)))
    h.send(Self.app, .setActivity(.background))
    h.advance(to: h.now.adding(seconds: 11))
    #expect(refusal(&h)?.message.contains("only while in use") == true)
    h.send(Self.app, .setActivity(.foreground))
    var rule = AppRule()
    rule.app = AppID(AppsDeliveryTests.id)
    rule.maxAccuracy = .reduced
    h.handle(
      .appPolicyLoaded(
        AppPolicy([.init(rule: rule, uids: nil, file: "/etc/locd/apps.d/maps.conf")]), problems: []))
    #expect(refusal(&h)?.message.contains("maps.conf") == true)
    #expect(agent.prompts(h).isEmpty)
  }
}
