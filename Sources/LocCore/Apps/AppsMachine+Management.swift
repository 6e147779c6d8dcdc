/// What `locctl apps` does, what status shows, and what the shell hands in (apps.json at
/// start, the policy files at start and on reload).
extension AppsMachine {
  /// Grants, denies or resets `key` (access already checked): by the user (`locctl apps`),
  /// or by an agent of another face (GeoClue's AuthorizeApp, docs/GEOCLUE.md).
  mutating func change(
    _ key: AppKey, _ change: AppChange, by decider: AppRecord.Decider = .user, at now: Instant,
    into outputs: inout [AppsOutput]
  )
    -> Result<AppListing, RequestError>
  {
    if let entry = policy.rule(for: key), entry.rule.preset != .ask {
      return .failure(
        RequestError(
          .failed, "\(key) is decided by the policy in \(entry.file) (\(entry.rule.preset.rawValue))"))
    }
    guard ensureRecord(key, at: now) else { return .failure(tooMany(key.uid)) }
    var r = records[key]!
    switch change {
    case .grant(let level, let accuracy):
      r.status = level == .always ? .always : .whenInUse
      r.accuracy = min(accuracy, policy.rule(for: key)?.rule.maxAccuracy ?? .full)
      r.upgradeAsked = r.upgradeAsked || level == .always
      (r.once, r.provisional, r.decidedBy, r.decidedAt) = (false, false, decider, now)
      r.decidedFor = AppsMachine.binding(r.seenAs)
    case .deny:
      (r.status, r.once, r.provisional, r.decidedBy, r.decidedAt) = (.denied, false, false, decider, now)
      r.decidedFor = AppsMachine.binding(r.seenAs)
    case .reset:
      var fresh = AppRecord(key: key, firstSeen: r.firstSeen)
      fresh.seenAs = r.seenAs
      r = fresh
      unanswered[key] = nil
    }
    records[key] = r
    storeChanged = true
    outputs.append(.decided(key, authorization(key), by: decider.rawValue))
    reindex(key: key, at: now, into: &outputs)
    let listing = listing(key, at: now)
    forgetIfIdle(key)
    return .success(listing)
  }

  /// The apps of `uid` (nil: every user's), in key order.
  func listing(uid: UInt32?, at now: Instant) -> [AppListing] {
    records.keys.filter { uid == nil || $0.uid == uid }.sorted().map { listing($0, at: now) }
  }

  /// One app, as `locctl apps` shows it.
  func listing(_ key: AppKey, at now: Instant) -> AppListing {
    let r = records[key] ?? AppRecord(key: key, firstSeen: now)
    let ids = sessions(of: key)
    let using = ids.contains {
      index.lists(.location).full.contains($0) || index.lists(.location).reduced.contains($0)
    }
    let entry = policy.rule(for: key)
    let capped = entry.map { $0.rule.preset != .ask || $0.rule.maxAccuracy == .reduced } ?? false
    return AppListing(
      key: key, authorization: authorization(key), decidedBy: decider(key),
      policyFile: capped ? entry?.file : nil,
      sessions: ids.count, inUse: anyInUse(key, at: now), using: using, lastUsed: using ? now : r.lastUsed,
      verification: r.seenAs?.verification, unit: r.seenAs?.unit, purpose: r.purpose,
      registrations: r.registrations)
  }

  /// The apps part of `status`.
  func report(at now: Instant) -> AppsReport {
    let location = index.lists(.location)
    var using: [AppUse] = []
    for (ids, accuracy) in [(location.full, AccuracyAuthorization.full), (location.reduced, .reduced)] {
      for id in ids {
        guard let s = sessions[id] else { continue }
        using.append(
          AppUse(
            key: s.key, verification: s.identity.verification, accuracy: accuracy,
            background: s.activity == .background))
      }
    }
    return AppsReport(
      using: using.sorted { $0.key < $1.key }, connected: sessions.count, known: records.count,
      agents: agents.keys.sorted(), pendingPrompts: prompts.values.reduce(0) { $0 + $1.count },
      counters: counters.all, problems: (storeProblem.map { [$0] } ?? []) + policyProblems)
  }

  /// The store read at start (nil: none yet, or unusable because of `problem`).
  mutating func load(_ store: AppStore?, problem: String?, at now: Instant, into outputs: inout [AppsOutput])
  {
    if let problem {
      counters.storeProblems += 1
      storeProblem = problem
    }
    for r in store?.records ?? [] where records[r.key] == nil {
      records[r.key] = r
      perUser[r.key.uid, default: 0] += 1
    }
    loaded = true
    for key in records.keys.sorted() { reindex(key: key, at: now, into: &outputs) }
  }

  /// The policy files were read (at start or on reload); every app is re-checked.
  mutating func configure(
    _ settings: AppsSettings, policy: AppPolicy, problems policyProblems: [String], at now: Instant,
    into outputs: inout [AppsOutput]
  ) {
    self.settings = settings
    self.policy = policy
    self.policyProblems = policyProblems
    for key in records.keys.sorted() { reindex(key: key, at: now, into: &outputs) }
  }
}
