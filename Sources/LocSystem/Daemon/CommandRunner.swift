import LocCore

/// Runs timer commands: without a shell (execve of an absolute path), as the configured user
/// (never root unless configured: the user is always named), with a minimal environment plus
/// the `LOCD_*` variables, at most one at a time per timer; reaps them on SIGCHLD, logs how
/// they ended and reports it (`ended`: timer, success, how in words), also when a command
/// could not be started at all.
public final class CommandRunner {
  /// pid -> timer name.
  var running: [Int32: String] = [:]
  let log: (LogLevel, String) -> Void
  /// Called when the last running command has ended (`locd --exit-at-end` waits for it).
  public var idle: (() -> Void)?

  /// Commands running now.
  public var runningCount: Int { running.count }
  let ended: (String, Bool, String) -> Void

  /// A runner on `loop` (it takes over SIGCHLD).
  public init(
    loop: EventLoop, log: @escaping (LogLevel, String) -> Void,
    ended: @escaping (_ timer: String, _ succeeded: Bool, _ detail: String) -> Void = { _, _, _ in }
  ) throws(Errno) {
    self.log = log
    self.ended = ended
    try loop.onSignal(Signals.child) { [weak self] in self?.reap() }
  }

  /// Logs why timer `timer`'s command did not run, and reports it.
  func refuse(_ timer: String, _ why: String) {
    log(.error, "timer \(timer): \(why)")
    ended(timer, false, why)
  }

  /// Starts `argv` for timer `timer` as `user` (nil: the default `CommandAccounts` works out)
  /// with `environment` (`NAME=value`) added.
  public func run(argv: [String], user: String?, environment: [String], timer: String) {
    guard let path = argv.first else {
      refuse(timer, "empty command, not run")
      return
    }
    if running.values.contains(timer) {
      log(.warning, "timer \(timer): its previous command is still running; not started again")
      return
    }
    // The load-time checks again: the program or the user may have changed since.
    let accounts = CommandAccounts.current()
    let user = accounts.user(timer: user, configured: nil)
    if let problem = accounts.problem(runningAs: user) ?? accounts.problem(program: path) {
      refuse(timer, problem + "; not run")
      return
    }
    guard let account = CommandAccounts.account(named: user) else { return }
    // As root (able to switch), always drop to the account and its primary group alone.
    let change = accounts.canSwitchUsers
    let env =
      [
        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=\(account.home)",
        "USER=\(user)",
        "LOGNAME=\(user)", "LANG=C.UTF-8",
      ] + environment
    let pid: Int32
    do {
      pid = try ChildProcess.spawn(
        path: path, arguments: argv, environment: env, identity: change ? (account.uid, account.gid) : nil)
    } catch {
      refuse(timer, "cannot start \(path): \(error)")
      return
    }
    running[pid] = timer
    log(.info, "timer \(timer): started \(path) as \(user) (pid \(pid))")
  }

  /// Collects every child of ours that ended.
  func reap() {
    for pid in Array(running.keys) {
      guard let status = ChildProcess.reap(pid) else { continue }
      let timer = running.removeValue(forKey: pid) ?? "?"
      let signal = status & 0x7F
      if signal != 0 {
        log(.warning, "timer \(timer): command (pid \(pid)) killed by signal \(signal)")
        ended(timer, false, "killed by signal \(signal)")
      } else {
        let code = (status >> 8) & 0xFF
        let detail = code == 126 ? " (could not drop privileges)" : code == 127 ? " (could not execute)" : ""
        log(
          code == 0 ? .info : .warning,
          "timer \(timer): command (pid \(pid)) exited with status \(code)\(detail)")
        ended(timer, code == 0, "exited with status \(code)\(detail)")
      }
    }
    if running.isEmpty, let idle {
      self.idle = nil
      idle()
    }
  }
}
