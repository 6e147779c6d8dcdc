/// App sessions coming and going, and what they ask of the machine.
extension AppsMachine {
  /// An app session opened; nil when it may, else why not (the user has too many apps).
  mutating func open(
    _ id: SessionID, _ identity: AppIdentity, at now: Instant, into outputs: inout [AppsOutput]
  )
    -> RequestError?
  {
    let key = identity.key
    if let refusal = boundElsewhere(identity) {
      counters.identityRefused += 1
      return refusal
    }
    guard ensureRecord(key, at: now) else { return tooMany(key.uid) }
    records[key]?.seenAs = identity
    sessions[id] = AppSession(identity: identity)
    sessionsOf[key, default: []].append(id)
    reindex(key: key, at: now, into: &outputs)
    return nil
  }

  /// An app session closed: not in use any more; its app's prompts go if it was the last.
  mutating func close(_ id: SessionID, at now: Instant, into outputs: inout [AppsOutput]) {
    guard let s = sessions.removeValue(forKey: id) else { return }
    if index.lists(.location).full.contains(id) || index.lists(.location).reduced.contains(id) {
      records[s.key]?.lastUsed = now
    }
    index.remove(id)
    graceEnds[id] = nil
    sessionsOf[s.key]?.removeAll { $0 == id }
    if sessionsOf[s.key]?.isEmpty == true {
      sessionsOf[s.key] = nil
      withdrawPrompts(for: s.key, at: now, into: &outputs)
    }
    reindex(key: s.key, at: now, into: &outputs)
    forgetIfIdle(s.key)
  }

  /// `request-authorization`: answered from the policy or the decision if there is one,
  /// else the person is asked (through the user's agent). Returns the app's status now.
  mutating func request(
    _ level: AuthorizationLevel, purpose: String, from id: SessionID, at now: Instant,
    into outputs: inout [AppsOutput]
  ) -> AppStatusReport? {
    guard let key = sessions[id]?.key, var r = records[key] else { return nil }
    if r.purpose != purpose {
      r.purpose = purpose
      records[key] = r
      storeChanged = storeChanged || r.isWorthStoring
    }
    let decidedByPolicy = (policy.rule(for: key)?.rule.preset ?? .ask) != .ask
    if !decidedByPolicy, !r.once {
      if r.status == .notDetermined {
        prompt(.authorization, for: key, requested: level, at: now, into: &outputs)
      } else if r.status == .whenInUse, level == .always, !r.upgradeAsked {
        prompt(.upgrade, for: key, requested: .always, at: now, into: &outputs)
      }
    }
    tell(key, at: now, into: &outputs)
    return report(id, at: now)
  }

  /// `set-activity`: the app is in the foreground or not.
  mutating func setActivity(
    _ activity: AppActivity, of id: SessionID, at now: Instant, into outputs: inout [AppsOutput]
  )
    -> AppStatusReport?
  {
    guard var s = sessions[id] else { return nil }
    if activity == .background, s.activity == .foreground { s.leftForegroundAt = now }
    if activity == .foreground { s.leftForegroundAt = nil }
    s.activity = activity
    sessions[id] = s
    reindex(key: s.key, at: now, into: &outputs)
    return report(id, at: now)
  }

  /// `start-updates` (or a `location` subscription): location updates with `updates`' options.
  mutating func startUpdates(
    _ updates: AppSession.Updates, for id: SessionID, at now: Instant, into outputs: inout [AppsOutput]
  ) -> AppStatusReport? {
    guard var s = sessions[id] else { return nil }
    var u = updates
    u.startedInUse = s.inUse(at: now, grace: settings.inUseGrace)
    s.updates = u
    s.kinds.insert(.location)
    s.lastDelivered = nil
    s.lastTier = nil
    sessions[id] = s
    if u.distanceFilter != nil { filtered.insert(id) } else { filtered.remove(id) }
    reindex(key: s.key, at: now, into: &outputs)
    // Started (again) while it may have the location: the current answer at once.
    if let slot = index.slot(id, .location), slot != .held { greetings.insert(id) }
    return report(id, at: now)
  }

  /// `stop-updates` (or unsubscribing from `location`).
  mutating func stopUpdates(for id: SessionID, at now: Instant, into outputs: inout [AppsOutput]) {
    guard var s = sessions[id] else { return }
    s.updates = nil
    s.kinds.remove(.location)
    sessions[id] = s
    filtered.remove(id)
    reindex(key: s.key, at: now, into: &outputs)
  }

