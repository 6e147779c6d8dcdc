import CLocShim
import LocCore

#if canImport(Glibc)
  import Glibc
#endif

/// Runs timer commands: without a shell (execve of an absolute path), as the configured user
/// (never root unless configured: the user is always named), with a minimal environment plus
/// the `LOCD_*` variables, at most one at a time per timer; reaps them on SIGCHLD and logs how
/// they ended.
public final class CommandRunner {
  /// pid -> timer name.
  var running: [pid_t: String] = [:]
  let log: (LogLevel, String) -> Void
  /// Called when the last running command has ended (`locd --exit-at-end` waits for it).
  public var idle: (() -> Void)?

  /// Commands running now.
  public var runningCount: Int { running.count }

  /// A runner on `loop` (it takes over SIGCHLD).
  public init(loop: EventLoop, log: @escaping (LogLevel, String) -> Void) throws(Errno) {
    self.log = log
    try loop.onSignal(SIGCHLD) { [weak self] in self?.reap() }
  }

  /// Starts `argv` for timer `timer` as `user` with `environment` (`NAME=value`) added.
  public func run(argv: [String], user: String, environment: [String], timer: String) {
    guard let path = argv.first, path.hasPrefix("/") else {
      log(.error, "timer \(timer): command is not an absolute path, not run")
      return
    }
    if running.values.contains(timer) {
      log(.warning, "timer \(timer): its previous command is still running; not started again")
      return
    }
    guard let account = CommandRunner.account(named: user) else {
      log(.error, "timer \(timer): user '\(user)' does not exist; command not run")
      return
    }
    let euid = geteuid()
    let change = euid == 0
    if !change, account.uid != euid {
      log(.error, "timer \(timer): locd runs as uid \(euid) and cannot run commands as '\(user)'; not run")
      return
    }
    // Refuse a program anyone but root could have replaced: it would run with the timer's
    // user's rights at a time an attacker knows in advance.
    let info: stat
    do { info = try FileIO.status(path: path) } catch {
      log(.error, "timer \(timer): \(path): \(error); not run")
      return
    }
    guard info.st_uid == 0 || info.st_uid == euid, info.st_mode & 0o022 == 0 else {
      log(.error, "timer \(timer): \(path) is not owned by root or is writable by others; not run")
      return
    }
    let env =
      [
        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=\(account.home)",
        "USER=\(user)",
        "LOGNAME=\(user)", "LANG=C.UTF-8",
      ] + environment
    let cArgv = argv.map { strdup($0) } + [nil]
    let cEnv = env.map { strdup($0) } + [nil]
    defer {
      cArgv.forEach { free($0) }
      cEnv.forEach { free($0) }
    }
    let pid: pid_t
    do {
      pid = try Syscall.retrying("fork") {
        locshim_spawn(path, cArgv, cEnv, change ? 1 : 0, account.uid, account.gid)
      }
    } catch {
      log(.error, "timer \(timer): cannot start \(path): \(error)")
      return
    }
    running[pid] = timer
    log(.info, "timer \(timer): started \(path) as \(user) (pid \(pid))")
  }

  /// Collects every child of ours that ended.
  func reap() {
    for pid in Array(running.keys) {
      var status: Int32 = 0
      guard (try? Syscall.retrying("waitpid") { waitpid(pid, &status, WNOHANG) }) == pid else { continue }
      let timer = running.removeValue(forKey: pid) ?? "?"
      let signal = status & 0x7F
      if signal != 0 {
        log(.warning, "timer \(timer): command (pid \(pid)) killed by signal \(signal)")
      } else {
        let code = (status >> 8) & 0xFF
        let detail = code == 126 ? " (could not drop privileges)" : code == 127 ? " (could not execute)" : ""
        log(
          code == 0 ? .info : .warning,
          "timer \(timer): command (pid \(pid)) exited with status \(code)\(detail)")
      }
    }
    if running.isEmpty, let idle {
      self.idle = nil
      idle()
    }
  }

  /// A user's ids and home (getpwnam_r(3)).
  static func account(named name: String) -> (uid: uid_t, gid: gid_t, home: String)? {
    var pwd = passwd()
    var result: UnsafeMutablePointer<passwd>? = nil
    var buffer = [CChar](repeating: 0, count: 16384)
    guard getpwnam_r(name, &pwd, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
    return (pwd.pw_uid, pwd.pw_gid, pwd.pw_dir.map { String(cString: $0) } ?? "/")
  }
}
