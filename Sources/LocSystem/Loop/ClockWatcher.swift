import CLocShim
import LocCore

#if canImport(Glibc)
  import Glibc
#endif

/// Notices at once when the wall clock is stepped or the machine resumes from suspend: a
/// CLOCK_REALTIME timerfd armed with TFD_TIMER_CANCEL_ON_SET (timerfd_create(2)) becomes
/// readable whenever CLOCK_REALTIME moves against CLOCK_MONOTONIC, which a step does and a
/// resume does too (monotonic time stops during suspend). The two are told apart by
/// CLOCK_BOOTTIME - CLOCK_MONOTONIC, which grows by exactly the time spent suspended.
/// No polling: the descriptor is silent until something happens.
public final class ClockWatcher {
  let fd: Int32
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
    let fd = locshim_clock_step_fd()
    guard fd >= 0 else { throw Errno(call: "timerfd_create(CLOCK_REALTIME)") }
    self.fd = fd
    self.stepped = stepped
    self.resumed = resumed
    suspended = ClockWatcher.suspendedMicroseconds()
    do {
      watch = try loop.watch(fd: fd, events: Epoll.input) { [weak self] _ in self?.fired() }
    } catch {
      close(fd)
      throw error
    }
  }

  deinit {
    watch?.cancel()
    close(fd)
  }

  func fired() {
    guard locshim_clock_step_read(fd) == 1 else { return }
    _ = locshim_clock_step_arm(fd)
    let now = ClockWatcher.suspendedMicroseconds()
    let slept = now - suspended
    suspended = now
    if slept >= ClockWatcher.minimumSleep {
      resumed(.microseconds(slept))
    } else {
      stepped()
    }
  }

  /// CLOCK_BOOTTIME - CLOCK_MONOTONIC: the total time spent suspended since boot.
  static func suspendedMicroseconds() -> Int64 {
    var boot = timespec()
    var mono = timespec()
    clock_gettime(CLOCK_BOOTTIME, &boot)
    clock_gettime(CLOCK_MONOTONIC, &mono)
    return (Int64(boot.tv_sec) - Int64(mono.tv_sec)) * 1_000_000 + (Int64(boot.tv_nsec) - Int64(mono.tv_nsec))
      / 1000
  }
}
