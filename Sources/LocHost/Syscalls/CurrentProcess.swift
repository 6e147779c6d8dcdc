import CLocShim

#if canImport(Glibc)
  import Glibc
#endif

/// What this process is and what it was given: its user ids, its environment, its
/// executable and its descriptor limit.
public enum CurrentProcess {
  /// The real user id (getuid(2)).
  public static var userID: UInt32 { getuid() }

  /// The effective user id (geteuid(2)).
  public static var effectiveUserID: UInt32 { geteuid() }

  /// The value of environment variable `name` (getenv(3)), or nil when it is not set.
  public static func environment(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    return String(cString: value)
  }

  /// The whole environment (environ(7)), each entry `NAME=value` as it stands, in order.
  public static func environmentEntries() -> [String] {
    var entries: [String] = []
    var p = environ
    while let entry = p.pointee {
      entries.append(String(cString: entry))
      p += 1
    }
    return entries
  }

  /// The running executable's absolute path (readlink(2) of /proc/self/exe), if known.
  public static func executablePath() -> String? { FileIO.linkTarget(path: "/proc/self/exe") }

  /// Pages out the program's own code (madvise(2) MADV_PAGEOUT over its executable mappings,
  /// Linux 5.4; nothing before), which runs mostly at start; returns how many bytes it asked
  /// for. What runs again comes back from the file.
  public static func pageOutProgramCode() -> Int { Int(locshim_page_out_program_code()) }

  /// Raises the soft limit on open descriptors to at least `wanted`, as far as the hard limit
  /// allows (getrlimit(2), setrlimit(2)); a limit already that high, or one that cannot be
  /// read or set, is left as it is.
  public static func raiseDescriptorLimit(toAtLeast wanted: Int) {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
    let wanted = rlim_t(wanted)
    if limit.rlim_cur < wanted {
      limit.rlim_cur = min(limit.rlim_max, max(wanted, limit.rlim_cur))
      _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
  }
}

extension CurrentProcess {
  /// Ends the process with `status` (exit(3): C's buffers, standard output's among them, are
  /// flushed first).
  public static func exit(_ status: Int32) -> Never { Glibc.exit(status) }
}
