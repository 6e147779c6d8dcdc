/// The sessions: who is connected with what access, what each subscribed to, and which
/// plain sessions get each kind of event. It decides whether a request is allowed and counts
/// the refusals. App sessions are here for admission only: their subscriptions and delivery
/// are the apps delivery machine's (`AppDeliveryMachine`).
struct SessionMachine: EngineMachine {
  /// One connected client.
  struct Session: Sendable {
    var peer: Peer
    var access: AccessLevel
    var isApp: Bool
    var subscriptions: Set<EventKind> = []
  }

  /// Whether a request may go on.
  enum Admission: Sendable, Hashable {
    /// The session is allowed; the request goes to its machine.
    case allowed(Peer)
    /// Refused, with the error to answer.
    case denied(RequestError)
    /// No such session (it went away meanwhile): nothing to answer.
    case unknownSession
  }

  private var sessions: [SessionID: Session] = [:]
  /// Sessions that may read, by the event kinds they subscribed to, in id order.
  private var subscribers: [EventKind: [SessionID]] = [:]
  /// Requests refused for lack of permission.
  private(set) var permissionDenied = 0

  /// Clients connected (after hello).
  var count: Int { sessions.count }

  /// The sessions that get events of `kind`, in id order.
  func recipients(of kind: EventKind) -> [SessionID] { subscribers[kind] ?? [] }

  /// A client completed the hello.
  mutating func opened(_ id: SessionID, peer: Peer, access: AccessLevel, isApp: Bool) {
    sessions[id] = Session(peer: peer, access: access, isApp: isApp)
    reindex(id)
  }

  /// The open session `id` (nil: none, or it went away).
  func session(_ id: SessionID) -> Session? { sessions[id] }

  /// Whether `id` is an app's session.
  func isApp(_ id: SessionID) -> Bool { sessions[id]?.isApp ?? false }

  /// The access level of session `id`.
  func access(of id: SessionID) -> AccessLevel? { sessions[id]?.access }

  /// The peer of session `id`.
  func peer(_ id: SessionID) -> Peer? { sessions[id]?.peer }

  /// A client went away.
  mutating func closed(_ id: SessionID) {
    sessions[id] = nil
    reindex(id)
  }

  /// Whether `id` may make `request`; a refusal is counted. An app session may make the
  /// requests of apps only, whatever its uid's access level: it gets the position through its
  /// authorization, never through a group (docs/APPS.md).
  mutating func admit(_ request: Request, from id: SessionID) -> Admission {
    guard let session = sessions[id] else { return .unknownSession }
    if let why = SessionMachine.refusal(SessionMachine.access(needed: request), session) {
      permissionDenied += 1
      return .denied(RequestError(.permissionDenied, why))
    }
    return .allowed(session.peer)
  }

  /// Why `session` may not make a request that needs `needed`, or nil if it may.
  static func refusal(_ needed: Requirement, _ session: Session) -> String? {
    func missing(_ level: AccessLevel) -> String {
      level == .admin
        ? "changing locd's state needs root or the admin group"
        : "reading locd's state needs root or the socket group"
    }
    switch needed {
    case .app:
      return session.isApp ? nil : "only an app (a session whose hello names one) may make this request"
    case .plain(let level):
      if session.isApp {
        return "an app session may not make this request; apps get the position through their authorization"
      }
      return session.access >= level ? nil : missing(level)
    case .appOrPlain(let level):
      return session.isApp || session.access >= level ? nil : missing(level)
    }
  }

  /// The session's access is now `level` (a reload changed the groups, an authorization
  /// changed): subscriptions the new access does not allow are removed. Nil when the
  /// session is unknown or its access is what it was. The session is told (an
  /// `access-changed` event) when it subscribed to that kind or lost a subscription: a
  /// session that only asks and reads answers learns it from its next answer.
  mutating func changeAccess(_ id: SessionID, to level: AccessLevel, reason: AccessChangeReason) -> (
    change: AccessChange, tell: Bool
  )? {
    guard var session = sessions[id], session.access != level else { return nil }
    let kept = session.subscriptions.filter { SessionMachine.access(toReceive: $0) <= level }
    let change = AccessChange(
      from: session.access, to: level, reason: reason, unsubscribed: session.subscriptions.subtracting(kept),
      subscriptions: kept)
    let tell = session.subscriptions.contains(.accessChanged) || !change.unsubscribed.isEmpty
    session.access = level
    session.subscriptions = kept
    sessions[id] = session
    reindex(id)
    return (change, tell)
  }

