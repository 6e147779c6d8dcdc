/// The sessions: who is connected with what access, what each subscribed to, and which
/// sessions get each kind of event. It decides whether a request is allowed and counts the
/// refusals.
struct SessionMachine: EngineMachine {
  /// One connected client.
  struct Session: Sendable {
    var peer: Peer
    var access: AccessLevel
    var app: String?
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

  private(set) var sessions: [SessionID: Session] = [:]
  /// Sessions that may read, by the event kinds they subscribed to, in id order.
  private var subscribers: [EventKind: [SessionID]] = [:]
  /// Requests refused for lack of permission.
  private(set) var permissionDenied = 0

  /// Clients connected (after hello).
  var count: Int { sessions.count }

  /// The sessions that get events of `kind`, in id order.
  func recipients(of kind: EventKind) -> [SessionID] { subscribers[kind] ?? [] }

  /// A client completed the hello.
  mutating func opened(_ id: SessionID, peer: Peer, access: AccessLevel, app: String?) {
    sessions[id] = Session(peer: peer, access: access, app: app)
  }

  /// A client went away.
  mutating func closed(_ id: SessionID) {
    sessions[id] = nil
    indexSubscribers()
  }

  /// Whether `id` may make `request`; a refusal is counted.
  mutating func admit(_ request: Request, from id: SessionID) -> Admission {
    guard let session = sessions[id] else { return .unknownSession }
    let needed = SessionMachine.access(needed: request)
    guard session.access >= needed else {
      permissionDenied += 1
      let what =
        needed == .admin
        ? "changing locd's state needs root or the admin group"
        : "reading locd's state needs root or the socket group"
      return .denied(RequestError(.permissionDenied, what))
    }
    return .allowed(session.peer)
  }

  /// Adds `kinds` to the session's subscriptions; returns them all after the change.
  mutating func subscribe(_ id: SessionID, to kinds: Set<EventKind>) -> Set<EventKind> {
    sessions[id]?.subscriptions.formUnion(kinds)
    indexSubscribers()
    return sessions[id]?.subscriptions ?? []
  }

  /// Removes `kinds` from the session's subscriptions; returns those left.
  mutating func unsubscribe(_ id: SessionID, from kinds: Set<EventKind>) -> Set<EventKind> {
    sessions[id]?.subscriptions.subtract(kinds)
    indexSubscribers()
    return sessions[id]?.subscriptions ?? []
  }

  /// The access a request needs.
  static func access(needed request: Request) -> AccessLevel {
    switch request {
    // Asking for a fresh fix needs no more than reading it: a reader can already keep the
    // receiver on by subscribing to `location` (docs/PRIVACY.md).
    case .status, .subscribe, .unsubscribe, .listTimers, .showTimer, .locate, .refresh, .wait: return .read
    case .setLocation, .clearLocation, .reload, .addTimer, .removeTimer: return .admin
    }
  }

  /// Recomputes `subscribers` after sessions or subscriptions change (rare; publishing is not).
  private mutating func indexSubscribers() {
    var index: [EventKind: [SessionID]] = [:]
    for (id, s) in sessions where s.access >= .read {
      for kind in s.subscriptions { index[kind, default: []].append(id) }
    }
    for kind in index.keys { index[kind]!.sort() }
    subscribers = index
  }
}
