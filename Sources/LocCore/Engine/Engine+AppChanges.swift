/// What apps and agents change, through the three apps machines: sessions coming and going
/// and what they ask (delivery), decisions and registrations (authorization), agents and
/// their answers (prompts); after each, the app is re-indexed (`reindexApp`).
extension Engine {
  /// An app session opened; nil when it may, else why not (the decision is bound to the app
  /// as the kernel knew it, or the user has too many apps).
  mutating func openApp(
    _ id: SessionID, _ identity: AppIdentity, at now: Instant, into outputs: inout [AppsOutput]
  ) -> RequestError? {
    let key = identity.key
    if let refusal = appAuthorization.boundElsewhere(identity) {
      appAuthorization.identityRefused()
      return refusal
    }
    guard appAuthorization.ensureRecord(key, at: now) else { return appAuthorization.tooMany(key.uid) }
    appAuthorization.seen(key, as: identity)
    appDelivery.add(id, identity)
    reindexApp(key, at: now, into: &outputs)
    return nil
  }

  /// An app session closed: not in use any more; its app's prompts go if it was the last.
  mutating func closeApp(_ id: SessionID, at now: Instant, into outputs: inout [AppsOutput]) {
    guard let (key, wasUsing, last) = appDelivery.remove(id) else { return }
    if wasUsing { appAuthorization.used(key, at: now) }
    if last { appPrompts.withdraw(for: key, at: now, into: &outputs) }
    reindexApp(key, at: now, into: &outputs)
    forgetAppIfIdle(key)
  }

  /// `request-authorization`: answered from the policy or the decision if there is one,
  /// else the person is asked (through the user's agent). Returns the app's status now.
  mutating func requestAuthorization(
    _ level: AuthorizationLevel, purpose: String, from id: SessionID, at now: Instant,
    into outputs: inout [AppsOutput]
  ) -> AppStatusReport? {
    guard let key = appDelivery.key(of: id), let r = appAuthorization.record(key) else { return nil }
    appAuthorization.setPurpose(purpose, for: key)
    if !appAuthorization.isDecidedByPolicy(key), !r.once {
      if r.status == .notDetermined {
        promptApp(.authorization, key, requested: level, at: now, into: &outputs)
      } else if r.status == .whenInUse, level == .always, !r.upgradeAsked {
        promptApp(.upgrade, key, requested: .always, at: now, into: &outputs)
      }
    }
    tellApp(key, at: now, into: &outputs)
    return appReport(id, at: now)
  }

  /// `request-temporary-full-accuracy` (Core Location's
  /// requestTemporaryFullAccuracyAuthorization): an app granted reduced accuracy, in use,
  /// asks for full accuracy with a purpose; the person is asked (Allow Once / Don't Allow)
  /// and a yes lasts until the app is no longer in use (`reindexApp`), never stored. Answered
  /// at once without a prompt when the app has full accuracy already, or was told no in this
  /// use. Returns the app's status now, or why it may not ask (nil: not an app session).
  mutating func requestTemporaryFullAccuracy(
    purpose: String, from id: SessionID, at now: Instant, into outputs: inout [AppsOutput]
  ) -> Result<AppStatusReport, RequestError>? {
    guard let key = appDelivery.key(of: id), let r = appAuthorization.record(key) else { return nil }
    let a = appAuthorization.authorization(key)
    guard a.allowsInUse else {
      return .failure(
        RequestError(
          .notAuthorized,
          "\(key.app) is \(a.status.rawValue): temporary full accuracy is for an app allowed the location; ask with request-authorization"
        ))
    }
    if a.accuracy == .reduced {
      if let file = appAuthorization.policyFile(key), appAuthorization.maxAccuracy(key) == .reduced {
        return .failure(
          RequestError(.notAuthorized, "\(key.app) is held to reduced accuracy by the policy in \(file)"))
      }
      guard appDelivery.inUse(id, at: now) else {
        return .failure(
          RequestError(
            .notAuthorized,
            "\(key.app) may ask for temporary full accuracy only while in use (say set-activity foreground)"))
      }
      if r.temporary == nil {
        promptApp(
          .temporaryFullAccuracy, key, requested: a.status == .always ? .always : .whenInUse,
          purpose: purpose,
          at: now, into: &outputs)
      }
    }
    tellApp(key, at: now, into: &outputs)
    return appReport(id, at: now).map { .success($0) }
  }

  /// `set-activity`: the app is in the foreground or not.
  mutating func setAppActivity(
    _ activity: AppActivity, of id: SessionID, at now: Instant, into outputs: inout [AppsOutput]
  ) -> AppStatusReport? {
    guard let key = appDelivery.setActivity(activity, of: id, at: now) else { return nil }
    reindexApp(key, at: now, into: &outputs)
    return appReport(id, at: now)
  }

