import CSystemd
import LocCore

/// Where log lines go: the journal with structured fields when stderr is connected to it
/// (JOURNAL_STREAM names stderr's device:inode, systemd.exec(5)); to a terminal, for a person
/// running locd in the foreground, with the local time and the level in words
/// (`2026-06-21 21:22:03.123 notice: ...`); otherwise (a pipe, a file, journald's stream
/// without JOURNAL_STREAM) with `<N>` priority prefixes (sd-daemon(3)), which journald and
/// syslog understand.
public final class Logger {
  /// How lines are written.
  public enum Destination: Sendable, Equatable {
    /// The journal, natively, with fields.
    case journal
    /// A terminal: timestamp and level word.
    case terminal
    /// Anything else: `<N>` prefixes.
    case stream
  }

  /// Messages less severe than this are dropped.
  public var level: LogLevel
  /// Where lines go.
  public let destination: Destination
  /// Whether lines go to the journal natively.
  public var toJournal: Bool { destination == .journal }
  /// The SYSLOG_IDENTIFIER.
  let identifier: String

  /// A logger; `identifier` names the program in the journal.
  public init(level: LogLevel, identifier: String = "locd") {
    self.level = level
    self.identifier = identifier
    if Logger.stderrIsJournal() {
      destination = .journal
    } else if StandardStreams.errorIsTerminal {
      destination = .terminal
    } else {
      destination = .stream
    }
  }

  static func stderrIsJournal() -> Bool {
    guard let value = CurrentProcess.environment("JOURNAL_STREAM") else { return false }
    let parts = value.split(separator: ":")
    guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return false }
    return StandardStreams.errorIs(device: dev, inode: ino)
  }

  /// Logs `message` at `level` with extra journal fields (names in upper case, e.g. LOCD_SOURCE).
  /// Callers keep coordinates out of anything above `.debug`.
  public func log(_ level: LogLevel, _ message: String, fields: [(String, String)] = []) {
    guard level <= self.level else { return }
    if toJournal {
      var entries = ["MESSAGE=\(message)", "PRIORITY=\(level.rawValue)", "SYSLOG_IDENTIFIER=\(identifier)"]
      for (k, v) in fields { entries.append("\(k)=\(v)") }
      Journal.send(entries)
    } else {
      var line =
        destination == .terminal
        ? Logger.localTimestamp() + " " + Logger.word(level) + ": " + message
        : "<\(level.rawValue)>\(message)"
      if !fields.isEmpty { line += " (" + fields.map { "\($0.0)=\($0.1)" }.joined(separator: " ") + ")" }
      line += "\n"
      StandardStreams.writeError(line)
    }
  }

  /// `err`, `warning`, `notice`, `info`, `debug`: the names `--log-level` takes.
  static func word(_ level: LogLevel) -> String {
    switch level {
    case .emergency: return "emerg"
    case .alert: return "alert"
    case .critical: return "crit"
    case .error: return "err"
    case .warning: return "warning"
    case .notice: return "notice"
    case .info: return "info"
    case .debug: return "debug"
    }
  }

  /// The wall clock now in the system's zone, `2026-06-21 21:22:03.123` (clock_gettime(2),
  /// localtime_r(3)). Only for a person reading a terminal: the engine never sees it.
  static func localTimestamp() -> String {
    let t = Clocks.localTimeNow()
    func pad(_ n: Int32, _ width: Int = 2) -> String {
      let s = String(n)
      return String(repeating: "0", count: max(0, width - s.count)) + s
    }
    return "\(t.year)-\(pad(t.month))-\(pad(t.day)) "
      + "\(pad(t.hour)):\(pad(t.minute)):\(pad(t.second)).\(pad(t.millisecond, 3))"
  }

  /// Shorthands.
  public func error(_ m: String, fields: [(String, String)] = []) { log(.error, m, fields: fields) }
  public func warning(_ m: String, fields: [(String, String)] = []) { log(.warning, m, fields: fields) }
  public func notice(_ m: String, fields: [(String, String)] = []) { log(.notice, m, fields: fields) }
  public func info(_ m: String, fields: [(String, String)] = []) { log(.info, m, fields: fields) }
  public func debug(_ m: String, fields: [(String, String)] = []) { log(.debug, m, fields: fields) }
}
