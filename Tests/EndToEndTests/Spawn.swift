import CLocShim
import Foundation
import Glibc

/// A child process started with posix_spawn(3), with a clean signal mask and default
/// signal dispositions. The tests avoid Foundation's Process: its child monitor can block
/// in a blocking wait4() on one child and then never report the others.
final class Child {
  let pid: pid_t
  private(set) var exitStatus: Int32?

  /// Starts `path` with `arguments`; stdin from /dev/null (or `stdinFD`), stdout and
  /// stderr to the given descriptors (or /dev/null).
  init(
    _ path: String, _ arguments: [String], environment: [String: String] = [:], stdinFD: Int32? = nil,
    stdoutFD: Int32? = nil, stderrFD: Int32? = nil, closeInChild: [Int32] = []
  ) throws {
    var env = ProcessInfo.processInfo.environment
    for key in [
      "NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "JOURNAL_STREAM", "WATCHDOG_USEC",
      "WATCHDOG_PID",
    ] {
      env[key] = nil
    }
    for (k, v) in environment { env[k] = v }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let stdinFD {
      posix_spawn_file_actions_adddup2(&actions, stdinFD, 0)
    } else {
      posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    }
    if let stdoutFD {
      posix_spawn_file_actions_adddup2(&actions, stdoutFD, 1)
    } else {
      posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    }
    if let stderrFD {
      posix_spawn_file_actions_adddup2(&actions, stderrFD, 2)
    } else {
      posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    }
    for fd in closeInChild { posix_spawn_file_actions_addclose(&actions, fd) }
    // Nothing else reaches the child: a descriptor another thread opened without O_CLOEXEC
    // (Foundation's file writes do) would otherwise live as long as the child, and one open
    // for writing on a script makes every exec of that script fail with ETXTBSY (a timer
    // hook "exited with status 127" in a loaded run).
    locshim_spawn_close_from(&actions, 3)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      argv.forEach { free($0) }
      envp.forEach { free($0) }
    }
    var child: pid_t = 0
    let r = posix_spawn(&child, path, &actions, &attributes, argv, envp)
    guard r == 0 else { throw HarnessError("posix_spawn \(path): \(String(cString: strerror(r)))") }
    pid = child
  }

  /// Whether the child still runs (reaps it if it ended).
  var isRunning: Bool {
    if exitStatus != nil { return false }
    var status: Int32 = 0
    let r = waitpid(pid, &status, WNOHANG)
    if r == pid {
      exitStatus = Child.decode(status)
      return false
    }
    // ECHILD: reaped by someone else; trust kill(pid, 0) instead.
    return r == 0 || (r < 0 && errno == ECHILD && kill(pid, 0) == 0)
  }

  /// Waits for the end (at most `timeout` seconds, then SIGKILL) and returns the exit
  /// status (128 + signal when killed by a signal).
  @discardableResult func wait(timeout: Double = 30) -> Int32 {
    let deadline = Date().addingTimeInterval(timeout)
    while isRunning {
      if Date() > deadline {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        exitStatus = Child.decode(status)
        break
      }
      usleep(5_000)
    }
    return exitStatus ?? -1
  }

  static func decode(_ status: Int32) -> Int32 {
    let signal = status & 0x7F
    return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
  }

  deinit {
    if isRunning {
      kill(pid, SIGKILL)
      var status: Int32 = 0
      waitpid(pid, &status, 0)
    }
  }
}

/// Polls `path` until its text satisfies `condition` (10 s at most); the text. For children
/// whose output goes to a file (a watch, a daemon's log).
func waitForFile(_ path: String, within seconds: Double = 10, _ condition: (String) -> Bool) throws -> String
{
  let deadline = Date().addingTimeInterval(seconds)
  var text = ""
  while Date() < deadline {
    text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    if condition(text) { return text }
    usleep(50_000)
  }
  throw HarnessError("\(path) never showed what was awaited; it has: \(text)")
}
