/// The engine's host for `BeaconMachine`: maps each session's monitors and ranging requests
/// (one per constraint and kind) to subscription ids, enforces the per-session limit, and
/// turns the machine's outputs into notices for the session that asked
/// (docs/decisions/0022-beacons-in-the-daemon.md).
struct BeaconSessionMachine: EngineMachine {
  /// Monitoring or ranging.
  enum Kind: Hashable, Sendable {
    case monitor, range
  }

  /// One session's request, as the session names it.
  struct Key: Hashable, Sendable {
    var session: SessionID
    var kind: Kind
    var constraint: BeaconConstraint
  }

  /// What happens to the requests besides starting and stopping them (which answer each with
  /// their own result): a beacon heard, time passing, a session going away.
  enum Input: Sendable, Hashable {
    /// A beacon was heard.
    case heard(BeaconSighting)
    /// The machine's deadline came.
    case tick
    /// A session went away: its requests end.
    case closed(SessionID)
  }

  /// What the engine delivers for one input.
  enum Delivery: Hashable, Sendable {
    /// Push `notice` to `session`.
    case notice(SessionID, Notice)
    /// Beacon scanning is needed (true) or not any more (false).
    case scanning(Bool)
  }

  /// Monitors plus ranging requests one session may have.
  static let perSessionLimit = 32

  private var machine = BeaconMachine()
  private var owners: [BeaconSubscriptionID: Key] = [:]
  private var ids: [Key: BeaconSubscriptionID] = [:]
  private var exitAfters: [BeaconSubscriptionID: Duration] = [:]
  private var nextID: UInt64 = 1
  /// Requests refused because the session had `perSessionLimit` already.
  private var refusedPerSession = 0
  /// Requests of app sessions refused by their authorization (not authorized, reduced).
  private var refusedApps = 0
  /// Lists and region changes an app session could not have then (the apps gate).
  private var notDeliveredToApps = 0

  /// Counts a request of an app session refused by its authorization.
  mutating func countRefusedApp() { refusedApps += 1 }

  /// Counts a list or region change an app session could not have then.
  mutating func countNotDeliveredToApp() { notDeliveredToApps += 1 }

  /// When the machine next needs a tick.
  var nextDeadline: Instant? { machine.nextDeadline }

  /// Whether beacon scanning is needed now.
  var scanningNeeded: Bool { machine.scanningNeeded }

  /// Starts (or restarts) `kind` of `constraint` for `session`; the reply's response, or
  /// why not, and what to deliver.
  mutating func start(
    _ key: Key, exitAfter: Duration?, at now: Instant
  ) -> (Result<Response, RequestError>, [Delivery]) {
    let existing = ids[key]
    if existing == nil, owners.values.filter({ $0.session == key.session }).count >= Self.perSessionLimit {
      refusedPerSession += 1
      return (
        .failure(
          RequestError(
            .failed, "at most \(Self.perSessionLimit) beacon monitors and ranging requests a client")),
        []
      )
    }
    let id = existing ?? BeaconSubscriptionID(nextID)
    let subscription: BeaconSubscription
    switch key.kind {
    case .monitor:
      subscription = .monitor(key.constraint, exitAfter: exitAfter ?? BeaconSubscription.defaultExitAfter)
    case .range: subscription = .range(key.constraint)
    }
    let outputs = machine.handle(.subscribe(id, subscription), at: now)
    for case .refused(_, let why) in outputs {
      let message =
        why == .invalidExitAfter
        ? "exitAfter must be above 0 seconds" : "locd serves as many beacon requests as it may"
      return (.failure(RequestError(why == .invalidExitAfter ? .invalidParams : .failed, message)), [])
    }
    if existing == nil { nextID += 1 }
    owners[id] = key
    ids[key] = id
    if case .monitor(_, let after) = subscription { exitAfters[id] = after }
    return (.success(response(for: id, key)), deliveries(outputs))
  }

