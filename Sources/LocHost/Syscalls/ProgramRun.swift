import CLocShim

#if canImport(Glibc)
  import Glibc
#endif

/// Another program run to the end as a filter (locctl's `sun --png` through rsvg-convert):
/// found on PATH (posix_spawnp(3)), given `input` on its standard input through a pipe, its
/// standard output and error this process's own.
public enum ProgramRun {
  /// Why it did not run to a clean end.
  public enum Failure: Error, CustomStringConvertible {
    /// It is not installed (not on PATH) or could not be started.
    case cannotStart(String, Errno)
    /// It ran and exited with this status (or was killed by a signal: 128 + its number).
    case exited(String, Int32)
    /// The pipe to it or the wait for it failed.
    case system(Errno)

    public var description: String {
      switch self {
      case .cannotStart(let program, let e): return "cannot run \(program): \(e)"
      case .exited(let program, let status): return "\(program) failed (exit status \(status))"
      case .system(let e): return "\(e)"
      }
    }
  }

  /// Runs `program` with `arguments` (after its name) and this process's environment,
  /// feeding it `input`; returns once it has exited 0.
  public static func filter(_ program: String, _ arguments: [String], input: [UInt8]) throws(Failure) {
    var fds: [Int32] = [-1, -1]
    guard locshim_pipe2(&fds, O_CLOEXEC) == 0 else { throw .system(Errno(call: "pipe2", code: errno)) }
    let reader = FileDescriptor(owning: fds[0])
    let writer = FileDescriptor(owning: fds[1])
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    // The pipe's read end becomes the child's standard input; both ends close at its exec.
    posix_spawn_file_actions_adddup2(&actions, reader.rawValue, 0)
    let argv = CStrings([program] + arguments)
    var pid: Int32 = 0
    let code = withExtendedLifetime(argv) {
      posix_spawnp(&pid, program, &actions, nil, argv.pointers, environ)
    }
    guard code == 0 else { throw .cannotStart(program, Errno(call: "posix_spawnp \(program)", code: code)) }
    try? reader.close()
    // A program that stops reading (it failed) closes the pipe: that write error is its
    // exit status's to explain, so it is not thrown first.
    var wrote: Errno? = nil
    do throws(Errno) { try writer.writeAll(input) } catch { wrote = error }
    try? writer.close()
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
      guard errno == EINTR else { throw .system(Errno(call: "waitpid", code: errno)) }
    }
    let exited = status & 0x7f == 0
    let exitStatus = exited ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    // posix_spawnp reports a program it cannot exec as exit status 127 of the child.
    if exitStatus == 127 {
      throw .cannotStart(program, Errno(call: "execvp \(program)", code: ENOENT))
    }
    guard exitStatus == 0 else { throw .exited(program, exitStatus) }
    if let wrote { throw .system(wrote) }
  }
}
