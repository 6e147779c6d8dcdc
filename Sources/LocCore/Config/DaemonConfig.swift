/// Everything locd can be configured with, with its defaults (locd.conf(5)).
public struct DaemonConfig: Sendable, Equatable {
  /// Path of the control socket.
  public var socketPath = "/run/locd/locd.sock"
  /// Group owning the socket; `nil` keeps the daemon's group.
  public var socketGroup: String? = "locd"
  /// Permission bits of the socket.
  public var socketMode: UInt32 = 0o660
  /// Members of this group may read state (root and the daemon's own uid always may).
  /// Defaults to the socket group.
  public var readGroup: String? = nil
  /// Members of this group may change state (set-location, reload, timers); root always may.
  public var adminGroup: String? = nil
  /// Where the last-known position file lives.
  public var stateDirectory = "/var/lib/locd"
  /// Fix sources; empty means `SourceURI.defaultSource`.
  public var sources: [SourceURI] = []
  /// Messages above this level are not logged.
  public var logLevel = LogLevel.info
  /// A fix older than this (since it was received) is no longer fresh.
  public var freshFor: Duration = .seconds(10)
  /// A move farther than this (plus the accuracy radii) is significant.
  public var significantDistance: Meters = 1000
  /// Zone used when none can be derived from the position (`nil`: the system zone).
  public var timeZone: String? = nil
  /// Most clients connected at once; more are answered `too-many-clients` and closed.
  public var maxClients = 2048
  /// Longest request line in bytes.
  public var maxRequestBytes = 65536
  /// Most bytes queued for a client that does not read; past it the client is dropped.
  public var maxQueuedBytesPerClient = 1 << 20
  /// A client must complete the hello within this time.
  public var handshakeTimeout: Duration = .seconds(10)
  /// Where timer files (`NAME.timer`) are read from.
  public var timersDirectory = "/etc/locd/timers.d"
  /// A timer occurrence handled later than this after its deadline was missed (machine
  /// asleep, locd stopped, clock stepped over it) and follows the timer's `Missed=` policy.
  public var missedAfter: Duration = .seconds(60)
  /// The user timer commands run as unless their file says `User=`.
  public var commandUser = "nobody"
  /// Most timers (files and runtime together).
  public var maxTimers = 1024
  /// What it takes to adopt a new time zone from fixes.
  public var zoneSwitch = ZoneHysteresis.Settings()
  /// Set the system time zone (timedated) when the zone from the position changes.
  public var setSystemTimeZone = false
  /// When locd wants fixes (`[Acquisition]`): on demand (default) or continuously.
  public var acquisition = Acquisition.Policy()

  /// The defaults.
  public init() {}

  /// The sources in effect.
  public var effectiveSources: [SourceURI] { sources.isEmpty ? [SourceURI.defaultSource] : sources }
  /// The read group in effect.
  public var effectiveReadGroup: String? { readGroup ?? socketGroup }

