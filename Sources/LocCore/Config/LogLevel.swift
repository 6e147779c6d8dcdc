/// Syslog priorities (syslog(3)), as used by journald and `<N>` stderr prefixes.
public enum LogLevel: Int, Comparable, Sendable, CaseIterable {
  case emergency = 0
  case alert = 1
  case critical = 2
  case error = 3
  case warning = 4
  case notice = 5
  case info = 6
  case debug = 7

  /// Parses a level name as `--log-level` takes it (`err`, `warning`, `info`, `debug`, ...).
  public init?(name: String) {
    switch name.lowercased() {
    case "emerg", "emergency": self = .emergency
    case "alert": self = .alert
    case "crit", "critical": self = .critical
    case "err", "error": self = .error
    case "warning", "warn": self = .warning
    case "notice": self = .notice
    case "info": self = .info
    case "debug": self = .debug
    default: return nil
    }
  }

  /// Lower numbers are more severe; `a < b` means `a` is more severe.
  public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}
