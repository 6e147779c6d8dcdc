#if canImport(Glibc)
  import Glibc
#endif

/// The kernel's clocks read directly (clock_gettime(2)), and the local time of the
/// system's zone (localtime_r(3)), for the code that needs a reading outside the event loop.
public enum Clocks {
  /// The size of this C library's `struct timeval` (16 bytes where time_t is 64-bit, 8 on
  /// 32-bit ones), for data laid out as C lays it out (chrony's refclock samples).
  public static let timevalSize = MemoryLayout<timeval>.size

  /// A clock of clock_gettime(2).
  public enum Kind: Sendable {
    /// CLOCK_REALTIME: wall time, which can be set.
    case realtime
    /// CLOCK_MONOTONIC: does not jump, stops during suspend.
    case monotonic
    /// CLOCK_BOOTTIME: monotonic and counting suspend.
    case boottime

    /// The clockid_t (for sd_event(3)).
    public var id: Int32 {
      switch self {
      case .realtime: return CLOCK_REALTIME
      case .monotonic: return CLOCK_MONOTONIC
      case .boottime: return CLOCK_BOOTTIME
      }
    }
  }

  /// Microseconds on `clock` (clock_gettime(2), which cannot fail for these clocks).
  public static func microseconds(_ clock: Kind) -> Int64 {
    var ts = timespec()
    clock_gettime(clock.id, &ts)
    return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
  }

  /// Nanoseconds on `clock` (clock_gettime(2), which cannot fail for these clocks), for
  /// measuring spans shorter than a microsecond.
  public static func nanoseconds(_ clock: Kind) -> Int64 {
    var ts = timespec()
    clock_gettime(clock.id, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
  }

  /// The CPU time this process has used, all its threads, in nanoseconds (clock_gettime(2)
  /// CLOCK_PROCESS_CPUTIME_ID): time spent waiting for a core is not counted.
  public static func processCPUNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
  }

  /// Sleeps the calling thread for `microseconds` (nanosleep(2) on CLOCK_MONOTONIC); a signal
  /// that interrupts it (EINTR) does not cut it short: the sleep goes on for what was left.
  /// Zero or less returns at once.
  public static func sleep(microseconds: Int64) {
    guard microseconds > 0 else { return }
    var request = timespec(
      tv_sec: Int(microseconds / 1_000_000), tv_nsec: Int(microseconds % 1_000_000) * 1000)
    var remaining = timespec()
    while nanosleep(&request, &remaining) == -1 {
      guard errno == EINTR else { return }
      request = remaining
    }
  }

  /// CLOCK_BOOTTIME - CLOCK_MONOTONIC: the total time spent suspended since boot, in
  /// microseconds.
  public static func suspendedMicroseconds() -> Int64 {
    var boot = timespec()
    var mono = timespec()
    clock_gettime(CLOCK_BOOTTIME, &boot)
    clock_gettime(CLOCK_MONOTONIC, &mono)
    return (Int64(boot.tv_sec) - Int64(mono.tv_sec)) * 1_000_000 + (Int64(boot.tv_nsec) - Int64(mono.tv_nsec))
      / 1000
  }

  /// A broken-down local time of the system's zone.
  public struct LocalTime: Sendable, Equatable {
    /// The year (e.g. 2026), month 1...12, day 1...31.
    public var year: Int32, month: Int32, day: Int32
    /// Hour 0...23, minute 0...59, second 0...60.
    public var hour: Int32, minute: Int32, second: Int32
    /// The millisecond, 0...999.
    public var millisecond: Int32
  }

  /// The wall clock now in the system's zone (clock_gettime(2) CLOCK_REALTIME, localtime_r(3)).
  public static func localTimeNow() -> LocalTime {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    var t = tm()
    var seconds = now.tv_sec
    localtime_r(&seconds, &t)
    return LocalTime(
      year: t.tm_year + 1900, month: t.tm_mon + 1, day: t.tm_mday, hour: t.tm_hour, minute: t.tm_min,
      second: t.tm_sec, millisecond: Int32(now.tv_nsec / 1_000_000))
  }
}
