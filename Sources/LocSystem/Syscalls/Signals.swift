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

  /// Makes a write to a closed pipe or socket fail with EPIPE instead of killing the
  /// process (signal(2) SIGPIPE to SIG_IGN).
  public static func ignoreBrokenPipe() { signal(SIGPIPE, SIG_IGN) }
}
