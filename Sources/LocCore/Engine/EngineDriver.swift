/// The one way into the engine: owns it and the clock it is fed with (the system's, or the
/// simulated clock of a replay), and hands every effect list to the shell's `perform`.
///
/// Events are handled one at a time, in the order they were submitted. An event submitted
/// while an effect list is being carried out (a reload effect that reads the configuration
/// and reports it, a command refused at once, a source that fails inside its own start) is
/// queued and handled after the current list is done, never inside it: the engine is never
/// re-entered and an effect list is never half carried out when the next one starts
/// (docs/decisions/0037-engine-driver.md). Queries read the engine between lists.
public final class EngineDriver {
  /// Where the engine's time comes from.
  public enum Clock: Sendable, Equatable {
    /// The system's wall clock (`now` of the driver's creator).
    case system
    /// Simulated time: the replay's fix times move it, and the engine's timers fire at their
    /// simulated deadlines (`locd --clock replay`).
    case replay
  }

  /// The engine, for queries between effect lists (status, an app's authorization).
  public private(set) var engine: Engine
  /// Where time comes from.
  public let clock: Clock
  /// With the replay clock: simulated time and the engine's timers armed in it.
  public private(set) var simulated = SimulatedClock()
  /// Carries out one effect list (the shell), with the request whose list it is (nil: the
  /// list of another event: a fix, a timer, a session opened); may submit further events.
  public var perform: ([Effect], RequestRef?) -> Void = { _, _ in }
  /// The wall clock, used until a replay's first fix sets simulated time.
  private let wallClock: () -> Instant
  /// What is waiting to be handled, oldest first.
  private var queue: [Step] = []
  private var head = 0
  /// Whether a list is being carried out now (submissions are then queued).
  private var running = false

  private enum Step {
    case event(EngineEvent, advancing: Instant?)
    case after(() -> Void)
  }

  /// A driver of `engine` on `clock`; `wallClock` gives the system's now.
  public init(_ engine: Engine, clock: Clock, wallClock: @escaping () -> Instant) {
    self.engine = engine
    self.clock = clock
    self.wallClock = wallClock
  }

  /// The engine's now: the wall clock, or simulated time once a replay's first fix set it.
  public var now: Instant {
    if clock == .replay, let t = simulated.now { return t }
    return wallClock()
  }

  /// The longest leap forward of a replay's time, in seconds, that is lived through timer by
  /// timer; a longer one (recordings played one after another, years apart) is a clock step,
  /// as time going back is: living through it would be every 15-minute refresh of the years
  /// between, millions of events.
  public static let longestReplayLeap = 86_400.0

  /// Whether an effect list is being carried out now.
  public var isBusy: Bool { running }

  /// Handles `event`, now or, while a list is being carried out, after it and after every
  /// event submitted before. With the replay clock, `time` (a fix's or an advertisement's)
  /// first moves simulated time there, firing the timers due on the way; the system clock
  /// ignores it.
  public func submit(_ event: EngineEvent, advancingTo time: Instant? = nil) {
    queue.append(.event(event, advancing: clock == .replay ? time : nil))
    drain()
  }

  /// Runs `body` once every event submitted so far is handled and its effects carried out
  /// (what the shell does after the engine took in a reload, say); events `body` submits
  /// are handled after it.
  public func afterwards(_ body: @escaping () -> Void) {
    queue.append(.after(body))
    drain()
  }

  private func drain() {
    guard !running else { return }
    running = true
    defer { running = false }
    while head < queue.count {
      let step = queue[head]
      head += 1
      switch step {
      case .event(let event, let time):
        if let time {
          if let current = simulated.now, time.seconds(since: current) <= EngineDriver.longestReplayLeap {
            perform(simulated.advance(&engine, to: time).map(\.effect), nil)
          } else {
            // The first fix, or a leap: simulated time starts (again) there.
            perform(simulated.start(&engine, at: time), nil)
          }
        }
        let effects = engine.handle(event, at: now)
        if clock == .replay { simulated.track(effects) }
        perform(effects, event.request)
      case .after(let body):
        body()
      }
    }
    queue.removeAll(keepingCapacity: queue.capacity <= 64)
    head = 0
  }
}
