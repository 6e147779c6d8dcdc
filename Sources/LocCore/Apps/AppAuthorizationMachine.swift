/// Who may have what (docs/APPS.md): the policy files, what is known about each app of each
/// user (its decision, purpose, registrations, launch unit), the bound on apps per user, how a
/// decision binds to the app as the kernel knew it, and apps.json's stored part.
///
/// Its state is private: the engine asks (`authorization`, `record`, `registrations`) and
/// tells (`change`, `apply`, `setRegistered`) through methods.
struct AppAuthorizationMachine: EngineMachine {
  /// The longest purpose string an app may give.
  static let maxPurposeBytes = 512

  /// The `[Apps]` settings (`MaxAppsPerUser=`).
  private var settings: AppsSettings
  /// The policy files in effect.
  private var policy = AppPolicy()
  /// Problems of the policy files, for status.
  private var policyProblems: [String] = []
  /// The problem apps.json had at start, if any.
  private var storeProblem: String? = nil
  /// What is known about each app.
  private var records: [AppKey: AppRecord] = [:]
  /// Records per user (bounded by `maxAppsPerUser`).
  private var perUser: [UInt32: Int] = [:]
  /// The stored part changed since the last write.
  private var storeChanged = false
  /// Whether the store was loaded (nothing is written before).
  private var loaded = false
  /// Counters: identities and launch units refused, apps over the bound, store problems.
  private var counters = Counters()

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
      // A policy's cap holds a temporary grant down too (it is never asked for then).
      a.temporaryFullAccuracy = a.temporaryFullAccuracy && a.accuracy == .full
      return a
    }
  }

  /// Who decided `key`'s authorization.
  func decider(_ key: AppKey) -> String? {
    if let preset = policy.rule(for: key)?.rule.preset, preset != .ask { return "policy" }
    return records[key]?.decidedBy?.rawValue
  }

  /// Whether a policy file decides `key` (it is never asked about).
  func isDecidedByPolicy(_ key: AppKey) -> Bool { (policy.rule(for: key)?.rule.preset ?? .ask) != .ask }

  /// The most accuracy the policy lets `key` have.
  func maxAccuracy(_ key: AppKey) -> AccuracyAuthorization {
    policy.rule(for: key)?.rule.maxAccuracy ?? .full
  }

  /// What is known about `key`, if anything.
  func record(_ key: AppKey) -> AppRecord? { records[key] }

  /// Every record, in key order.
  func allRecords() -> [AppRecord] { records.keys.sorted().map { records[$0]! } }

  /// The apps known, in key order.
  func keys() -> [AppKey] { records.keys.sorted() }

  /// The kinds `key` is registered for while not connected.
  func registrations(_ key: AppKey) -> Set<EventKind> { records[key]?.registrations ?? [] }

  /// How many apps user `uid` has (decided, registered or connected).
  func appCount(forUser uid: UInt32) -> Int { perUser[uid, default: 0] }

  /// The refusal for a user at the bound.
  func tooMany(_ uid: UInt32) -> RequestError {
    RequestError(
      .tooManyApps,
      "uid \(uid) has \(settings.maxAppsPerUser) apps already (MaxAppsPerUser=); reset some with 'locctl apps reset'"
    )
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

  /// The policy file that decides or caps `key`, if one does (for `locctl apps`).
  func policyFile(_ key: AppKey) -> String? {
    let entry = policy.rule(for: key)
    let capped = entry.map { $0.rule.preset != .ask || $0.rule.maxAccuracy == .reduced } ?? false
    return capped ? entry?.file : nil
  }

  /// Problems of apps.json and the policy files, for status.
  func problems() -> [String] { (storeProblem.map { [$0] } ?? []) + policyProblems }

  /// Apps known.
  func knownCount() -> Int { records.count }

  /// The counters, as status names them.
  func counterList() -> [Counter] { counters.all }

  /// Whether apps.json was loaded.
  func isLoaded() -> Bool { loaded }

  /// The stored part now.
  func store() -> AppStore {
    AppStore(records.values.filter(\.isWorthStoring).map(AppAuthorizationMachine.stored))
  }

  /// The apps registered for visits in apps.json.
  func visitRegistrations() -> [AppKey] {
    records.values.filter { $0.registrations.contains(.visit) }.map(\.key).sorted()
  }

  // MARK: Changes

  /// The `[Apps]` settings changed (start, reload).
  mutating func configure(_ settings: AppsSettings) { self.settings = settings }

  /// The policy files were read (at start or on reload).
  mutating func usePolicy(_ policy: AppPolicy, problems: [String]) {
    self.policy = policy
    self.policyProblems = problems
  }

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

  /// Forgets `key`'s record if there is nothing to keep in it (the engine checked that
  /// nobody is connected and nothing waits). Returns whether it was forgotten.
  mutating func forgetIfUnneeded(_ key: AppKey) -> Bool {
    guard let r = records[key], !r.isWorthStoring else { return false }
    records[key] = nil
    perUser[key.uid, default: 1] -= 1
    if perUser[key.uid] == 0 { perUser[key.uid] = nil }
    return true
  }

  /// A hello was refused because the claim contradicted the kernel.
  mutating func identityRefused() { counters.identityRefused += 1 }

  /// `key` was seen connected as `identity`.
  mutating func seen(_ key: AppKey, as identity: AppIdentity) { records[key]?.seenAs = identity }

  /// `key` received (or may receive) a position at `now`.
  mutating func used(_ key: AppKey, at now: Instant) { records[key]?.lastUsed = now }

  /// The purpose `key` gave with its request (stored when it is worth storing).
  mutating func setPurpose(_ purpose: String, for key: AppKey) {
    guard var r = records[key], r.purpose != purpose else { return }
    r.purpose = purpose
    records[key] = r
    storeChanged = storeChanged || r.isWorthStoring
  }

  /// Adds `kinds` (monitoring kinds) to `key`'s registrations.
  mutating func register(_ kinds: Set<EventKind>, for key: AppKey) {
    guard let r = records[key], !kinds.isSubset(of: r.registrations) else { return }
    records[key]?.registrations.formUnion(kinds)
    storeChanged = true
  }

  /// Takes `kinds` out of `key`'s registrations.
  mutating func unregister(_ kinds: Set<EventKind>, for key: AppKey) {
    guard let r = records[key], !r.registrations.isDisjoint(with: kinds) else { return }
    records[key]?.registrations.subtract(kinds)
    storeChanged = true
  }

  /// Marks `key` as registered for `kind` or not; true when that changed.
  mutating func setRegistered(_ kind: EventKind, _ on: Bool, for key: AppKey) -> Bool {
    guard let r = records[key], r.registrations.contains(kind) != on else { return false }
    if on { records[key]?.registrations.insert(kind) } else { records[key]?.registrations.remove(kind) }
    storeChanged = true
    return true
  }

  /// Ends an Allow Once of `key` (the app is no longer in use); true when it had one.
  mutating func endOnce(_ key: AppKey) -> Bool {
    guard let r = records[key], r.once else { return false }
    // Allow Once lasts while the app is in use; after that the app may ask again.
    var reset = AppRecord(key: key, firstSeen: r.firstSeen)
    reset.registrations = r.registrations
    reset.launchUnit = r.launchUnit
    reset.purpose = r.purpose
    reset.lastUsed = r.lastUsed
    reset.seenAs = r.seenAs
    records[key] = reset
    return true
  }

  /// Forgets `key`'s answer about temporary full accuracy (the app is no longer in use);
  /// returns what it was.
  mutating func endTemporary(_ key: AppKey) -> TemporaryAccuracy? {
    guard let was = records[key]?.temporary else { return nil }
    records[key]?.temporary = nil
    return was
  }

  /// Records the person's answer to prompt `p`.
  mutating func apply(_ answer: AgentAnswer, to p: AppPrompt, precise: Bool, at now: Instant) {
    let key = p.identity.key
    guard var r = records[key] else { return }
    if p.kind == .temporaryFullAccuracy {
      // Not a decision: nothing is stored, and it lasts while the app is in use.
      records[key]?.temporary = answer == .allowOnce ? .granted : .refused
      return
    }
    let accuracy = min(precise ? AccuracyAuthorization.full : .reduced, p.maxAccuracy)
    switch answer {
    case .allowOnce:
      (r.status, r.once, r.provisional, r.accuracy) = (.whenInUse, true, false, accuracy)
    case .allowWhileUsing:
      let always = p.requested == .always
      (r.status, r.once, r.provisional, r.accuracy) = (always ? .always : .whenInUse, false, always, accuracy)
    case .deny:
      (r.status, r.once, r.provisional) = (.denied, false, false)
    case .always:
      (r.status, r.provisional, r.upgradeAsked) = (.always, false, true)
    case .keepWhileUsing:
      (r.status, r.provisional, r.upgradeAsked) = (.whenInUse, false, true)
    }
    r.decidedBy = .agent
    r.decidedAt = now
    r.decidedFor = AppAuthorizationMachine.binding(p.identity)
    records[key] = r
    storeChanged = true
  }

  /// Grants, denies or resets `key` (access already checked): by the user (`locctl apps`),
  /// or by an agent of another face (GeoClue's AuthorizeApp, docs/GEOCLUE.md).
  mutating func change(_ key: AppKey, _ change: AppChange, by decider: AppRecord.Decider, at now: Instant)
    -> Result<Void, RequestError>
  {
    if let entry = policy.rule(for: key), entry.rule.preset != .ask {
      return .failure(
        RequestError(
          .failed, "\(key) is decided by the policy in \(entry.file) (\(entry.rule.preset.rawValue))"))
    }
    guard ensureRecord(key, at: now) else { return .failure(tooMany(key.uid)) }
    var r = records[key]!
    // A decision by hand replaces what the person answered for this use.
    r.temporary = nil
    switch change {
    case .grant(let level, let accuracy):
      r.status = level == .always ? .always : .whenInUse
      r.accuracy = min(accuracy, maxAccuracy(key))
      r.upgradeAsked = r.upgradeAsked || level == .always
      (r.once, r.provisional, r.decidedBy, r.decidedAt) = (false, false, decider, now)
      r.decidedFor = AppAuthorizationMachine.binding(r.seenAs)
    case .deny:
      (r.status, r.once, r.provisional, r.decidedBy, r.decidedAt) = (.denied, false, false, decider, now)
      r.decidedFor = AppAuthorizationMachine.binding(r.seenAs)
    case .reset:
      var fresh = AppRecord(key: key, firstSeen: r.firstSeen)
      fresh.seenAs = r.seenAs
      r = fresh
    }
    records[key] = r
    storeChanged = true
    return .success(())
  }

  /// `set-launch-unit` for `identity`'s app: the systemd unit started when the app has an
  /// event waiting and is not connected (nil: none). Kept only for an app the kernel vouches
  /// for (its Flatpak scope or its systemd app unit: a claimed id is anyone's word, and locd
  /// starts the unit as root), and only a service that is the app's own by systemd's
  /// convention for apps: `app-ID.service`, or `app-LAUNCHER-ID.service` with the launcher of
  /// the unit the app runs in. No template or instance (`@`): an instance would be a
  /// parameter the app picks.
  mutating func setLaunchUnit(_ unit: String?, for identity: AppIdentity) -> Result<AppKey, RequestError> {
    let key = identity.key
    guard records[key] != nil else {
      return .failure(RequestError(.internalError, "the app session is not known"))
    }
    guard identity.isVerified else {
      counters.launchUnitRefused += 1
      return .failure(
        RequestError(
          .notAuthorized,
          "a launch unit is kept only for an app the kernel vouches for (a Flatpak app, or a process in its systemd app unit); this session only says it is \(key.app)"
        ))
    }
    if let unit {
      let launcher = identity.unit.flatMap { PeerUnit.appName($0) }?.launcher
      guard AppAuthorizationMachine.isOwnLaunchUnit(unit, of: key.app, launcher: launcher) else {
        counters.launchUnitRefused += 1
        let example = launcher.map { "app-\($0)-\(key.app).service" } ?? "app-\(key.app).service"
        return .failure(
          RequestError(
            .invalidParams,
            "a launch unit must be the app's own service, app-\(key.app).service or \(example), without an instance"
          ))
      }
    }
    if records[key]?.launchUnit != unit {
      records[key]?.launchUnit = unit
      storeChanged = true
    }
    return .success(key)
  }

  /// The store read at start (nil: none yet, or unusable because of `problem`).
  mutating func load(_ store: AppStore?, problem: String?) {
    if let problem {
      counters.storeProblems += 1
      storeProblem = problem
    }
    for r in store?.records ?? [] where records[r.key] == nil {
      records[r.key] = r
      perUser[r.key.uid, default: 0] += 1
    }
    loaded = true
  }

  /// The regions apps.json held, taken out of the records (the regions machine keeps them
  /// from here on; the engine puts them back when it writes the store).
  mutating func takeStoredRegions() -> [(AppKey, [CircularRegion])] {
    var taken: [(AppKey, [CircularRegion])] = []
    for key in records.keys.sorted() where !(records[key]?.regions.isEmpty ?? true) {
      taken.append((key, records[key]!.regions))
      records[key]?.regions = []
    }
    return taken
  }

  /// An app's regions changed: apps.json is written again.
  mutating func regionsChanged() { storeChanged = true }

  /// Whether the stored part changed since the last call (the shell reads it when it
  /// writes: `Engine.appsStore`).
  mutating func takeStoreChanged() -> Bool {
    guard storeChanged, loaded else { return false }
    storeChanged = false
    return true
  }
}
