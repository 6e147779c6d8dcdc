import CLocShim

/// The descriptor that says when the wall clock was stepped: a non-blocking CLOCK_REALTIME
/// timerfd armed with TFD_TIMER_CANCEL_ON_SET (timerfd_create(2), through the C shim), which
/// becomes readable, its read(2) failing with ECANCELED, whenever CLOCK_REALTIME moves against
/// CLOCK_MONOTONIC.
public enum ClockStepTimer {
  /// A new armed timerfd.
  public static func open() throws(Errno) -> FileDescriptor {
    FileDescriptor(owning: try Syscall.once("timerfd_create(CLOCK_REALTIME)") { locshim_clock_step_fd() })
  }

  /// Arms `timer` again after a step was read (timerfd_settime(2)); a failure leaves it
  /// disarmed, which only loses later steps.
  public static func rearm(_ timer: borrowing FileDescriptor) { _ = locshim_clock_step_arm(timer.rawValue) }
}
