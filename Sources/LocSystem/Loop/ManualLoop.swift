import LocCore

/// A `Scheduler` whose clocks move only when told (`advance(by:)`, `stepWallClock(by:)`):
/// timers fire in the order of their deadlines, and deferred work runs after the callback
/// that asked for it, normal before idle, as on the real loop. For tests of the shell's
/// timing rules (stalls, deadlines, backoff) that would otherwise wait on the kernel.
///
/// Single-threaded, like the loop it stands in for.
public final class ManualLoop: Scheduler {
  /// Wall-clock now.
  public private(set) var now: Instant
  /// CLOCK_MONOTONIC now; CLOCK_BOOTTIME reads the same here (no suspend).
  public private(set) var monotonicMicroseconds: UInt64
  private var timers: [ManualTimer] = []
  private var deferred: [(EventLoop.Priority, () -> Void)] = []
  /// Callbacks run so far: timers fired and deferred bodies.
  public private(set) var dispatched = 0
  /// Timers armed so far, for ties between equal deadlines.
  private var arms: UInt64 = 0

  /// A loop whose wall clock reads `start` and whose monotonic clock reads `monotonic`.
  public init(
    start: Instant = Instant(microsecondsSinceEpoch: 1_800_000_000_000_000), monotonic: UInt64 = 1_000_000
  ) {
    now = start
    monotonicMicroseconds = monotonic
  }

  public func makeTimer(clock: EventLoop.Clock, accuracyMicroseconds: UInt64, _ handler: @escaping () -> Void)
    throws(Errno) -> any LoopTimer
  {
    let timer = ManualTimer(loop: self, clock: clock, handler: handler)
    timers.append(timer)
    return timer
  }

  public func soon(priority: EventLoop.Priority, _ body: @escaping () -> Void) {
    deferred.append((priority, body))
  }

  /// The armed timers' earliest deadline, as a span from now (nil: none armed).
  public var nextDeadlineMicroseconds: UInt64? {
    timers.compactMap { t in t.deadline.map { $0 > reading(t.clock) ? $0 - reading(t.clock) : 0 } }.min()
  }

  /// Runs deferred work until none is left (work deferred by deferred work included),
  /// normal priority first.
  public func runDeferred() {
    while let index = deferred.firstIndex(where: { $0.0 != .idle }) ?? deferred.indices.first {
      let (_, body) = deferred.remove(at: index)
      dispatched += 1
      body()
    }
  }

  /// Moves both clocks forward by `micros`, firing every timer whose deadline is passed on
  /// the way, earliest first (ties in the order they were armed), each at its own deadline,
  /// with deferred work run after each.
  public func advance(byMicroseconds micros: UInt64) {
    let end = monotonicMicroseconds + micros
    runDeferred()
    while let (timer, at) = nextDue(before: end) {
      move(to: at)
      timer.deadline = nil
      dispatched += 1
      timer.handler()
      runDeferred()
    }
    move(to: end)
  }

  /// Moves both clocks forward by `span`.
  public func advance(by span: Duration) { advance(byMicroseconds: UInt64(max(0, span.seconds) * 1_000_000)) }

  /// Steps the wall clock alone by `micros` (a clock set by hand or by NTP), firing nothing:
  /// what is due on it fires at the next `advance`.
  public func stepWallClock(byMicroseconds micros: Int64) {
    now = Instant(microsecondsSinceEpoch: now.microsecondsSinceEpoch + micros)
  }

  /// Timers created and not cancelled.
  public var liveTimers: Int { timers.filter { !$0.cancelled }.count }

  fileprivate func nextArm() -> UInt64 {
    arms += 1
    return arms
  }

  private func reading(_ clock: EventLoop.Clock) -> UInt64 {
    switch clock {
    case .realtime: return UInt64(max(0, now.microsecondsSinceEpoch))
    case .monotonic, .boottime: return monotonicMicroseconds
    }
  }

  /// The armed timer due first before monotonic time `end`, with its deadline converted
  /// to monotonic time.
  private func nextDue(before end: UInt64) -> (ManualTimer, UInt64)? {
    var best: (ManualTimer, UInt64)? = nil
    for timer in timers where !timer.cancelled {
      guard let deadline = timer.deadline else { continue }
      let current = reading(timer.clock)
      let at = deadline <= current ? monotonicMicroseconds : monotonicMicroseconds + (deadline - current)
      guard at <= end else { continue }
      if best == nil || at < best!.1 || (at == best!.1 && timer.armedOrder < best!.0.armedOrder) {
        best = (timer, at)
      }
    }
    return best
  }

  private func move(to monotonic: UInt64) {
    guard monotonic > monotonicMicroseconds else { return }
    let step = monotonic - monotonicMicroseconds
    monotonicMicroseconds = monotonic
    now = Instant(microsecondsSinceEpoch: now.microsecondsSinceEpoch + Int64(step))
  }
}

/// A timer of a `ManualLoop`.
final class ManualTimer: LoopTimer {
  unowned let loop: ManualLoop
  let clock: EventLoop.Clock
  let handler: () -> Void
  var deadline: UInt64?
  var cancelled = false
  /// When it was last armed, for ties between equal deadlines.
  var armedOrder: UInt64 = 0

  init(loop: ManualLoop, clock: EventLoop.Clock, handler: @escaping () -> Void) {
    self.loop = loop
    self.clock = clock
    self.handler = handler
  }

  func arm(atMicroseconds usec: UInt64) {
    guard !cancelled else { return }
    armedOrder = loop.nextArm()
    deadline = usec
  }

  func disarm() { deadline = nil }

  func cancel() {
    deadline = nil
    cancelled = true
  }
}
