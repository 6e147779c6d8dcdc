/// When locd wants fixes. A location manager must not keep a receiver powered "just in
/// case": it acquires a fix when it matters, stops once it has a good one, and falls back
/// cleanly when none comes. A small state machine: idle → acquiring → settled → idle.
///
/// Pure: instants in, transitions out. The engine publishes the transitions and, after every
/// event, arms its timers and tells the shell about receivers from the state (`isAcquiring`,
/// `deadline`, `nextRefresh`); docs/PRIVACY.md says when a receiver is powered.
public struct Acquisition: Sendable {
  /// The configuration in effect.
  public private(set) var policy: Policy
  /// The current phase.
  public private(set) var phase = Phase.idle
  /// What keeps acquisition going now.
  public private(set) var reasons: Set<Trigger> = []
  /// How the last attempt ended.
  public private(set) var lastOutcome: Outcome?
  /// The last change of phase.
  public private(set) var lastTransition: Transition?
  /// When the next refresh is due (idle only).
  public private(set) var nextRefresh: Instant?
  /// Consecutive timeouts, for the back-off.
  public private(set) var failures = 0
  /// Attempts started (idle → acquiring) since the daemon started.
  public private(set) var attempts = 0
  /// Continuous-update subscribers holding acquisition open.
  public private(set) var holders = 0
  /// One-shot requests waiting for a fix, by token, each with the instant it gives up.
  public private(set) var oneShots: [Int: Instant] = [:]
  /// The delay before `nextRefresh` as it was scheduled, to re-plan it after a clock step.
  private var refreshDelay: Duration = .zero
  private var goodStreak = 0
  private var lastGood: Sample?
  /// A candidate time zone still needs fixes: a good stable fix does not settle yet (the
  /// timeout still does), so the zone is decided in this attempt, not at the next refresh.
  private var zoneWantsFixes = false

  /// One good fix as stability sees it.
  struct Sample: Sendable {
    var coordinate: Coordinate
    /// Its accuracy, or `Fix.assumedAccuracy`.
    var accuracy: Meters
    /// The receiver's time of the fix.
    var time: Instant
    /// The speed the receiver reported, else the speed from the fix before (nil: unknown).
    var speed: MetersPerSecond?
  }

  /// A machine with a policy, idle.
  public init(policy: Policy) { self.policy = policy }

  /// The phase as a stage: `idle` or `acquiring`.
  public var stage: Stage {
    if case .acquiring = phase { return .acquiring }
    return .idle
  }

  /// Whether fixes are wanted now.
  public var isAcquiring: Bool { stage == .acquiring }

  /// Whether something holds acquisition open without a timeout (a continuous subscriber,
  /// policy `continuous`).
  public var isHeld: Bool { holders > 0 || policy.mode == .continuous }

  /// The instant the current attempt gives up, if it can.
  public var deadline: Instant? {
    if case .acquiring(_, let d) = phase { return d }
    return nil
  }

  /// Starts acquisition for `trigger`, or, when already acquiring, adds the reason and gives
  /// the attempt a full timeout from now (a new reason deserves a full try).
  public mutating func trigger(_ trigger: Trigger, at now: Instant) -> [Transition] {
    reasons.insert(trigger)
    switch phase {
    case .idle:
      goodStreak = 0
      lastGood = nil
      let deadline = isHeld ? nil : now.adding(policy.timeout)
      phase = .acquiring(since: now, deadline: deadline)
      nextRefresh = nil
      attempts += 1
      return [transition(.idle, .acquiring, .triggered(trigger), at: now)]
    case .acquiring(let since, let deadline):
      if trigger == .resume {
        // Fixes from before the sleep prove nothing about where the machine woke up.
        goodStreak = 0
        lastGood = nil
      }
      if isHeld {
        if deadline != nil { phase = .acquiring(since: since, deadline: nil) }
        return []
      }
      extend(to: now.adding(policy.timeout))
      return []
    }
  }

  /// A one-shot request (`token`) wants a fix until `until`: acquisition starts or goes on,
  /// at least until then, and does not settle while the request waits.
  public mutating func oneShot(_ token: Int, until: Instant, at now: Instant) -> [Transition] {
    oneShots[token] = until
    let started = trigger(.oneShot, at: now)
    extend(to: until)
    return started
  }