  /// `start-updates` (or a `location` subscription): location updates with `updates`' options.
  mutating func startAppUpdates(
    _ updates: AppSession.Updates, for id: SessionID, at now: Instant, into outputs: inout [AppsOutput]
  ) -> AppStatusReport? {
    guard let key = appDelivery.startUpdates(updates, for: id, at: now) else { return nil }
    reindexApp(key, at: now, into: &outputs)
    appDelivery.greetIfDelivering(id)
    return appReport(id, at: now)
  }

  /// `stop-updates` (or unsubscribing from `location`).
  mutating func stopAppUpdates(for id: SessionID, at now: Instant, into outputs: inout [AppsOutput]) {
    guard let key = appDelivery.stopUpdates(for: id) else { return }
    reindexApp(key, at: now, into: &outputs)
  }

  /// `subscribe` from an app: only the kinds apps may have; monitoring kinds are registered
  /// (kept in apps.json, queued while the app is not connected if it has always).
  mutating func subscribeApp(
    _ id: SessionID, to kinds: Set<EventKind>, at now: Instant, into outputs: inout [AppsOutput]
  ) -> Result<Set<EventKind>, RequestError> {
    guard let key = appDelivery.key(of: id) else { return .success([]) }
    let refused = kinds.subtracting(EventKind.forApps)
    guard refused.isEmpty || kinds == Set(EventKind.allCases) else {
      let names = EventKind.forApps.sorted().map(\.rawValue).joined(separator: ", ")
      return .failure(RequestError(.permissionDenied, "apps may subscribe to \(names) only"))
    }
    // "all" does not start visit monitoring (it keeps the receiver waking every minute):
    // that takes `monitor-visits` or naming `visit`.
    var wanted = kinds.intersection(EventKind.forApps)
    if kinds == Set(EventKind.allCases) { wanted.remove(.visit) }
    if wanted.contains(.location), !appDelivery.hasUpdates(id) {
      _ = startAppUpdates(AppSession.Updates(), for: id, at: now, into: &outputs)
    }
    appDelivery.addKinds(wanted, to: id)
    appAuthorization.register(wanted.filter(\.needsAlways), for: key)
    reindexApp(key, at: now, into: &outputs)
    return .success(appDelivery.kinds(of: id) ?? [])
  }

  /// `unsubscribe` from an app.
  mutating func unsubscribeApp(
    _ id: SessionID, from kinds: Set<EventKind>, at now: Instant, into outputs: inout [AppsOutput]
  ) -> Set<EventKind> {
    guard let key = appDelivery.key(of: id) else { return [] }
    if kinds.contains(.location) { stopAppUpdates(for: id, at: now, into: &outputs) }
    appDelivery.removeKinds(kinds, from: id)
    appAuthorization.unregister(kinds.filter(\.needsAlways), for: key)
    reindexApp(key, at: now, into: &outputs)
    return appDelivery.kinds(of: id) ?? []
  }

  /// Subscribes session `id` to `kind` without the checks of `subscribe` (the engine has
  /// made them: a region registered, visits started).
  mutating func listenApp(
    _ id: SessionID, to kind: EventKind, at now: Instant, into outputs: inout [AppsOutput]
  ) {
    guard let key = appDelivery.key(of: id), appDelivery.kinds(of: id)?.contains(kind) == false else {
      return
    }
    appDelivery.addKinds([kind], to: id)
    reindexApp(key, at: now, into: &outputs)
  }

  /// Marks `key` as registered for `kind` (it has regions, or monitors visits) or not: kept
  /// in apps.json, and events of the kind are queued while it is not connected (always).
  mutating func setAppRegistered(
    _ kind: EventKind, _ on: Bool, for key: AppKey, at now: Instant, into outputs: inout [AppsOutput]
  ) {
    guard appAuthorization.setRegistered(kind, on, for: key) else { return }
    reindexApp(key, at: now, into: &outputs)
    forgetAppIfIdle(key)
  }

  /// `set-launch-unit` of app session `id` (see `AppAuthorizationMachine.setLaunchUnit`).
  mutating func setAppLaunchUnit(_ unit: String?, for id: SessionID) -> Result<AppKey, RequestError> {
    guard let identity = appDelivery.identity(of: id) else {
      return .failure(RequestError(.internalError, "the app session is not known"))
    }
    return appAuthorization.setLaunchUnit(unit, for: identity)
  }

  /// Grants, denies or resets `key` (access already checked): by the user (`locctl apps`),
  /// or by an agent of another face (GeoClue's AuthorizeApp, docs/GEOCLUE.md).
  mutating func changeApp(
    _ key: AppKey, _ change: AppChange, by decider: AppRecord.Decider = .user, at now: Instant,
    into outputs: inout [AppsOutput]
  ) -> Result<AppListing, RequestError> {
    if case .failure(let why) = appAuthorization.change(key, change, by: decider, at: now) {
      return .failure(why)
    }
    if case .reset = change { appPrompts.forgetUnanswered(key) }
    outputs.append(.decided(key, appAuthorization.authorization(key), by: decider.rawValue))
    reindexApp(key, at: now, into: &outputs)
    let listing = appListing(key, at: now)
    forgetAppIfIdle(key)
    return .success(listing)
  }

