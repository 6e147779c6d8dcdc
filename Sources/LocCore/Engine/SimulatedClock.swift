/// Simulated time for an engine: the clock of `locd --clock replay` and of the engine
/// scenario tests, so both run the same loop. Time moves only when told to (`advance`); the
/// engine's timers are not handed to a real clock but kept here and fired, each at its own
/// deadline, as simulated time passes them.
public struct SimulatedClock: Sendable {
  /// The simulated now; nil until time is first set (the daemon uses its wall clock until
  /// the first fix of a replay gives the time).
  public var now: Instant?
  /// The engine's timers armed, by the instant they fire at.
  public var armed: [EngineTimer: Instant] = [:]

  /// A clock at `now` (nil: not started yet).
  public init(now: Instant? = nil) { self.now = now }

  /// Keeps the timers `effects` arm and disarm; call it with every effect list the engine
  /// returns for events fed outside `advance`.
  public mutating func track(_ effects: [Effect]) {
    for effect in effects {
      switch effect {
      case .arm(let timer, let at): armed[timer] = at
      case .disarm(let timer): armed[timer] = nil
      default: break
      }
    }
  }

  /// Moves simulated time to `t`, feeding `engine` every armed timer due on the way at its
  /// own deadline, earliest first (a timer armed by a firing fires too if it is due). Time
  /// going back (a replay that loops) is a clock step at `t`. Returns every effect, in
  /// order, with the simulated instant of the event that produced it.
  public mutating func advance(_ engine: inout Engine, to t: Instant) -> [(at: Instant, effect: Effect)] {
    var out: [(at: Instant, effect: Effect)] = []
    func feed(_ event: EngineEvent, at instant: Instant) {
      let effects = engine.handle(event, at: instant)
      track(effects)
      out += effects.map { (instant, $0) }
    }
    if let current = now, t < current {
      now = t
      feed(.clockStepped, at: t)
      return out
    }
    while let (timer, at) = armed.filter({ $0.value <= t }).min(by: SimulatedClock.earlier) {
      armed[timer] = nil
      let instant = now.map { max($0, at) } ?? at
      now = instant
      feed(.timerFired(timer), at: instant)
    }
    now = t
    return out
  }

  /// Starts simulated time at `t` (the replay's first fix) after the engine ran on the wall
  /// clock: a clock step for the engine, so what it planned on the wall clock (acquisition's
  /// start and deadline, timer deadlines) is planned again on the simulated one instead of
  /// firing, or showing, months away from it. Timers armed on the wall clock do not fire on
  /// the way; the step re-arms what is still wanted.
  public mutating func start(_ engine: inout Engine, at t: Instant) -> [Effect] {
    now = t
    let effects = engine.handle(.clockStepped, at: t)
    track(effects)
    return effects
  }

  /// Deadline order; timers due at the same instant fire in declaration order, so a replay
  /// is the same every time.
  static func earlier(_ a: (key: EngineTimer, value: Instant), _ b: (key: EngineTimer, value: Instant))
    -> Bool
  {
    if a.value != b.value { return a.value < b.value }
    let order = EngineTimer.allCases
    return order.firstIndex(of: a.key)! < order.firstIndex(of: b.key)!
  }
}
