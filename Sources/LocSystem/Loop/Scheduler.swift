import LocCore

/// What a part of the shell needs of the event loop to keep time: the loop's clocks, timers
/// and deferred work. `EventLoop` is the real one (sd-event); `ManualLoop` is a loop whose
/// time moves only when a test says so, for the shell's timing rules without waiting on the
/// kernel (issue 22, item 6). Descriptors are not part of it: a part that reads sockets is
/// tested with real ones.
public protocol Scheduler: AnyObject {
  /// Wall-clock now, as the current iteration sees it.
  var now: Instant { get }
  /// CLOCK_MONOTONIC now, microseconds.
  var monotonicMicroseconds: UInt64 { get }
  /// A one-shot timer on `clock`, initially off.
  func makeTimer(clock: EventLoop.Clock, accuracyMicroseconds: UInt64, _ handler: @escaping () -> Void)
    throws(Errno) -> any LoopTimer
  /// Runs `body` once, on the next iteration.
  func soon(priority: EventLoop.Priority, _ body: @escaping () -> Void)
}

extension Scheduler {
  /// Runs `body` once, on the next iteration, at normal priority.
  public func soon(_ body: @escaping () -> Void) { soon(priority: .normal, body) }
}

/// A one-shot timer that can be re-armed, on a scheduler's clock.
public protocol LoopTimer: AnyObject {
  /// The deadline armed, if any (microseconds on the timer's clock).
  var deadline: UInt64? { get }
  /// Arms at an absolute time on the timer's clock, in microseconds.
  func arm(atMicroseconds usec: UInt64)
  /// Disarms.
  func disarm()
  /// Frees the timer; it never fires again.
  func cancel()
}

extension EventLoop: Scheduler {
  public func makeTimer(clock: Clock, accuracyMicroseconds: UInt64, _ handler: @escaping () -> Void)
    throws(Errno) -> any LoopTimer
  {
    try timer(clock: clock, accuracyMicroseconds: accuracyMicroseconds, handler)
  }
}

extension Timer: LoopTimer {}
