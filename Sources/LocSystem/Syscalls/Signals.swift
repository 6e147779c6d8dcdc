#if canImport(Glibc)
  import Glibc
#endif

/// The signals locd handles (signal(7)) and how a process arranges to take them.
public enum Signals {
  /// SIGTERM: stop (systemd's stop, kill).
  public static let terminate = SIGTERM
  /// SIGINT: stop (Ctrl-C).
  public static let interrupt = SIGINT
  /// SIGHUP: reload the configuration.
  public static let hangUp = SIGHUP
  /// SIGCHLD: a child ended.
  public static let child = SIGCHLD

  /// Makes `signo` wait for a signalfd instead of being delivered (for sd_event_add_signal(3)):
  /// its disposition reset to the default first (signal(2) SIG_DFL: an ignored signal is
  /// discarded before it reaches a signalfd, and dispositions are inherited across exec),
  /// then blocked (sigprocmask(2) SIG_BLOCK).
  public static func routeToDescriptor(_ signo: Int32) {
    signal(signo, SIG_DFL)
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, signo)
    sigprocmask(SIG_BLOCK, &set, nil)
  }

  /// Sends `signo` to process `pid` (kill(2)). `pid` must be a process's own id: 0 and
  /// negative ids, which kill(2) takes for process groups, are refused (EINVAL) without a call.
  public static func send(_ signo: Int32, to pid: Int32) throws(Errno) {
    guard pid > 0 else { throw Errno(call: "kill \(pid)", code: EINVAL) }
    _ = try Syscall.retrying("kill \(pid)") { kill(pid, signo) }
  }

  /// Makes a write to a closed pipe or socket fail with EPIPE instead of killing the
  /// process (signal(2) SIGPIPE to SIG_IGN).
  public static func ignoreBrokenPipe() { signal(SIGPIPE, SIG_IGN) }
}