  /// Stops `key`; `nil` when the session had no such request.
  mutating func stop(_ key: Key, at now: Instant) -> [Delivery]? {
    guard let id = ids[key] else { return nil }
    return remove(id, at: now)
  }

  /// Takes `input` at `now` and returns what to deliver, in order.
  mutating func handle(_ input: Input, at now: Instant) -> [Delivery] {
    switch input {
    case .heard(let sighting): heard(sighting, at: now)
    case .tick: tick(at: now)
    case .closed(let session): closed(session, at: now)
    }
  }

  /// A session went away: its requests end.
  private mutating func closed(_ session: SessionID, at now: Instant) -> [Delivery] {
    var out: [Delivery] = []
    for (id, key) in owners.sorted(by: { $0.key < $1.key }) where key.session == session {
      out += remove(id, at: now)
    }
    return out
  }

  /// A beacon was heard.
  private mutating func heard(_ sighting: BeaconSighting, at now: Instant) -> [Delivery] {
    // The outputs first, then read them against the state they left (not the state before).
    let outputs = machine.handle(.heard(sighting), at: now)
    return deliveries(outputs)
  }

  /// The machine's deadline came.
  private mutating func tick(at now: Instant) -> [Delivery] {
    let outputs = machine.handle(.tick, at: now)
    return deliveries(outputs)
  }

  /// What `status` shows.
  var report: BeaconStatus {
    let monitors = owners.values.filter { $0.kind == .monitor }.count
    let c = machine.counters
    return BeaconStatus(
      scanning: machine.scanningNeeded, monitors: monitors, ranging: owners.count - monitors,
      tracked: machine.trackedBeaconCount,
      counters: [
        Counter("sightings", c.sightings), Counter("unmatched", c.unmatched),
        Counter("evictedBeacons", c.evictedBeacons), Counter("refused", c.refused),
        Counter("clockWentBack", c.clockWentBack), Counter("refusedPerSession", refusedPerSession),
        Counter("refusedApps", refusedApps), Counter("notDeliveredToApps", notDeliveredToApps),
      ])
  }

  /// The sessions that have requests now, in id order.
  var sessionsWithRequests: [SessionID] { Set(owners.values.map(\.session)).sorted() }

  /// Whether any session has a request.
  var isEmpty: Bool { owners.isEmpty }

  /// The requests of `session`, for its status.
  func requests(of session: SessionID) -> [Key] {
    owners.values.filter { $0.session == session }.sorted {
      $0.constraint.description < $1.constraint.description
    }
  }

  private mutating func remove(_ id: BeaconSubscriptionID, at now: Instant) -> [Delivery] {
    guard let key = owners.removeValue(forKey: id) else { return [] }
    ids[key] = nil
    exitAfters[id] = nil
    let outputs = machine.handle(.unsubscribe(id), at: now)
    return deliveries(outputs)
  }

  private func response(for id: BeaconSubscriptionID, _ key: Key) -> Response {
    switch key.kind {
    case .range: return .beaconRanging(key.constraint)
    case .monitor:
      return .beaconMonitor(
        key.constraint, state: machine.regionState(id) ?? .unknown,
        exitAfter: exitAfters[id] ?? BeaconSubscription.defaultExitAfter)
    }
  }

  private func deliveries(_ outputs: [BeaconOutput]) -> [Delivery] {
    var out: [Delivery] = []
    for output in outputs {
      switch output {
      case .region(let id, let event):
        guard let key = owners[id] else { continue }
        let state = machine.regionState(id) ?? .unknown
        out.append(.notice(key.session, .beaconRegion(key.constraint, event, state: state)))
      case .ranged(let id, let list):
        guard let key = owners[id] else { continue }
        out.append(.notice(key.session, .beaconsRanged(key.constraint, list)))
      case .scanning(let needed):
        out.append(.scanning(needed))
      case .refused:
        break  // answered by `start`
      }
    }
    return out
  }
}
