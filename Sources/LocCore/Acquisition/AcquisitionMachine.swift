/// The engine's acquisition concern: the `Acquisition` phase machine, the one-shot `locate`
/// requests waiting for a fix, and what the shell was last told about receivers.
///
/// Inputs are the methods; outputs are the acquisition transitions to publish, the `locate`
/// answers to send, and (from `receiversChange()` and the deadlines) what the shell must do.
struct AcquisitionMachine: EngineMachine {
  /// One `locate` request waiting for a fix.
  struct PendingLocate: Sendable {
    var ref: RequestRef
    var accuracy: Meters
    var timeout: Duration
    var since: Instant
    var deadline: Instant
    var token: Int
  }

  /// What became of a `locate` request.
  enum LocateDecision: Sendable, Hashable {
    /// Answered at once.
    case answer(LocateAnswer)
    /// Refused (too many waiting on the connection).
    case refuse(RequestError)
    /// Waiting for a fix or its timeout.
    case wait
  }

  /// Most `locate` requests one session may have waiting: a client that wants a stream
  /// subscribes instead, and each waiting request holds memory until its timeout.
  static let maxLocatesPerSession = 16

  /// When fixes are wanted (idle, acquiring).
  private var acquisition: Acquisition
  /// `locate` requests waiting for a fix, oldest first.
  private var pending: [PendingLocate] = []
  /// The token the next `locate` request gets in `acquisition`.
  private var nextToken = 0
  /// What the shell was last told about receivers (nil: nothing yet).
  private var receiversTold: Bool?

  /// A machine for `policy`, idle.
  init(policy: Acquisition.Policy) { acquisition = Acquisition(policy: policy) }

  /// The acquisition state for status, with the waiting requests counted.
  var report: AcquisitionReport { acquisition.report(pendingLocates: pending.count) }

  /// Whether some `locate` request waits for a fix.
  var hasWaitingLocates: Bool { !pending.isEmpty }

  /// The instant the earliest waiting `locate` is answered with what there is.
  var locateDeadline: Instant? { pending.map(\.deadline).min() }

  /// The instant the current attempt gives up, if it can.
  var attemptDeadline: Instant? { acquisition.deadline }

  /// The next periodic refresh while idle.
  var refreshDue: Instant? { acquisition.isAcquiring ? nil : acquisition.nextRefresh }

  /// Whether receivers should be powered now.
  var isAcquiring: Bool { acquisition.isAcquiring }

  /// Whether a subscriber holds acquisition open: someone follows the position, not only
  /// asks for it once (policy `continuous` alone is no one).
  var hasHolders: Bool { acquisition.holders > 0 }

  /// Whether the last attempt gave up without a good fix (its retry back-off runs).
  var lastTimedOut: Bool { if case .timedOut? = acquisition.lastOutcome { true } else { false } }

  /// Acquisition starts (or goes on) for `trigger`.
  mutating func trigger(_ trigger: Acquisition.Trigger, at now: Instant) -> [Acquisition.Transition] {
    acquisition.trigger(trigger, at: now)
  }

  /// A valid fix came (`Acquisition.fix`).
  mutating func fix(_ c: Coordinate, of fix: Fix, at now: Instant) -> [Acquisition.Transition] {
    // The receiver's time, at most the clock (`FixAcceptance`: a fix's reference time).
    acquisition.fix(c, accuracy: fix.horizontalAccuracy, speed: fix.speed, time: min(fix.time, now), at: now)
  }

  /// Whether a candidate time zone still needs fixes.
  mutating func zoneWantsFixes(_ wants: Bool, at now: Instant) -> [Acquisition.Transition] {
    acquisition.zoneWantsFixes(wants, at: now)
  }

  /// The attempt's timeout fired.
  mutating func timedOut(at now: Instant) -> [Acquisition.Transition] { acquisition.timedOut(at: now) }

  /// The refresh timer fired.
  mutating func refresh(at now: Instant) -> [Acquisition.Transition] { acquisition.refreshDue(at: now) }

  /// The configuration's policy changed.
  mutating func update(_ policy: Acquisition.Policy, at now: Instant) -> [Acquisition.Transition] {
    acquisition.update(policy, at: now)
  }

  /// `subscribers` sessions now want continuous updates (they hold acquisition open).
  mutating func holders(_ subscribers: Int, at now: Instant) -> [Acquisition.Transition] {
    guard subscribers != acquisition.holders else { return [] }
    return acquisition.holder(subscribers - acquisition.holders, at: now)
  }

