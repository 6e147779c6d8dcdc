/// The apps concern (docs/APPS.md): who is an app, what each may have, whether it is in use,
/// the agents that answer for users and their prompts, events held or queued for apps, and
/// the index of sessions that may receive each kind of event now.
///
/// Every app-facing event goes through one gate (`gate`): authorization × in use ×
/// accuracy. The index (`DeliveryIndex`) caches its verdict per session and kind and is
/// updated when an input changes one (authorization, activity, grace windows, updates,
/// subscriptions), so a fix costs nothing for apps that may not have it. Deadlines (grace
/// windows, prompts, waiting events) come out as one earliest instant (`nextDeadline`).
struct AppsMachine: EngineMachine {
  /// The longest purpose string an app may give.
  static let maxPurposeBytes = 512

  /// The `[Apps]` settings.
  var settings: AppsSettings
  /// The policy files in effect.
  var policy = AppPolicy()
  /// Problems of the policy files, for status.
  var policyProblems: [String] = []
  /// The problem apps.json had at start, if any.
  var storeProblem: String? = nil
  /// What is known about each app.
  var records: [AppKey: AppRecord] = [:]
  /// Records per user (bounded by `maxAppsPerUser`).
  var perUser: [UInt32: Int] = [:]
  /// Connected app sessions.
  var sessions: [SessionID: AppSession] = [:]
  /// The sessions of each app, in id order.
  var sessionsOf: [AppKey: [SessionID]] = [:]
  /// The agent of each user.
  var agents: [UInt32: AgentID] = [:]
  /// Prompts per user, oldest first; the first is the one put to the agent.
  var prompts: [UInt32: [AppPrompt]] = [:]
  /// Where each app's request stands.
  var promptStates: [AppKey: PromptState] = [:]
  /// When an app's last prompt went unanswered (for `promptInterval`).
  var unanswered: [AppKey: Instant] = [:]
  /// Events waiting for an app (held or queued), oldest first.
  var waiting: [AppKey: [WaitingEvent]] = [:]
  /// Grace windows running out, by session.
  var graceEnds: [SessionID: Instant] = [:]
  /// Who may receive what now.
  var index = DeliveryIndex()
  /// The reduced-accuracy cell.
  var grid = ReducedGrid()
  /// Counters.
  var counters = AppCounters()
  /// Sessions that may have the location now and did not (or restarted their updates):
  /// the engine gives each the current answer once (`takeGreetings`).
  var greetings: Set<SessionID> = []
  /// The number of the next prompt.
  var nextPrompt: UInt64 = 1
  /// The stored part changed since the last write.
  var storeChanged = false
  /// Whether the store was loaded (nothing is written before).
  var loaded = false

  /// A machine with `settings`, no apps.
  init(settings: AppsSettings) { self.settings = settings }

  // MARK: Queries

  /// The authorization in effect for `key`: the policy's answer if it has one, else the
  /// decision, with its accuracy capped by the policy.
  func authorization(_ key: AppKey) -> AppAuthorization {
    let entry = policy.rule(for: key)
    let cap = entry?.rule.maxAccuracy ?? .full
    switch entry?.rule.preset ?? .ask {
    case .restricted: return AppAuthorization(.restricted)
    case .denied: return AppAuthorization(.denied)
    case .whenInUse: return AppAuthorization(.whenInUse, accuracy: cap)
    case .always: return AppAuthorization(.always, accuracy: cap)
    case .ask:
      var a = records[key]?.authorization ?? .notDetermined
      a.accuracy = min(a.accuracy, cap)
      return a
    }
  }

  /// Who decided `key`'s authorization.
  func decider(_ key: AppKey) -> String? {
    if let preset = policy.rule(for: key)?.rule.preset, preset != .ask { return "policy" }
    return records[key]?.decidedBy?.rawValue
  }

  /// The verdict of the gate.
  enum Verdict: Sendable, Hashable {
    /// Deliver, at this accuracy.
    case deliver(AccuracyAuthorization)
    /// Hold it while the person is asked to upgrade (provisional always, not in use).
    case hold
    /// Not now: the authorization, or not being in use, does not allow it.
    case refuse(AppAuthorization, inUse: Bool)
  }

  /// The gate: what session `s` may get of an event of `kind` now.
  func gate(_ s: AppSession, _ kind: EventKind, at now: Instant) -> Verdict {
    let a = authorization(s.key)
    guard kind.isGated else { return .deliver(a.accuracy) }
    let inUse = s.inUse(at: now, grace: settings.inUseGrace)
    guard a.allowsInUse else { return .refuse(a, inUse: inUse) }
    if inUse || a.allowsBackground { return .deliver(min(a.accuracy, s.updates?.accuracy ?? .full)) }
    return a.provisional && kind.needsAlways ? .hold : .refuse(a, inUse: false)
  }