  /// One-shot request `token` was answered or dropped; acquisition may settle now.
  public mutating func release(_ token: Int, at now: Instant) -> [Transition] {
    guard oneShots.removeValue(forKey: token) != nil else { return [] }
    if oneShots.isEmpty { reasons.remove(.oneShot) }
    return settleIfStable(at: now)
  }

  /// A continuous subscriber came (+1) or went (-1).
  public mutating func holder(_ delta: Int, at now: Instant) -> [Transition] {
    holders = max(0, holders + delta)
    if delta > 0 { return trigger(.subscriber, at: now) }
    guard holders == 0 else { return [] }
    reasons.remove(.subscriber)
    guard policy.mode == .onDemand, case .acquiring(let since, nil) = phase else { return [] }
    // Held open until now: the attempt gets its normal timeout from here (or until the
    // latest waiting one-shot), and settles at once if it already has a stable fix.
    let deadline = max(now.adding(policy.timeout), oneShots.values.max() ?? now)
    phase = .acquiring(since: since, deadline: deadline)
    return settleIfStable(at: now, reason: .subscribersLeft(accuracy: policy.accuracy))
  }

  /// A valid fix arrived (accepted, or consistent with the current one), taken by the
  /// receiver at `time` (default: `now`) with its reported `speed`, if any. A fix without an
  /// accuracy counts as `Fix.assumedAccuracy`. It is stable when it lies where the good fix
  /// before said it would: within both accuracy radii of the distance the receiver could
  /// cover at its speed in between (the reported speed, else the speed of the two fixes
  /// before), so a receiver in a moving car settles as one on a desk does.
  public mutating func fix(
    _ coordinate: Coordinate, accuracy: Meters?, speed: MetersPerSecond? = nil, time: Instant? = nil,
    at now: Instant
  ) -> [Transition] {
    guard isAcquiring else { return [] }
    let radius = accuracy ?? Fix.assumedAccuracy
    guard radius <= policy.accuracy else {
      goodStreak = 0
      lastGood = nil
      return []
    }
    var sample = Sample(coordinate: coordinate, accuracy: radius, time: time ?? now, speed: speed)
    if let previous = lastGood {
      let elapsed = max(0, sample.time.seconds(since: previous.time))
      let distance = previous.coordinate.distance(to: coordinate).value
      let pace = speed ?? previous.speed
      let expected = (pace?.value ?? 0) * elapsed
      if sample.speed == nil, elapsed > 0 { sample.speed = MetersPerSecond(distance / elapsed) }
      if abs(distance - expected) <= previous.accuracy.value + radius.value {
        goodStreak += 1
      } else {
        goodStreak = 1
      }
    } else {
      goodStreak = 1
    }
    lastGood = sample
    return settleIfStable(at: now)
  }

  /// Whether a candidate time zone still needs fixes (see `zoneWantsFixes`); when it no
  /// longer does, a stable fix settles at once.
  public mutating func zoneWantsFixes(_ wants: Bool, at now: Instant) -> [Transition] {
    guard wants != zoneWantsFixes else { return [] }
    zoneWantsFixes = wants
    return wants ? [] : settleIfStable(at: now)
  }

  /// The acquisition timeout fired.
  public mutating func timedOut(at now: Instant) -> [Transition] {
    guard case .acquiring(_, let deadline?) = phase, now >= deadline else { return [] }
    oneShots.removeAll()
    reasons.remove(.oneShot)
    // A stable fix held back only by a one-shot that wanted better, or by a zone candidate
    // that wanted more fixes, still counts.
    let settled = settleIfStable(at: now, atTimeout: true)
    if !settled.isEmpty { return settled }
    failures += 1
    lastOutcome = .timedOut(at: now)
    // Back off: 1 min, 2, 4, ... capped at the refresh interval. Never a tight loop.
    var delay = policy.retryDelay
    for _ in 1..<failures where delay < policy.refreshInterval { delay = delay * 2 }
    delay = min(delay, policy.refreshInterval)
    let why = Reason.timedOut(accuracy: policy.accuracy, timeout: policy.timeout, retryIn: delay)
    return goIdle(at: now, refreshIn: delay, [transition(.acquiring, .idle, why, at: now)])
  }

