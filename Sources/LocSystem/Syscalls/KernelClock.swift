import CLocShim
import LocCore

#if canImport(Glibc)
  import Glibc
#endif

/// The kernel's discipline of the system clock, read only (adjtimex(2) with modes 0: no
/// privilege needed, nothing changed). locd's unit has no CAP_SYS_TIME, so it could not
/// change the clock even if it asked.
public enum KernelClock {
  /// The kernel's bound on the clock's error (struct timex's maxerror), or why it could not
  /// be read (EPERM under a seccomp filter without adjtimex).
  public static func maximumError() throws(Errno) -> Duration {
    let micros = try Syscall.once("adjtimex") { locshim_clock_max_error() }
    return .microseconds(micros)
  }

  /// What the kernel says of the clock now (`SystemClockState`): unknown when it cannot be read.
  public static var state: SystemClockState {
    do throws(Errno) {
      return SystemClockState(maximumError: try maximumError())
    } catch {
      return .unknown
    }
  }
}
