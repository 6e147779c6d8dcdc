/// When locd wants fixes. A location manager must not keep a receiver powered "just in
/// case": it acquires a fix when it matters, stops once it has a good one, and falls back
/// cleanly when none comes. A small state machine: idle → acquiring → settled → idle.
public struct Acquisition: Sendable {
  /// Configuration (locd.conf `[Acquisition]`).
  public struct Policy: Sendable, Hashable {
    /// `continuous` keeps the receiver on (vehicles); `onDemand` (default) lets it sleep.
    public enum Mode: String, Sendable, Hashable {
      case continuous
      case onDemand = "on-demand"
    }
    /// The mode.
    public var mode = Mode.onDemand
    /// A periodic refresh, so a slow drift is still noticed.
    public var refreshInterval: Duration = .seconds(15 * 60)
    /// Give up acquiring after this long.
    public var timeout: Duration = .seconds(60)
    /// A fix at least this accurate settles.
    public var accuracy: Meters = 50
    /// How many consecutive good fixes, each inside the previous one's accuracy circle,
    /// make a fix stable.
    public var stableFixes = 2
    /// First retry delay after a timeout; doubles each time up to `refreshInterval`.
    public var retryDelay: Duration = .seconds(60)
    /// The defaults.
    public init() {}
  }

  /// Why acquisition started.
  public enum Trigger: String, Sendable, Hashable, Comparable, CaseIterable {
    /// The daemon started.
    case start
    /// The machine resumed from suspend.
    case resume
    /// A client asked for one position (`locate`).
    case oneShot = "one-shot"
    /// A client subscribed to continuous updates.
    case subscriber
    /// The periodic refresh (or a retry after a timeout).
    case refresh
    /// `locctl refresh`.
    case manual
    /// Policy `continuous`.
    case continuous
    public static func < (a: Trigger, b: Trigger) -> Bool { a.rawValue < b.rawValue }
  }

  /// Where the machine is.
  public enum Phase: Sendable, Hashable {
    /// Not wanting fixes; the receiver may sleep.
    case idle
    /// Wanting fixes, since `since`, giving up at `deadline` (nil: held open, no timeout).
    case acquiring(since: Instant, deadline: Instant?)
  }

  /// How the last attempt ended.
  public enum Outcome: Sendable, Hashable {
    /// A good, stable fix came.
    case settled(at: Instant, accuracy: Meters?)
    /// No good fix before the timeout.
    case timedOut(at: Instant)
  }

  /// What the state machine asks for.
  public enum Output: Sendable, Hashable {
    /// Receivers on (true) or allowed to sleep (false).
    case receiverActive(Bool)
    /// Arm the acquisition timeout (nil: disarm).
    case timeout(at: Instant?)
    /// Arm the next refresh (nil: disarm).
    case refresh(at: Instant?)
    /// A transition, for status and events: the new phase name and why.
    case transition(from: String, to: String, reason: String)
  }

  /// The configuration in effect.
  public private(set) var policy: Policy
  /// The current phase.
  public private(set) var phase = Phase.idle
  /// What keeps acquisition going now.
  public private(set) var reasons: Set<Trigger> = []
  /// How the last attempt ended.
  public private(set) var lastOutcome: Outcome?
  /// When the next refresh is due (idle only).
  public private(set) var nextRefresh: Instant?
  /// Consecutive timeouts, for the back-off.
  public private(set) var failures = 0
  /// Continuous-update subscribers holding acquisition open.
  public private(set) var holders = 0
  private var goodStreak = 0
  private var lastGood: (coordinate: Coordinate, accuracy: Meters)?

  /// A machine with a policy, idle.
  public init(policy: Policy) { self.policy = policy }

  /// The phase's name: "idle" or "acquiring".
  public var phaseName: String {
    if case .acquiring = phase { return "acquiring" }
    return "idle"
  }

  /// Whether fixes are wanted now.
  public var isAcquiring: Bool { phaseName == "acquiring" }