  /// Adds `kinds` to the session's subscriptions; returns them all after the change.
  mutating func subscribe(_ id: SessionID, to kinds: Set<EventKind>) -> Set<EventKind> {
    sessions[id]?.subscriptions.formUnion(kinds)
    reindex(id)
    return sessions[id]?.subscriptions ?? []
  }

  /// Removes `kinds` from the session's subscriptions; returns those left.
  mutating func unsubscribe(_ id: SessionID, from kinds: Set<EventKind>) -> Set<EventKind> {
    sessions[id]?.subscriptions.subtract(kinds)
    reindex(id)
    return sessions[id]?.subscriptions ?? []
  }

  /// Who may make a request.
  enum Requirement: Sendable, Hashable {
    /// Plain sessions of at least this level.
    case plain(AccessLevel)
    /// App sessions.
    case app
    /// App sessions (through their authorization), and plain sessions of at least this level.
    case appOrPlain(AccessLevel)
  }

  /// Who may make `request`.
  static func access(needed request: Request) -> Requirement {
    switch request {
    // Asking for a fresh fix needs no more than reading it: a reader can already keep the
    // receiver on by subscribing to `location` (docs/PRIVACY.md).
    case .status, .listTimers, .showTimer, .refresh, .wait, .sky: return .plain(.read)
    case .subscribe, .unsubscribe, .locate: return .appOrPlain(.read)
    case .setLocation, .clearLocation, .reload, .addTimer, .removeTimer: return .plain(.admin)
    case .requestAuthorization, .requestTemporaryFullAccuracy, .setActivity, .startUpdates, .stopUpdates:
      return .app
    case .registerRegion, .unregisterRegion, .regionState, .monitorVisits, .setLaunchUnit: return .app
    // Anyone manages their own apps and answers for them; other users' apps need admin
    // (checked where the uid is known).
    case .registerAgent, .answerPrompt, .listApps, .changeApp: return .plain(.none)
    case .rangeBeacons, .stopRangingBeacons, .monitorBeacons, .stopMonitoringBeacons:
      return .appOrPlain(beaconAccess)
    // Which way the device points is no position, but it is the device's own state: what
    // reading the position needs (an app's delivery is gated by the engine, decision 0054).
    case .startHeading, .stopHeading: return .appOrPlain(.read)
    // The schedule is the caller's own, worked out for a place no finer than a city
    // (decision 0065): every local user may have it, without read access. Apps get light and
    // dark through the desktop's portal, never the times.
    case .lightDark, .setMode: return .plain(.none)
    }
  }

  /// The access a subscription to `kind` needs: every kind tells something about the
  /// position or what follows from it (zone, sun, timers), so reading.
  static func access(toReceive kind: EventKind) -> AccessLevel { .read }

  /// The one seam for beacon authorization: beacon identities are location data
  /// (docs/BEACONS.md), so they need what coordinates need: read access from a plain
  /// session; from an app session, its authorization (checked by the engine:
  /// `Engine.beaconRefusal`, decision 0029).
  static let beaconAccess = AccessLevel.read

  /// Brings `subscribers` up to date for session `id` after it, its access or its
  /// subscriptions changed: in place, a binary search a kind, not a rebuild of every list
  /// (2,000 subscribers coming and going made the rebuild and its sort most of the loop's time).
  private mutating func reindex(_ id: SessionID) {
    var wanted: Set<EventKind> = []
    if let s = sessions[id], !s.isApp {
      wanted = s.subscriptions.filter { s.access >= SessionMachine.access(toReceive: $0) }
    }
    for kind in EventKind.allCases {
      let want = wanted.contains(kind)
      guard want || subscribers[kind] != nil else { continue }
      SessionMachine.place(id, want, in: &subscribers[kind, default: []])
      if subscribers[kind]?.isEmpty == true { subscribers[kind] = nil }
    }
  }

  /// Puts `id` into the sorted `list` or takes it out, in place (binary search).
  static func place(_ id: SessionID, _ present: Bool, in list: inout [SessionID]) {
    var low = 0
    var high = list.count
    while low < high {
      let mid = (low + high) / 2
      if list[mid] < id { low = mid + 1 } else { high = mid }
    }
    let there = low < list.count && list[low] == id
    if present && !there { list.insert(id, at: low) }
    if !present && there { list.remove(at: low) }
  }
}
