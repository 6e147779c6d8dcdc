/// Apps in the engine: hellos turned into plain or app sessions, the requests of apps and
/// agents, and the apps machines' outputs turned into effects.
extension Engine {
  /// A client said hello: it becomes a plain session or an app's, or is refused.
  mutating func open(
    _ id: SessionID, _ hello: SessionHello, reply: RequestID?, at now: Instant, into effects: inout [Effect]
  ) {
    func answer(_ result: Result<Response, RequestError>) {
      if let reply { effects.append(.reply(id, reply, result)) }
    }
    var outputs: [AppsOutput] = []
    let identity: AppIdentity?
    switch AppIdentity.resolve(claim: hello.app, uid: hello.peer.uid, unit: hello.unit) {
    case .failure(let refusal):
      if case .mismatch = refusal {
        appAuthorization.identityRefused()
        effects.append(.log(.notice, "hello of pid \(hello.peer.pid) refused: \(refusal.error.message)"))
      }
      return answer(.failure(refusal.error))
    case .success(let resolved): identity = resolved
    }
    if let identity, let refused = openApp(id, identity, at: now, into: &outputs) {
      effects.append(.log(.notice, "hello of \(identity.key) refused: \(refused.message)"))
      return answer(.failure(refused))
    }
    sessions.opened(id, peer: hello.peer, access: hello.access, isApp: identity != nil)
    if let identity {
      let how = identity.isVerified ? "verified by \(identity.verification.rawValue)" : "claimed"
      // Debug: any local process can say hello as often as it likes (issue 28: 10,000 info
      // lines in 2.7 s); decisions, agents and refusals stay above it.
      effects.append(
        .log(.debug, "\(id): \(identity.key), \(how)\(identity.unit.map { ", in \($0)" } ?? "")"))
    }
    carryOut(outputs, at: now, into: &effects)
    answer(
      .success(
        .hello(
          HelloAnswer(
            session: id, access: hello.access, app: appReport(id, at: now), unit: hello.unit.unitName,
            now: now))))
  }

  /// The authorization in effect for `key` (policy, else the decision), and who decided
  /// it: what another face (GeoClue) answers before it asks its own agent.
  public func appAuthorization(_ key: AppKey) -> (AppAuthorization, decidedBy: String?) {
    (appAuthorization.authorization(key), appAuthorization.decider(key))
  }

  /// apps.json as read at start (nil: none yet, or unusable because of `problem`).
  mutating func loadApps(_ store: AppStore?, problem: String?, at now: Instant, into effects: inout [Effect])
  {
    if let problem {
      let what = store == nil ? "apps.json set aside, starting without decisions" : "apps.json read"
      effects.append(.log(.warning, "\(what): \(problem)"))
    }
    var outputs: [AppsOutput] = []
    appAuthorization.load(store, problem: problem)
    for key in appAuthorization.keys() { reindexApp(key, at: now, into: &outputs) }
    restoreRegions(at: now, into: &effects)
    carryOut(outputs, at: now, into: &effects)
  }

  /// Another face's agent decided for `key`: kept as a `locctl apps` change would be.
  mutating func agentDecided(
    _ key: AppKey, _ change: AppChange, at now: Instant, into effects: inout [Effect]
  ) {
    var outputs: [AppsOutput] = []
    if case .failure(let why) = changeApp(key, change, by: .agent, at: now, into: &outputs) {
      effects.append(.log(.notice, "\(key): the agent's answer is not kept: \(why.message)"))
    }
    carryOut(outputs, at: now, into: &effects)
  }

  /// A session went away.
  mutating func close(_ id: SessionID, at now: Instant, into effects: inout [Effect]) {
    var outputs: [AppsOutput] = []
    closeApp(id, at: now, into: &outputs)
    agentGone(.session(id), at: now, into: &outputs)
    sessions.closed(id)
    carryOut(outputs, at: now, into: &effects)
  }

