import CSystemd
import LocCore

#if canImport(Glibc)
  import Glibc
#endif

/// Where log lines go: the journal with structured fields when stderr is connected to it
/// (JOURNAL_STREAM names stderr's device:inode, systemd.exec(5)), otherwise stderr with
/// `<N>` priority prefixes (sd-daemon(3)), which journald and syslog understand.
public final class Logger {
  /// Messages less severe than this are dropped.
  public var level: LogLevel
  /// Whether lines go to the journal natively.
  public let toJournal: Bool
  /// The SYSLOG_IDENTIFIER.
  let identifier: String

  /// A logger; `identifier` names the program in the journal.
  public init(level: LogLevel, identifier: String = "locd") {
    self.level = level
    self.identifier = identifier
    self.toJournal = Logger.stderrIsJournal()
  }

  static func stderrIsJournal() -> Bool {
    guard let value = getenv("JOURNAL_STREAM") else { return false }
    let parts = String(cString: value).split(separator: ":")
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
      let cstrings = entries.map { strdup($0)! }
      defer { cstrings.forEach { free($0) } }
      var iov = cstrings.map { iovec(iov_base: UnsafeMutableRawPointer($0), iov_len: strlen($0)) }
      _ = sd_journal_sendv(&iov, Int32(iov.count))
    } else {
      var line = "<\(level.rawValue)>\(message)"
      if !fields.isEmpty { line += " (" + fields.map { "\($0.0)=\($0.1)" }.joined(separator: " ") + ")" }
      line += "\n"
      StandardStreams.writeError(line)
    }
  }

  /// Shorthands.
  public func error(_ m: String, fields: [(String, String)] = []) { log(.error, m, fields: fields) }
  public func warning(_ m: String, fields: [(String, String)] = []) { log(.warning, m, fields: fields) }
  public func notice(_ m: String, fields: [(String, String)] = []) { log(.notice, m, fields: fields) }
  public func info(_ m: String, fields: [(String, String)] = []) { log(.info, m, fields: fields) }
  public func debug(_ m: String, fields: [(String, String)] = []) { log(.debug, m, fields: fields) }
}
