import LocCore

/// Notices at once when the wall clock is stepped or the machine resumes from suspend: a
/// CLOCK_REALTIME timerfd armed with TFD_TIMER_CANCEL_ON_SET (timerfd_create(2)) becomes
/// readable whenever CLOCK_REALTIME moves against CLOCK_MONOTONIC, which a step does and a
/// resume does too (monotonic time stops during suspend). The two are told apart by
/// CLOCK_BOOTTIME - CLOCK_MONOTONIC, which grows by exactly the time spent suspended.
/// No polling: the descriptor is silent until something happens.
public final class ClockWatcher {
  /// Owns the timerfd.
  var watch: IOWatch?
  var suspended: Int64
  let stepped: () -> Void
  let resumed: (Duration) -> Void

  /// Suspends shorter than this read as a step (the two clocks differ by a little jitter).
  static let minimumSleep: Int64 = 500_000

  /// Starts watching; `stepped` runs after a clock step, `resumed` after a suspend (with its length).
  public init(loop: EventLoop, stepped: @escaping () -> Void, resumed: @escaping (Duration) -> Void)
    throws(Errno)
  {
    let timer = try ClockStepTimer.open()
    self.stepped = stepped
    self.resumed = resumed
    suspended = ClockWatcher.suspendedMicroseconds()
    watch = try loop.watch(timer, events: Epoll.input) { [weak self] _ in self?.fired() }
  }

  deinit { watch?.cancel() }

  func fired() {
    guard let watch, ClockWatcher.wasStepped(watch.descriptor) else { return }
    ClockStepTimer.rearm(watch.descriptor)
    let now = ClockWatcher.suspendedMicroseconds()
    let slept = now - suspended
    suspended = now
    if slept >= ClockWatcher.minimumSleep {
      resumed(.microseconds(slept))
    } else {
      stepped()
    }
  }

  /// Whether the clock-step timerfd reports a step: its read(2) fails with ECANCELED
  /// (timerfd_create(2), TFD_TIMER_CANCEL_ON_SET). Anything else (EAGAIN on a spurious
  /// wakeup, an expiry that cannot happen before the year 2514) is not a step.
  static func wasStepped(_ timer: borrowing FileDescriptor) -> Bool {
    var expirations: UInt64 = 0
    do {
      _ = try withUnsafeMutableBytes(of: &expirations) { raw in
        Result { () throws(Errno) in try timer.read(into: raw) }
      }.get()
    } catch {
      return error.code == Errno.canceled
    }
    return false
  }

  /// CLOCK_BOOTTIME - CLOCK_MONOTONIC: the total time spent suspended since boot.
  static func suspendedMicroseconds() -> Int64 {
    Clocks.suspendedMicroseconds()
  }
}