  /// The error for a request the gate refused.
  static func refusal(_ key: AppKey, _ a: AppAuthorization, inUse: Bool) -> RequestError {
    switch a.status {
    case .notDetermined:
      return RequestError(.notAuthorized, "\(key.app) is not authorized yet; ask with request-authorization")
    case .restricted:
      return RequestError(.notAuthorized, "\(key.app) may not use the location (restricted by policy)")
    case .denied: return RequestError(.notAuthorized, "\(key.app) was denied the location")
    case .whenInUse, .always:
      return RequestError(
        .notAuthorized, "\(key.app) is authorized when in use and is not in use (say set-activity foreground)"
      )
    }
  }

  /// What `session` is told about its authorization now.
  func report(_ id: SessionID, at now: Instant) -> AppStatusReport? {
    guard let s = sessions[id] else { return nil }
    return AppStatusReport(
      identity: s.identity, authorization: authorization(s.key), prompt: promptStates[s.key] ?? .none,
      inUse: s.inUse(at: now, grace: settings.inUseGrace), decidedBy: decider(s.key))
  }

  /// The sessions of `key`.
  func sessions(of key: AppKey) -> [SessionID] { sessionsOf[key] ?? [] }

  /// Whether any session of `key` is in use.
  func anyInUse(_ key: AppKey, at now: Instant) -> Bool {
    sessions(of: key).contains { sessions[$0]?.inUse(at: now, grace: settings.inUseGrace) == true }
  }

  /// The earliest instant something changes by itself: a grace window ends, a prompt times
  /// out, a waiting event grows too old.
  var nextDeadline: Instant? {
    var earliest = graceEnds.values.min()
    for queue in prompts.values {
      if let d = queue.first?.deadline { earliest = min(earliest ?? d, d) }
    }
    for events in waiting.values {
      if let first = events.first {
        let d = first.at.adding(settings.maxEventAge)
        earliest = min(earliest ?? d, d)
      }
    }
    return earliest
  }

  // MARK: Records

  /// The record of `key`, made if it is new and the user may have one more.
  mutating func ensureRecord(_ key: AppKey, at now: Instant) -> Bool {
    if records[key] != nil { return true }
    guard perUser[key.uid, default: 0] < settings.maxAppsPerUser else {
      counters.tooManyApps += 1
      return false
    }
    records[key] = AppRecord(key: key, firstSeen: now)
    perUser[key.uid, default: 0] += 1
    return true
  }

  /// Forgets `key`'s record if there is nothing to keep and nobody connected.
  mutating func forgetIfIdle(_ key: AppKey) {
    guard let r = records[key], !r.isWorthStoring, sessions(of: key).isEmpty, waiting[key] == nil else {
      return
    }
    records[key] = nil
    perUser[key.uid, default: 1] -= 1
    if perUser[key.uid] == 0 { perUser[key.uid] = nil }
    promptStates[key] = nil
    // `unanswered` stays: an app that reconnects is not asked again before PromptInterval=.
  }

  /// How many apps user `uid` has (decided, registered or connected).
  func appCount(forUser uid: UInt32) -> Int { perUser[uid, default: 0] }

  /// The refusal for a user at the bound.
  func tooMany(_ uid: UInt32) -> RequestError {
    RequestError(
      .tooManyApps,
      "uid \(uid) has \(settings.maxAppsPerUser) apps already (MaxAppsPerUser=); reset some with 'locctl apps reset'"
    )
  }

  /// The sessions to give the current answer to, in id order; emptied.
  mutating func takeGreetings() -> [SessionID] {
    defer { greetings = [] }
    return greetings.sorted().filter { sessions[$0] != nil }
  }

  /// The stored part, if it changed since the last call.
  mutating func takeStore() -> AppStore? {
    guard storeChanged, loaded else { return nil }
    storeChanged = false
    return store
  }

  /// The stored part now.
  var store: AppStore { AppStore(records.values.filter(\.isWorthStoring).map(AppsMachine.stored)) }

  /// A record as it is stored: a once-grant is not (the app is not determined after a
  /// restart), nor how it was last seen.
  static func stored(_ r: AppRecord) -> AppRecord {
    var copy = r
    copy.seenAs = nil
    if copy.once {
      copy.once = false
      copy.status = .notDetermined
      copy.accuracy = .full
      copy.decidedBy = nil
      copy.decidedAt = nil
    }
    return copy
  }
}