  /// Starts (or extends) acquisition for `trigger`.
  public mutating func trigger(_ trigger: Trigger, at now: Instant) -> [Output] {
    reasons.insert(trigger)
    var out: [Output] = []
    if case .idle = phase {
      goodStreak = 0
      lastGood = nil
      let held = holders > 0 || policy.mode == .continuous
      phase = .acquiring(since: now, deadline: held ? nil : now.adding(policy.timeout))
      nextRefresh = nil
      out.append(.transition(from: "idle", to: "acquiring", reason: trigger.rawValue))
      out.append(.receiverActive(true))
      out.append(.refresh(at: nil))
      out.append(.timeout(at: held ? nil : now.adding(policy.timeout)))
    }
    return out
  }

  /// A continuous subscriber came (+1) or went (-1).
  public mutating func holder(_ delta: Int, at now: Instant) -> [Output] {
    holders = max(0, holders + delta)
    if delta > 0 {
      var out = trigger(.subscriber, at: now)
      if case .acquiring(let since, .some) = phase {
        phase = .acquiring(since: since, deadline: nil)
        out.append(.timeout(at: nil))
      }
      return out
    }
    guard holders == 0, policy.mode == .onDemand, case .acquiring(let since, nil) = phase else { return [] }
    reasons.remove(.subscriber)
    // Held open until now: give the attempt its normal timeout from here.
    phase = .acquiring(since: since, deadline: now.adding(policy.timeout))
    if let good = lastGood, good.accuracy <= policy.accuracy, goodStreak >= policy.stableFixes {
      return settle(at: now, accuracy: good.accuracy, reason: "last continuous subscriber left")
    }
    return [.timeout(at: now.adding(policy.timeout))]
  }

  /// An accepted fix arrived.
  public mutating func fix(_ coordinate: Coordinate, accuracy: Meters?, at now: Instant) -> [Output] {
    guard case .acquiring(_, let deadline) = phase else { return [] }
    guard let accuracy, accuracy <= policy.accuracy else {
      goodStreak = 0
      lastGood = nil
      return []
    }
    if let previous = lastGood, previous.coordinate.distance(to: coordinate).value <= previous.accuracy.value + accuracy.value {
      goodStreak += 1
    } else {
      goodStreak = 1
    }
    lastGood = (coordinate, accuracy)
    guard goodStreak >= policy.stableFixes, deadline != nil else { return [] }
    return settle(at: now, accuracy: accuracy, reason: "fix within \(Int(policy.accuracy.value)) m, stable")
  }

  /// The acquisition timeout fired.
  public mutating func timedOut(at now: Instant) -> [Output] {
    guard case .acquiring(_, let deadline?) = phase, now >= deadline else { return [] }
    failures += 1
    lastOutcome = .timedOut(at: now)
    // Back off: 1 min, 2, 4, ... capped at the refresh interval. Never a tight loop.
    var delay = policy.retryDelay
    for _ in 1..<failures where delay < policy.refreshInterval { delay = delay * 2 }
    delay = min(delay, policy.refreshInterval)
    return goIdle(at: now, refreshIn: delay, to: "idle", reason: "no good fix in \(Int(policy.timeout.seconds)) s")
  }

  /// The refresh timer fired.
  public mutating func refreshDue(at now: Instant) -> [Output] {
    guard case .idle = phase, let due = nextRefresh, now >= due else { return [] }
    return trigger(.refresh, at: now)
  }

  /// Replaces the policy (reload); a held-open or running attempt keeps going.
  public mutating func update(_ policy: Policy, at now: Instant) -> [Output] {
    self.policy = policy
    if policy.mode == .continuous { return trigger(.continuous, at: now) }
    return []
  }

  private mutating func settle(at now: Instant, accuracy: Meters, reason: String) -> [Output] {
    failures = 0
    lastOutcome = .settled(at: now, accuracy: accuracy)
    return goIdle(at: now, refreshIn: policy.refreshInterval, to: "settled", reason: reason)
  }

  /// Back to idle; `to` names the transition ("settled" passes through to idle at once).
  private mutating func goIdle(at now: Instant, refreshIn delay: Duration, to: String, reason: String) -> [Output] {
    phase = .idle
    reasons.removeAll()
    goodStreak = 0
    lastGood = nil
    nextRefresh = now.adding(delay)
    return [
      .transition(from: "acquiring", to: to, reason: reason), .receiverActive(false), .timeout(at: nil),
      .refresh(at: nextRefresh),
    ]
  }
}