  /// The refresh timer fired.
  public mutating func refreshDue(at now: Instant) -> [Transition] {
    guard case .idle = phase, let due = nextRefresh, now >= due else { return [] }
    return trigger(.refresh, at: now)
  }

  /// The wall clock was stepped: deadlines computed before mean nothing now. A running
  /// attempt gets a full timeout from now; a refresh waits at most its scheduled delay.
  /// (One-shot requests are re-registered by their owner with `oneShot`.)
  public mutating func clockStepped(at now: Instant) {
    switch phase {
    case .acquiring(let since, _?):
      phase = .acquiring(since: min(since, now), deadline: now.adding(policy.timeout))
    case .acquiring(let since, nil):
      // Held open: no deadline, but a start after the new now is no start at all.
      phase = .acquiring(since: min(since, now), deadline: nil)
    case .idle:
      guard let due = nextRefresh, due > now.adding(refreshDelay) else { return }
      nextRefresh = now.adding(refreshDelay)
    }
  }

  /// Replaces the policy (reload): `continuous` starts holding; leaving it lets a held-open
  /// attempt time out (or settle) normally; a shorter refresh interval applies at once.
  public mutating func update(_ policy: Policy, at now: Instant) -> [Transition] {
    self.policy = policy
    if policy.mode == .continuous { return trigger(.continuous, at: now) }
    reasons.remove(.continuous)
    switch phase {
    case .acquiring(let since, nil) where holders == 0:
      let deadline = max(now.adding(policy.timeout), oneShots.values.max() ?? now)
      phase = .acquiring(since: since, deadline: deadline)
      return settleIfStable(at: now)
    case .idle:
      guard let due = nextRefresh, due > now.adding(policy.refreshInterval) else { return [] }
      refreshDelay = policy.refreshInterval
      nextRefresh = now.adding(policy.refreshInterval)
      return []
    default:
      return []
    }
  }

  /// What status shows about acquisition.
  public func report(pendingLocates: Int) -> AcquisitionReport {
    var since: Instant? = nil
    if case .acquiring(let s, _) = phase { since = s }
    return AcquisitionReport(
      policy: policy, phase: stage, since: since, deadline: deadline, reasons: reasons.sorted(),
      lastTransition: lastTransition, lastOutcome: lastOutcome, nextRefresh: nextRefresh, failures: failures,
      attempts: attempts, subscribers: holders, pendingLocates: pendingLocates)
  }

  // MARK: Private

  /// Moves the deadline later (never earlier); an attempt that is not held always has one.
  private mutating func extend(to instant: Instant) {
    guard case .acquiring(let since, let deadline) = phase, !isHeld else { return }
    if let deadline, instant <= deadline { return }
    phase = .acquiring(since: since, deadline: instant)
  }

  /// Settles when a deadline-bound attempt has a stable good fix, no one-shot waits and (but
  /// at the timeout) no zone candidate wants more fixes.
  private mutating func settleIfStable(at now: Instant, reason: Reason? = nil, atTimeout: Bool = false)
    -> [Transition]
  {
    guard case .acquiring(_, _?) = phase, oneShots.isEmpty, let good = lastGood,
      goodStreak >= policy.stableFixes, atTimeout || !zoneWantsFixes
    else { return [] }
    failures = 0
    lastOutcome = .settled(at: now, accuracy: good.accuracy)
    let delay = policy.refreshInterval
    return goIdle(
      at: now, refreshIn: delay,
      [
        transition(.acquiring, .settled, reason ?? .stable(accuracy: policy.accuracy), at: now),
        transition(.settled, .idle, .released(refreshIn: delay), at: now),
      ])
  }

  /// Back to idle after `transitions`, with the next refresh in `delay`.
  private mutating func goIdle(at now: Instant, refreshIn delay: Duration, _ transitions: [Transition])
    -> [Transition]
  {
    phase = .idle
    reasons.removeAll()
    oneShots.removeAll()
    goodStreak = 0
    lastGood = nil
    refreshDelay = delay
    nextRefresh = now.adding(delay)
    return transitions
  }

  private mutating func transition(_ from: Stage, _ to: Stage, _ reason: Reason, at now: Instant)
    -> Transition
  {
    let t = Transition(from: from, to: to, reason: reason, at: now)
    lastTransition = t
    return t
  }
}
