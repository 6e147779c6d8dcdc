import CLocShim

#if canImport(Glibc)
  import Glibc
#endif

/// Programs locd starts (timer commands) and their ends.
public enum ChildProcess {
  /// Starts `path` with `arguments` (argv, the program's name first) and exactly
  /// `environment` (`NAME=value`), without a shell (locshim_spawn: fork(2) and execve(2); the
  /// child gets a new session, stdin from /dev/null, no descriptors but 0-2, and, given
  /// `identity`, only that group and user, dropped for good). Returns the child's pid; a
  /// failed fork is thrown as "fork". The child exits 126 if it cannot drop privileges, 127
  /// if execve fails.
  public static func spawn(
    path: String, arguments: [String], environment: [String], identity: (uid: UInt32, gid: UInt32)?
  ) throws(Errno) -> Int32 {
    let argv = CStrings(arguments)
    let envp = CStrings(environment)
    return try withExtendedLifetime((argv, envp)) { () throws(Errno) in
      try Syscall.retrying("fork") {
        locshim_spawn(
          path, argv.pointers, envp.pointers, identity == nil ? 0 : 1, identity?.uid ?? 0, identity?.gid ?? 0)
      }
    }
  }

  /// The wait status of child `pid` if it has ended, collecting it (waitpid(2) WNOHANG); nil
  /// while it runs or when it is not a child of ours.
  public static func reap(_ pid: Int32) -> Int32? {
    var status: Int32 = 0
    guard (try? Syscall.retrying("waitpid") { waitpid(pid, &status, WNOHANG) }) == pid else { return nil }
    return status
  }
}
