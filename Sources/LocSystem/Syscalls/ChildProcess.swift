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

extension ChildProcess {
  /// Starts `path` with `arguments` (argv, the program's name first) and exactly
  /// `environment` (`NAME=value`) as a plain child of this process (posix_spawn(3)): unlike
  /// `spawn`, it keeps this process's working directory, session, signal mask and
  /// dispositions and the descriptors not marked close-on-exec, and standard input; its
  /// standard output and error are /dev/null. For programs that measure or drive other
  /// programs (locbench). Returns the child's pid; a failure to start is thrown as
  /// "posix_spawn" (a failed execve after the fork shows as exit status 127).
  public static func spawnQuietly(path: String, arguments: [String], environment: [String]) throws(Errno)
    -> Int32
  {
    let argv = CStrings(arguments)
    let envp = CStrings(environment)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var pid: Int32 = 0
    let code = withExtendedLifetime((argv, envp)) {
      posix_spawn(&pid, path, &actions, nil, argv.pointers, envp.pointers)
    }
    // posix_spawn returns the error number rather than setting errno.
    guard code == 0 else { throw Errno(call: "posix_spawn \(path)", code: code) }
    return pid
  }

  /// Waits until child `pid` ends and collects it (waitpid(2) without WNOHANG), retrying
  /// EINTR; its wait status. ECHILD (not a child of ours, or already collected) is thrown.
  @discardableResult
  public static func wait(_ pid: Int32) throws(Errno) -> Int32 {
    var status: Int32 = 0
    _ = try Syscall.retrying("waitpid \(pid)") { waitpid(pid, &status, 0) }
    return status
  }
}