  /// After a clock step: the attempt and every waiting `locate` get their time again from now.
  mutating func clockStepped(at now: Instant) -> [Acquisition.Transition] {
    acquisition.clockStepped(at: now)
    var transitions: [Acquisition.Transition] = []
    for i in pending.indices {
      pending[i].deadline = now.adding(pending[i].timeout)
      pending[i].since = min(pending[i].since, now)
      let p = pending[i]
      transitions += acquisition.oneShot(p.token, until: p.deadline, at: now)
    }
    return transitions
  }

  /// A `locate` request: answered at once when `resolved` is good enough (or nothing can
  /// come), otherwise kept until a fix comes or the timeout passes. `sources` says why
  /// nothing can come (nil: some source may still deliver).
  mutating func locate(
    _ ref: RequestRef, timeout: Duration, accuracy: Meters, resolved: ResolvedPosition, sources: String?,
    at now: Instant
  ) -> (LocateDecision, [Acquisition.Transition]) {
    if LocateAnswer.satisfies(resolved, accuracy) || timeout <= .zero || sources != nil {
      let note =
        timeout <= .zero
        ? "answered at once (timeout 0)" : sources.map { "no source can deliver fixes (\($0))" }
      let answer = LocateAnswer(position: resolved, wanted: accuracy, waited: .zero, note: note)
      return (.answer(answer), [])
    }
    let max = AcquisitionMachine.maxLocatesPerSession
    guard pending.filter({ $0.ref.session == ref.session }).count < max else {
      let why = "\(max) locate requests already wait on this connection; subscribe to 'location' for a stream"
      return (.refuse(RequestError(.failed, why)), [])
    }
    let token = nextToken
    nextToken += 1
    let deadline = now.adding(timeout)
    pending.append(
      PendingLocate(
        ref: ref, accuracy: accuracy, timeout: timeout, since: now, deadline: deadline, token: token))
    return (.wait, acquisition.oneShot(token, until: deadline, at: now))
  }

  /// Answers the waiting requests `resolved` satisfies and those whose time is up.
  mutating func answerDue(_ resolved: ResolvedPosition, at now: Instant) -> (
    answers: [(RequestRef, LocateAnswer)], transitions: [Acquisition.Transition]
  ) {
    guard !pending.isEmpty else { return ([], []) }
    var waiting: [PendingLocate] = []
    var answered: [(PendingLocate, LocateAnswer)] = []
    for p in pending {
      let waited = now.duration(since: p.since)
      if LocateAnswer.satisfies(resolved, p.accuracy) {
        answered.append((p, LocateAnswer(position: resolved, wanted: p.accuracy, waited: waited, note: nil)))
      } else if now >= p.deadline {
        let note =
          "no fresh fix within \(TimeFormat.distance(p.accuracy)) came in \(TimeFormat.duration(p.timeout))"
        answered.append((p, LocateAnswer(position: resolved, wanted: p.accuracy, waited: waited, note: note)))
      } else {
        waiting.append(p)
      }
    }
    guard !answered.isEmpty else { return ([], []) }
    pending = waiting
    var transitions: [Acquisition.Transition] = []
    for (p, _) in answered { transitions += acquisition.release(p.token, at: now) }
    return (answered.map { ($0.0.ref, $0.1) }, transitions)
  }

  /// A session went away: its waiting `locate` requests go with it, never answered.
  mutating func drop(_ session: SessionID, at now: Instant) -> [Acquisition.Transition] {
    withdraw(session, at: now).transitions
  }

  /// Takes a session's waiting `locate` requests back (the caller answers them).
  mutating func withdraw(_ session: SessionID, at now: Instant) -> (
    requests: [RequestRef], transitions: [Acquisition.Transition]
  ) {
    let gone = pending.filter { $0.ref.session == session }
    guard !gone.isEmpty else { return ([], []) }
    pending.removeAll { $0.ref.session == session }
    return (gone.map(\.ref), gone.flatMap { acquisition.release($0.token, at: now) })
  }

  /// Whether receivers should now be powered, when that differs from what the shell was
  /// last told (nil: no change).
  mutating func receiversChange() -> Bool? {
    let active = acquisition.isAcquiring
    guard receiversTold != active else { return nil }
    receiversTold = active
    return active
  }
}