  /// A problem found while applying a configuration file.
  public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// File name as given.
    public var file: String
    /// 1-based line.
    public var line: Int
    /// What is wrong.
    public var message: String
    /// `file:line: message`, the form editors jump to.
    public var description: String { "\(file):\(line): \(message)" }
  }

  /// Applies the text of a configuration file over `self`; returns every problem found,
  /// each with `file:line`. Unknown sections and keys are problems, so typos do not pass.
  public mutating func apply(fileText: String, fileName: String) -> [Diagnostic] {
    let (file, syntax) = ConfigFile.parse(fileText)
    var problems = syntax.map { Diagnostic(file: fileName, line: $0.line, message: $0.message) }
    var fileSources: [SourceURI] = []
    var sawSource = false
    for entry in file.entries {
      func problem(_ message: String) {
        problems.append(Diagnostic(file: fileName, line: entry.line, message: message))
      }
      let v = entry.value
      switch (entry.section, entry.key) {
      case ("Daemon", "Socket"):
        if v.hasPrefix("/") { socketPath = v } else { problem("Socket= must be an absolute path") }
      case ("Daemon", "SocketGroup"): socketGroup = v.isEmpty ? nil : v
      case ("Daemon", "SocketMode"):
        if let m = UInt32(v, radix: 8), m <= 0o777 {
          socketMode = m
        } else {
          problem("SocketMode= must be octal, e.g. 0660")
        }
      case ("Daemon", "ReadGroup"): readGroup = v.isEmpty ? nil : v
      case ("Daemon", "AdminGroup"): adminGroup = v.isEmpty ? nil : v
      case ("Daemon", "StateDirectory"):
        if v.hasPrefix("/") {
          stateDirectory = v
        } else {
          problem("StateDirectory= must be an absolute path")
        }
      case ("Daemon", "LogLevel"):
        if let l = LogLevel(name: v) { logLevel = l } else { problem("unknown LogLevel= '\(v)'") }
      case ("Sources", "Source"):
        sawSource = true
        if v.isEmpty {
          fileSources = []  // systemd style: an empty assignment resets the list
        } else {
          do { fileSources.append(try SourceURI(parsing: v)) } catch { problem(error.description) }
        }
      case ("Position", "FreshFor"):
        if let d = Duration(timeSpan: v), d > .zero {
          freshFor = d
        } else {
          problem("FreshFor= must be a time span, e.g. 10s")
        }
      case ("Position", "SignificantDistance"):
        if let m = DaemonConfig.parseDistance(v) {
          significantDistance = m
        } else {
          problem("SignificantDistance= must be a distance, e.g. 1km or 500m")
        }
      case ("Position", "TimeZone"): timeZone = v.isEmpty ? nil : v
      case ("Limits", "MaxClients"):
        if let n = Int(v), (1...65536).contains(n) {
          maxClients = n
        } else {
          problem("MaxClients= must be 1-65536")
        }
      case ("Limits", "MaxRequestBytes"):
        if let n = Int(v), (256...(16 << 20)).contains(n) {
          maxRequestBytes = n
        } else {
          problem("MaxRequestBytes= must be 256-16777216")
        }
      case ("Limits", "MaxQueuedBytesPerClient"):
        if let n = Int(v), (4096...(256 << 20)).contains(n) {
          maxQueuedBytesPerClient = n
        } else {
          problem("MaxQueuedBytesPerClient= must be 4096-268435456")
        }
      case ("Limits", "HandshakeTimeout"):
        if let d = Duration(timeSpan: v), d > .zero {
          handshakeTimeout = d
        } else {
          problem("HandshakeTimeout= must be a time span")
        }
      case ("Timers", "Directory"):
        if v.hasPrefix("/") { timersDirectory = v } else { problem("Directory= must be an absolute path") }
      case ("Timers", "MissedAfter"):
        if let d = Duration(timeSpan: v), d > .zero {
          missedAfter = d
        } else {
          problem("MissedAfter= must be a time span, e.g. 1min")
        }
      case ("Timers", "CommandUser"):
        if !v.isEmpty, !v.contains("/"), !v.contains(":") {
          commandUser = v
        } else {
          problem("CommandUser= must be a user name")
        }
      case ("Timers", "MaxTimers"):
        if let n = Int(v), (1...100_000).contains(n) {
          maxTimers = n
        } else {
          problem("MaxTimers= must be 1-100000")
        }
      case ("TimeZone", "SwitchFixes"):
        if let n = Int(v), (1...1000).contains(n) {
          zoneSwitch.fixes = n
        } else {
          problem("SwitchFixes= must be 1-1000")
        }
      case ("TimeZone", "SwitchDistance"):
        if let m = DaemonConfig.parseDistance(v) {
          zoneSwitch.distance = m
        } else {
          problem("SwitchDistance= must be a distance, e.g. 100m")
        }
      case ("TimeZone", "SwitchAfter"):
        if let d = Duration(timeSpan: v) {
          zoneSwitch.time = d
        } else {
          problem("SwitchAfter= must be a time span, e.g. 5min")
        }
      case ("TimeZone", "SetSystemTimeZone"):
        if let b = DaemonConfig.parseBool(v) {
          setSystemTimeZone = b
        } else {
          problem("SetSystemTimeZone= must be yes or no")
        }
      case ("Acquisition", "Policy"):
        if let m = Acquisition.Policy.Mode(rawValue: v) {
          acquisition.mode = m
        } else {
          problem("Policy= must be on-demand or continuous")
        }
      case ("Acquisition", "RefreshInterval"):
        if let d = Duration(timeSpan: v), d >= .seconds(1) {
          acquisition.refreshInterval = d
        } else {
          problem("RefreshInterval= must be a time span of at least 1s, e.g. 15min")
        }
      case ("Acquisition", "Timeout"):
        if let d = Duration(timeSpan: v), d >= .seconds(1), d <= .seconds(3600) {
          acquisition.timeout = d
        } else {
          problem("Timeout= must be a time span from 1s to 1h, e.g. 60s")
        }
      case ("Acquisition", "Accuracy"):
        if let m = DaemonConfig.parseDistance(v), m.value > 0 {
          acquisition.accuracy = m
        } else {
          problem("Accuracy= must be a distance above 0, e.g. 50m")
        }
      case ("Acquisition", "StableFixes"):
        if let n = Int(v), (1...100).contains(n) {
          acquisition.stableFixes = n
        } else {
          problem("StableFixes= must be 1-100")
        }
      case ("Acquisition", "RetryDelay"):
        if let d = Duration(timeSpan: v), d >= .seconds(1) {
          acquisition.retryDelay = d
        } else {
          problem("RetryDelay= must be a time span of at least 1s, e.g. 1min")
        }
      default:
        if ["Daemon", "Sources", "Position", "Limits", "Timers", "TimeZone", "Acquisition"].contains(
          entry.section)
        {
          problem("unknown key '\(entry.key)' in [\(entry.section)]")
        } else {
          problem("unknown section [\(entry.section)]")
        }
      }
    }
    if sawSource { sources = fileSources }
    return problems.sorted(by: { $0.line < $1.line })
  }

  /// Parses a systemd boolean: yes/no, true/false, on/off, 1/0.
  public static func parseBool(_ text: String) -> Bool? {
    switch text.lowercased() {
    case "yes", "true", "on", "1": return true
    case "no", "false", "off", "0": return false
    default: return nil
    }
  }

  /// Parses `1km`, `500m`, `250` (metres).
  public static func parseDistance(_ text: String) -> Meters? {
    var t = Substring(text)
    var scale = 1.0
    if t.hasSuffix("km") {
      scale = 1000
      t = t.dropLast(2)
    } else if t.hasSuffix("m") {
      t = t.dropLast()
    }
    guard let v = Double(t.trimmingSpaces()), v >= 0, v.isFinite else { return nil }
    return Meters(v * scale)
  }
}