  /// `agent` registers for `uid`; the prompts waiting are put to it. Returns how many wait.
  mutating func registerAgent(
    _ agent: AgentID, uid: UInt32, at now: Instant, into outputs: inout [AppsOutput]
  ) -> Result<Int, RequestError> {
    switch appPrompts.register(agent, uid: uid, at: now, into: &outputs) {
    case .failure(let why): return .failure(why)
    case .success(let registered):
      for key in registered.changed { tellApp(key, at: now, into: &outputs) }
      return .success(registered.pending)
    }
  }

  /// The agent of a user went away: its prompts wait for the next one.
  mutating func agentGone(_ agent: AgentID, at now: Instant, into outputs: inout [AppsOutput]) {
    for key in appPrompts.agentGone(agent) { tellApp(key, at: now, into: &outputs) }
  }

  /// An agent answers prompt `id`: the answer is recorded, the next prompt asked.
  mutating func answerPrompt(
    _ id: PromptID, _ answer: AgentAnswer, precise: Bool, from agent: AgentID, at now: Instant,
    into outputs: inout [AppsOutput]
  ) -> Result<Void, RequestError> {
    switch appPrompts.take(id, answer, from: agent) {
    case .failure(let why): return .failure(why)
    case .success(let p):
      let key = p.identity.key
      appAuthorization.apply(answer, to: p, precise: precise, at: now)
      outputs.append(.decided(key, appAuthorization.authorization(key), by: "agent"))
      reindexApp(key, at: now, into: &outputs)
      appPrompts.askFirst(key.uid, at: now, into: &outputs)
      return .success(())
    }
  }

  /// The apps timer fired: grace windows that ended, prompts not answered, events too old.
  mutating func appsTimerFired(at now: Instant, into outputs: inout [AppsOutput]) {
    let keys = appDelivery.expire(at: now)
    for uid in appPrompts.usersTimedOut(at: now) {
      guard let key = appPrompts.expireFirst(of: uid, at: now, into: &outputs) else { continue }
      tellApp(key, at: now, into: &outputs)
      appPrompts.askFirst(uid, at: now, into: &outputs)
    }
    for key in keys.sorted() { reindexApp(key, at: now, into: &outputs) }
  }

  /// The `[Apps]` settings, and the policy files when they were read (at start or on
  /// reload; nil: the same as before); every app is re-checked.
  mutating func configureApps(
    _ settings: AppsSettings, policy: (AppPolicy, problems: [String])?, at now: Instant,
    into outputs: inout [AppsOutput]
  ) {
    appAuthorization.configure(settings)
    appPrompts.configure(settings)
    appDelivery.configure(settings)
    if let (policy, problems) = policy { appAuthorization.usePolicy(policy, problems: problems) }
    for key in appAuthorization.keys() { reindexApp(key, at: now, into: &outputs) }
  }

  /// The apps of `uid` (nil: every user's), in key order.
  func appListings(uid: UInt32?, at now: Instant) -> [AppListing] {
    appAuthorization.keys().filter { uid == nil || $0.uid == uid }.map { appListing($0, at: now) }
  }

  /// One app, as `locctl apps` shows it.
  func appListing(_ key: AppKey, at now: Instant) -> AppListing {
    let r = appAuthorization.record(key) ?? AppRecord(key: key, firstSeen: now)
    let ids = appDelivery.sessions(of: key)
    let using = ids.contains { appDelivery.locationAccuracy(of: $0) != nil }
    return AppListing(
      key: key, authorization: appAuthorization.authorization(key), decidedBy: appAuthorization.decider(key),
      policyFile: appAuthorization.policyFile(key), sessions: ids.count,
      inUse: appDelivery.anyInUse(key, at: now), using: using, lastUsed: using ? now : r.lastUsed,
      verification: r.seenAs?.verification, unit: r.seenAs?.unit, purpose: r.purpose,
      registrations: r.registrations)
  }

  /// The apps part of `status` (the counters in the order status has always listed them).
  func appsReport(at now: Instant) -> AppsReport {
    AppsReport(
      using: appDelivery.using(), connected: appDelivery.connectedCount(),
      known: appAuthorization.knownCount(),
      agents: appPrompts.agentUsers(), pendingPrompts: appPrompts.pendingCount(),
      counters: appDelivery.counterList() + appPrompts.counterList() + appAuthorization.counterList(),
      problems: appAuthorization.problems())
  }
}
