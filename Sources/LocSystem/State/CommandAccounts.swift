import LocCore

/// Whom timer commands can run as, seen from this process, and what is wrong with a
/// `Command=` before it ever fires: an unknown user, a user locd cannot switch to, a program
/// that is missing, not executable or replaceable by someone else. `TimerFiles` reports these
/// when it loads (so `locctl timers` and `locd --check-config` show them) and `CommandRunner`
/// checks the same again when a command is due.
///
/// Switching users needs root with CAP_SETUID and CAP_SETGID. The shipped unit runs locd as
/// `locd` with no capabilities (`CapabilityBoundingSet=` empty) and filters the privileged
/// system calls, so there commands run as `locd` and a `User=` naming anyone else cannot work.
public struct CommandAccounts: Sendable {
  /// locd's effective uid.
  public var euid: UInt32
  /// The name of that uid, if it has one.
  public var ownName: String?
  /// Whether locd may switch to another user (effective uid 0 with CAP_SETUID and CAP_SETGID).
  public var canSwitchUsers: Bool

  /// Accounts as given (`locd --check-config` checks as the shipped unit will run).
  public init(euid: UInt32, ownName: String?, canSwitchUsers: Bool) {
    self.euid = euid
    self.ownName = ownName
    self.canSwitchUsers = canSwitchUsers
  }

  /// This process's accounts (geteuid(2), getpwuid_r(3), CapEff in /proc/self/status).
  public static func current() -> CommandAccounts {
    let euid = CurrentProcess.effectiveUserID
    // CAP_SETGID is bit 6 and CAP_SETUID bit 7 (capability.h).
    let caps = effectiveCapabilities() ?? (euid == 0 ? UInt64.max : 0)
    let both: UInt64 = (1 << 6) | (1 << 7)
    return CommandAccounts(
      euid: euid, ownName: name(of: euid), canSwitchUsers: euid == 0 && caps & both == both)
  }

  /// The user a command runs as: `User=`, else `CommandUser=`, else `nobody` when locd can
  /// switch users and locd's own user when it cannot.
  public func user(timer: String?, configured: String?) -> String {
    if let timer { return timer }
    if let configured { return configured }
    return canSwitchUsers ? "nobody" : ownName ?? "nobody"
  }

  /// Why a command cannot run as `user`, or nil.
  public func problem(runningAs user: String) -> String? {
    guard let account = CommandAccounts.account(named: user) else { return "user '\(user)' does not exist" }
    if account.uid == euid || canSwitchUsers { return nil }
    let me = ownName.map { "'\($0)' (uid \(euid))" } ?? "uid \(euid)"
    return
      "locd runs as \(me) without the capabilities to switch users (the shipped unit grants none), "
      + "so it cannot run commands as '\(user)'; leave User= out to run them as \(ownName ?? "locd's user")"
  }

  /// Why the program at `path` may not be run, or nil: it must exist, be a regular executable
  /// file, be owned by root or locd's user and be writable by nobody else (anyone who could
  /// replace it would run code as the timer's user at a time they know in advance).
  public func problem(program path: String) -> String? {
    guard path.hasPrefix("/") else { return "\(path): not an absolute path" }
    let info: FileStatus
    do { info = try FileIO.status(path: path) } catch {
      return error.code == Errno.noSuchFileOrDirectory ? "\(path) does not exist" : "\(path): \(error)"
    }
    guard info.kind == .regular else { return "\(path): not a regular file" }
    guard info.permissions & 0o111 != 0 else { return "\(path): not executable (chmod +x)" }
    guard info.owner == 0 || info.owner == euid else {
      return "\(path): owned by uid \(info.owner), not by root or locd's user"
    }
    guard info.permissions & 0o022 == 0 else { return "\(path): writable by group or others (chmod go-w)" }
    return nil
  }

  /// Every problem of `action` (nothing for events and units), each a sentence.
  public func problems(of action: TimerAction, configuredUser: String?) -> [String] {
    guard case .command(let argv, let timerUser) = action else { return [] }
    var out: [String] = []
    if let program = argv.first, let p = problem(program: program) { out.append(p) }
    if let p = problem(runningAs: user(timer: timerUser, configured: configuredUser)) { out.append(p) }
    return out
  }

  /// A user's ids and home (getpwnam_r(3), through `Accounts`).
  public static func account(named name: String) -> (uid: UInt32, gid: UInt32, home: String)? {
    Accounts.user(named: name).map { ($0.uid, $0.gid, $0.home) }
  }

  /// The name of `uid` (getpwuid_r(3), through `Accounts`).
  static func name(of uid: UInt32) -> String? { Accounts.user(id: uid)?.name }

  /// The effective capability set from /proc/self/status (`CapEff:` in hex), if readable.
  static func effectiveCapabilities() -> UInt64? {
    guard let bytes = try? FileIO.read(path: "/proc/self/status", limit: 64 * 1024) else { return nil }
    let text = String(decoding: bytes, as: UTF8.self)
    for line in text.split(separator: "\n") where line.hasPrefix("CapEff:") {
      return UInt64(line.dropFirst("CapEff:".count).drop(while: { $0 == "\t" || $0 == " " }), radix: 16)
    }
    return nil
  }
}