  /// The requests that concern apps (admission already decided).
  mutating func handleAppRequest(
    _ request: Request, ref: RequestRef, peer: Peer, at now: Instant, into effects: inout [Effect]
  ) {
    var outputs: [AppsOutput] = []
    var result: Result<Response, RequestError>
    let id = ref.session
    switch request {
    case .requestAuthorization(let level, let purpose):
      result =
        requestAuthorization(level, purpose: purpose, from: id, at: now, into: &outputs).map {
          .success(.appStatus($0))
        } ?? .failure(gone)
    case .requestTemporaryFullAccuracy(let purpose):
      result =
        requestTemporaryFullAccuracy(purpose: purpose, from: id, at: now, into: &outputs).map {
          $0.map { .appStatus($0) }
        } ?? .failure(gone)
    case .setActivity(let activity):
      result =
        setAppActivity(activity, of: id, at: now, into: &outputs).map { .success(.appStatus($0)) }
        ?? .failure(gone)
    case .startUpdates(let updates):
      result =
        startAppUpdates(updates, for: id, at: now, into: &outputs).map { .success(.appStatus($0)) }
        ?? .failure(gone)
    case .stopUpdates:
      stopAppUpdates(for: id, at: now, into: &outputs)
      result = .success(.done)
    case .subscribe(let kinds):
      if kinds != Set(EventKind.allCases), kinds.contains(where: \.needsPrecise),
        let key = appDelivery.key(of: id),
        let refusal = preciseRefusal(key, "region and visit events")
      {
        result = .failure(refusal)
      } else {
        result = subscribeApp(id, to: kinds, at: now, into: &outputs).map { .subscriptions($0) }
        if let key = appDelivery.key(of: id) { syncVisits(key) }
      }
    case .unsubscribe(let kinds):
      result = .success(.subscriptions(unsubscribeApp(id, from: kinds, at: now, into: &outputs)))
      if let key = appDelivery.key(of: id) { syncVisits(key) }
    case .registerAgent:
      result = registerAgent(.session(id), uid: peer.uid, at: now, into: &outputs).map {
        .agent(uid: peer.uid, pending: $0)
      }
      if case .success = result { effects.append(.log(.info, "\(id) is the agent of uid \(peer.uid)")) }
    case .answerPrompt(let prompt, let answer, let precise):
      result = answerPrompt(prompt, answer, precise: precise, from: .session(id), at: now, into: &outputs).map
      { .done }
    case .listApps(let uid):
      let admin = sessions.access(of: id) == .admin
      if let uid, uid != peer.uid, !admin {
        result = .failure(RequestError(.permissionDenied, "only the administrator sees other users' apps"))
      } else {
        // Without a uid: an administrator sees every user's apps, anyone else their own.
        result = .success(.apps(appListings(uid: uid ?? (admin ? nil : peer.uid), at: now)))
      }
    case .changeApp(let app, let uid, let change):
      let who = uid ?? peer.uid
      if who != peer.uid, sessions.access(of: id) != .admin {
        result = .failure(RequestError(.permissionDenied, "only the administrator changes other users' apps"))
      } else {
        let key = AppKey(uid: who, app: app)
        result = changeApp(key, change, at: now, into: &outputs).map { .app($0) }
        if case .reset = change, case .success = result { forgetRegions(of: key, at: now, into: &effects) }
      }
    default:
      result = .failure(RequestError(.internalError, "not an apps request"))
    }
    effects.append(.reply(ref.session, ref.id, result))
    carryOut(outputs, at: now, into: &effects)
  }

  /// An app that starts updates and may have them now gets the current answer at once, as a
  /// plain subscriber does, instead of waiting for the next fix.
  private mutating func greet(_ id: SessionID, at now: Instant, into effects: inout [Effect]) {
    let accuracy = appDelivery.locationAccuracy(of: id)
    let current = Notice.location(resolve(at: now), fix: positions.latest?.fix)
    // The greeting counts as delivered for the distance filter, as any location event does.
    if accuracy == .full, appDelivery.passesFilter(id, current) {
      effects.append(.push([id], current, at: now))
    } else if accuracy == .reduced, let reduced = appDelivery.reducedNotice(current),
      appDelivery.isNews(id, reduced)
    {
      effects.append(.push([id], reduced, at: now))
    }
  }

  private var gone: RequestError { RequestError(.internalError, "the app session is not known") }

  /// Turns the apps machines' outputs into effects.
  mutating func carryOut(_ outputs: [AppsOutput], at now: Instant, into effects: inout [Effect]) {
    for output in outputs {
      switch output {
      case .authorization(let id, let report):
        effects.append(.push([id], .authorization(report), at: now))
      case .ask(.session(let agent), let prompt):
        effects.append(
          .log(
            .info,
            "asking the agent of uid \(prompt.identity.key.uid) about \(prompt.identity.key.app) (\(prompt.id))"
          ))
        effects.append(.push([agent], .agentPrompt(prompt), at: now))
      case .withdraw(.session(let agent), let prompt, let reason):
        effects.append(.push([agent], .agentPromptWithdrawn(prompt, reason: reason), at: now))
      case .deliver(let ids, let events):
        for e in events { effects.append(.push(ids, e.notice, at: e.at)) }
      case .decided(let key, let a, let by):
        var words = a.status.rawValue
        if a.allowsInUse { words += ", \(a.accuracy.rawValue) accuracy" }
        if a.provisional { words += ", provisional" }
        if a.once { words += ", once" }
        if a.temporaryFullAccuracy { words += ", full accuracy until no longer in use" }
        effects.append(.log(.info, "\(key): \(words) (\(by))"))
      case .dropped(let key, let count, let why):
        effects.append(.log(.info, "\(key): \(count) waiting event(s) dropped: \(why)"))
      case .launch(let key, let unit):
        effects.append(.log(.info, "\(key): an event waits and the app is not connected; starting \(unit)"))
        effects.append(.launchApp(unit, app: key))
      }
    }
    for id in appDelivery.takeGreetings() { greet(id, at: now, into: &effects) }
    dropBeaconsNoLongerAllowed(at: now, into: &effects)
  }
}