  /// `subscribe` from an app: only the kinds apps may have; monitoring kinds are registered
  /// (kept in apps.json, queued while the app is not connected if it has always).
  mutating func subscribe(
    _ id: SessionID, to kinds: Set<EventKind>, at now: Instant, into outputs: inout [AppsOutput]
  ) -> Result<Set<EventKind>, RequestError> {
    guard var s = sessions[id] else { return .success([]) }
    let refused = kinds.subtracting(EventKind.forApps)
    guard refused.isEmpty || kinds == Set(EventKind.allCases) else {
      let names = EventKind.forApps.sorted().map(\.rawValue).joined(separator: ", ")
      return .failure(RequestError(.permissionDenied, "apps may subscribe to \(names) only"))
    }
    // "all" does not start visit monitoring (it keeps the receiver waking every minute):
    // that takes `monitor-visits` or naming `visit`.
    var wanted = kinds.intersection(EventKind.forApps)
    if kinds == Set(EventKind.allCases) { wanted.remove(.visit) }
    if wanted.contains(.location), s.updates == nil {
      _ = startUpdates(AppSession.Updates(), for: id, at: now, into: &outputs)
      s = sessions[id]!
    }
    s.kinds.formUnion(wanted)
    sessions[id] = s
    let monitoring = wanted.filter(\.needsAlways)
    if let r = records[s.key], !monitoring.isSubset(of: r.registrations) {
      records[s.key]?.registrations.formUnion(monitoring)
      storeChanged = true
    }
    reindex(key: s.key, at: now, into: &outputs)
    return .success(s.kinds)
  }

  /// `unsubscribe` from an app.
  mutating func unsubscribe(
    _ id: SessionID, from kinds: Set<EventKind>, at now: Instant, into outputs: inout [AppsOutput]
  ) -> Set<EventKind> {
    guard sessions[id] != nil else { return [] }
    if kinds.contains(.location) { stopUpdates(for: id, at: now, into: &outputs) }
    sessions[id]?.kinds.subtract(kinds)
    let key = sessions[id]!.key
    let monitoring = kinds.filter(\.needsAlways)
    if let r = records[key], !r.registrations.isDisjoint(with: monitoring) {
      records[key]?.registrations.subtract(monitoring)
      storeChanged = true
    }
    reindex(key: key, at: now, into: &outputs)
    return sessions[id]?.kinds ?? []
  }

  /// What `locate` from app session `id` may get now.
  func locateVerdict(_ id: SessionID, at now: Instant) -> Verdict? {
    guard let s = sessions[id] else { return nil }
    return gate(s, .location, at: now)
  }

  /// A timer fired: grace windows that ended, prompts not answered, events too old.
  mutating func timerFired(at now: Instant, into outputs: inout [AppsOutput]) {
    var keys = Set<AppKey>()
    for (id, end) in graceEnds where end <= now {
      graceEnds[id] = nil
      if let key = sessions[id]?.key { keys.insert(key) }
    }
    expirePrompts(at: now, into: &outputs)
    for (key, events) in waiting
    where events.first.map({ now.duration(since: $0.at) >= settings.maxEventAge }) == true {
      keys.insert(key)
    }
    for key in keys.sorted() { reindex(key: key, at: now, into: &outputs) }
  }
}

extension AppsMachine {
  /// What a decision made for `identity` binds to: how the kernel knew the app, or nothing
  /// (the id alone) when it did not, or nobody was seen.
  static func binding(_ identity: AppIdentity?) -> AppIdentity.Verification? {
    guard let identity, identity.isVerified else { return nil }
    return identity.verification
  }

  /// The refusal of a session that only claims an id whose decision was made for the app as
  /// the kernel knows it (issue 28: a Flatpak's grant was used by a same-uid process that
  /// merely said its id); nil when the session may have the decision.
  func boundElsewhere(_ identity: AppIdentity) -> RequestError? {
    guard !identity.isVerified, let bound = records[identity.key]?.decidedFor else { return nil }
    let how = bound == .flatpak ? "the Flatpak app" : "the app in its systemd app unit"
    return RequestError(
      .identityMismatch,
      "\(identity.key.app)'s decision was made for \(how); a process outside it may not say it is \(identity.key.app)"
    )
  }
}
