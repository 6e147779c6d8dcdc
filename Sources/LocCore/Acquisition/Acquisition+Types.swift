/// What `Acquisition` takes and tells: its policy, triggers, phases, outcomes, stages,
/// reasons and transitions.
extension Acquisition {
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
    /// How many consecutive good fixes, each where the one before said it would be (inside
    /// its accuracy circle, moved by the receiver's speed), make a fix stable.
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
    /// Monitored regions or visits need a fix now (docs/REGIONS.md, "Acquisition").
    case regions
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

  /// A stage named in transitions: the two phases, and `settled`, the instant between a
  /// good fix and releasing the receivers.
  public enum Stage: String, Sendable, Hashable {
    /// Not wanting fixes.
    case idle
    /// Wanting fixes.
    case acquiring
    /// A good, stable fix came (passed through on the way back to idle).
    case settled
  }

  /// Why a transition happened.
  public enum Reason: Sendable, Hashable, CustomStringConvertible {
    /// Started, or kept going, for a trigger.
    case triggered(Trigger)
    /// A fix within `accuracy` came and was stable.
    case stable(accuracy: Meters)
    /// The last continuous subscriber left while the fix was already within `accuracy` and stable.
    case subscribersLeft(accuracy: Meters)
    /// Settled: the receivers are released until the refresh `refreshIn` from now.
    case released(refreshIn: Duration)
    /// No fix within `accuracy` came in `timeout`; the next attempt is `retryIn` from now.
    case timedOut(accuracy: Meters, timeout: Duration, retryIn: Duration)

    /// The reason in words, as status and events show it.
    public var description: String {
      switch self {
      case .triggered(let trigger): return trigger.rawValue
      case .stable(let accuracy): return "fix within \(TimeFormat.distance(accuracy)), stable"
      case .subscribersLeft(let accuracy):
        return "last continuous subscriber left; fix within \(TimeFormat.distance(accuracy)), stable"
      case .released(let delay): return "receivers released; next refresh in \(TimeFormat.duration(delay))"
      case .timedOut(let accuracy, let timeout, let delay):
        return
          "no fix within \(TimeFormat.distance(accuracy)) in \(TimeFormat.duration(timeout)); "
          + "next attempt in \(TimeFormat.duration(delay))"
      }
    }
  }

  /// One change of stage, for status and events. The machine's only output: what the
  /// receivers and timers should do follows from its state (`isAcquiring`, `deadline`,
  /// `nextRefresh`), which the engine reads after every event.
  public struct Transition: Sendable, Hashable {
    /// The stage left.
    public var from: Stage
    /// The stage entered.
    public var to: Stage
    /// Why.
    public var reason: Reason
    /// When.
    public var at: Instant

    /// A transition.
    public init(from: Stage, to: Stage, reason: Reason, at: Instant) {
      self.from = from
      self.to = to
      self.reason = reason
      self.at = at
    }

    /// The every-15-minutes part: a refresh starting, receivers released after settling.
    public var isRoutine: Bool {
      (from == .settled && to == .idle) || (from == .idle && reason == .triggered(.refresh))
    }
  }
}
