extension DaemonConfig {
  /// Every key of locd.conf, in the order of locd.conf(5) and the shipped example: what it
  /// takes, its range, and where it goes. The defaults are the `DaemonConfig()` values. A
  /// table, so longer than a function should be.
  public static let keys: [ConfigKey<DaemonConfig>] = [
    // [Daemon]
    .path("Daemon", "Socket", "PATH", \.socketPath),
    .text("Daemon", "SocketGroup", "GROUP", what: "a group name", \.socketGroup, valid: isName),
    .ranged(
      "Daemon", "SocketMode", "MODE", what: "octal permission bits", \.socketMode, range: 0...0o777,
      parse: ConfigKey.reading({ UInt32($0, radix: 8) }, else: "not an octal number"),
      format: { $0 == 0 ? "0" : "0" + String($0, radix: 8) }),
    .text("Daemon", "ReadGroup", "GROUP", what: "a group name", \.readGroup, valid: isName),
    .text("Daemon", "AdminGroup", "GROUP", what: "a group name", \.adminGroup, valid: isName),
    .path("Daemon", "StateDirectory", "DIR", \.stateDirectory),
    .choice(
      "Daemon", "LogLevel", "LEVEL", \.logLevel,
      [
        ("emerg", .emergency), ("alert", .alert), ("crit", .critical), ("err", .error), ("warning", .warning),
        ("notice", .notice), ("info", .info), ("debug", .debug),
      ],
      synonyms: [("emergency", .emergency), ("critical", .critical), ("error", .error), ("warn", .warning)]),
    // [Sources]
    ConfigKey(
      section: "Sources", name: "Source", placeholder: "URI", allowed: nil, isList: true,
      read: { config, text in
        guard !text.isEmpty else {
          config.sources = []
          return nil
        }
        do throws(SourceURI.ParseError) {
          config.sources.append(try SourceURI(parsing: text))
          return nil
        } catch {
          return error.description
        }
      },
      show: { $0.effectiveSources.map(\.description) }, clear: { $0.sources = [] }),
    .names("Sources", "AllowUsers", "USER...", what: "a user name or uid", \.allowUsers),
    .names("Sources", "AllowGroups", "GROUP...", what: "a group name or gid", \.allowGroups),
    // [Position]
    .span("Position", "FreshFor", \.freshFor, .milliseconds(1) ... .seconds(86_400)),
    .distance("Position", "SignificantDistance", \.significantDistance, 0...maxDistance),
    .text(
      "Position", "TimeZone", "ZONE", what: "a zone name such as Europe/Oslo", \.timeZone, valid: isZoneName),
    .text(
      "Position", "StaticFile", "PATH", what: "an absolute path", \.staticFile, valid: { $0.hasPrefix("/") }),
    // [Network]
    .choice("Network", "Enable", "BOOL", \.network.enabled, yesNo, synonyms: yesNoSynonyms),
    .choice("Network", "IPLookup", "BOOL", \.network.ipLookup, yesNo, synonyms: yesNoSynonyms),
    .required(
      "Network", "URL", "URL", what: "an http:// or https:// URL", \.network.url,
      valid: { ($0.hasPrefix("https://") || $0.hasPrefix("http://")) && $0.utf8.count <= 2048 }),
    .span("Network", "MinInterval", \.network.minInterval, .seconds(1) ... .seconds(86_400)),
    .span("Network", "ScanWait", \.network.scanWait, .seconds(1) ... .seconds(3600)),
    .span("Network", "Timeout", \.network.timeout, .seconds(1) ... .seconds(120)),
    .span("Network", "MaxAge", \.network.freshFor, .seconds(1) ... .seconds(7 * 86_400)),
    .span("Network", "RescanAfter", \.network.rescanAfter, .seconds(10) ... .seconds(86_400)),
    .span("Network", "CacheFor", \.network.cacheFor, .zero ... .seconds(7 * 86_400)),
    // [Modem]
    .text(
      "Modem", "SuplServer", "HOST:PORT",
      what: "a host name or IP address and a port (supl.example.net:7275)",
      \.suplServer, valid: isHostPort),
    // [TimeZone]
    .count("TimeZone", "SwitchFixes", \.zoneSwitch.fixes, 1...1000),
    .distance("TimeZone", "SwitchDistance", \.zoneSwitch.distance, 0...maxDistance),
    .span("TimeZone", "SwitchAfter", \.zoneSwitch.time, .zero ... .seconds(86_400)),
    .choice(
      "TimeZone", "SetSystemTimeZone", "BOOL", \.setSystemTimeZone, [("yes", true), ("no", false)],
      synonyms: [("true", true), ("on", true), ("1", true), ("false", false), ("off", false), ("0", false)]),
    // [Acquisition]
    .choice(
      "Acquisition", "Policy", "on-demand|continuous", \.acquisition.mode,
      [("on-demand", .onDemand), ("continuous", .continuous)]),
    .span(
      "Acquisition", "RefreshInterval", \.acquisition.refreshInterval, .seconds(1) ... .seconds(7 * 86_400)),
    .span("Acquisition", "Timeout", \.acquisition.timeout, .seconds(1) ... .seconds(3600)),
    .distance("Acquisition", "Accuracy", \.acquisition.accuracy, 0.01...maxDistance),
    .count("Acquisition", "StableFixes", \.acquisition.stableFixes, 1...100),
    .span("Acquisition", "RetryDelay", \.acquisition.retryDelay, .seconds(1) ... .seconds(86_400)),
    // [Timers]
    .path("Timers", "Directory", "DIR", \.timersDirectory),
    .span("Timers", "MissedAfter", \.missedAfter, .milliseconds(1) ... .seconds(7 * 86_400)),
    .text("Timers", "CommandUser", "USER", what: "a user name", \.commandUser, valid: isName),
    .count("Timers", "MaxTimers", \.maxTimers, 1...100_000),
    // [Apps]
    .path("Apps", "PolicyDirectory", "DIR", \.apps.policyDirectory),
    .span("Apps", "InUseGrace", \.apps.inUseGrace, .zero ... .seconds(3600)),
    .span("Apps", "MaxEventAge", \.apps.maxEventAge, .seconds(1) ... .seconds(7 * 86_400)),
    .span("Apps", "PromptTimeout", \.apps.promptTimeout, .seconds(1) ... .seconds(86_400)),
    .span("Apps", "PromptInterval", \.apps.promptInterval, .zero ... .seconds(7 * 86_400)),
    .count("Apps", "MaxAppsPerUser", \.apps.maxAppsPerUser, 1...100_000),
    // At most the 32 MiB the reader of apps/UID.json accepts (AppStoreFile.sizeLimit).
    .count("Apps", "MaxStoreBytesPerUser", \.apps.maxStoreBytesPerUser, 4096...(32 << 20)),
    .count("Apps", "MaxQueuedEvents", \.apps.maxQueuedEvents, 1...10_000),
    // [Regions]
    .count("Regions", "MaxRegionsPerApp", \.regions.maxRegionsPerApp, 1...100_000),
    // At most 100,000, about 200 bytes each in the users' apps files (apps/UID.json).
    .count("Regions", "MaxRegions", \.regions.maxRegions, 1...100_000),
    .count("Regions", "MaxRegionsPerUser", \.regions.maxRegionsPerUser, 1...100_000),
    .ranged(
      "Regions", "MaxSpeed", "SPEED", what: "a speed in m/s", \.regions.maxSpeed,
      range: MetersPerSecond(1)...MetersPerSecond(1000),
      // A plain decimal (DecimalText): not Double's hexadecimal (0x10 is 16), inf or nan.
      parse: ConfigKey.reading(
        { if case .number(let v) = DecimalText.read(Substring($0)) { MetersPerSecond(v) } else { nil } },
        else: "not a number of m/s"),
      format: { $0.value == $0.value.rounded() ? "\(Int($0.value))" : "\($0.value)" }),
    .span("Regions", "HintFloor", \.regions.hintFloor, .seconds(1) ... .seconds(3600)),
    // [Limits]
    .count("Limits", "MaxClients", \.maxClients, 1...65536),
    .count("Limits", "ReservedAdminClients", \.reservedAdminClients, 0...65536),
    .count("Limits", "MaxClientsPerUser", \.maxClientsPerUser, 1...65536),
    .count("Limits", "MaxRequestBytes", \.maxRequestBytes, 256...(16 << 20)),
    .count("Limits", "MaxQueuedBytesPerClient", \.maxQueuedBytesPerClient, 4096...(256 << 20)),
    .count("Limits", "MaxQueuedBytesTotal", \.maxQueuedBytesTotal, 65536...(4 << 30)),
    .span("Limits", "HandshakeTimeout", \.handshakeTimeout, .milliseconds(1) ... .seconds(3600)),
    .span("Limits", "ReplayStallTimeout", \.replayStallTimeout, .milliseconds(100) ... .seconds(86_400)),
    .span("Limits", "IdleTimeout", \.idleTimeout, .milliseconds(1) ... .seconds(86_400)),
    // [GeoClue]
    .choice(
      "GeoClue", "Enable", "BOOL", \.geoClueEnabled, [("yes", true), ("no", false)],
      synonyms: [("true", true), ("on", true), ("1", true), ("false", false), ("off", false), ("0", false)]),
    .count("GeoClue", "MaxClients", \.geoClue.maxClients, 1...65536),
    .count("GeoClue", "ReservedAdminClients", \.geoClue.reservedAdminClients, 0...65536),
    .count("GeoClue", "MaxClientsPerUser", \.geoClue.maxClientsPerUser, 1...65536),
    .span("GeoClue", "AgentTimeout", \.geoClue.agentTimeout, .seconds(1) ... .seconds(600)),
    // dbus-daemon refuses locd's calls past max_replies_per_connection (128 by default).
    .count("GeoClue", "MaxAgentCalls", \.geoClue.maxAgentCalls, 1...1024),
    .count("GeoClue", "MaxAgentCallsPerUser", \.geoClue.maxAgentCallsPerUser, 1...1024),
    // [Time]
    .text(
      "Time", "ChronySocket", "PATH", what: "an absolute path", \.chronySocket,
      valid: { $0.hasPrefix("/") && $0.utf8.count < 108 }),
    .spanOrOff("Time", "MaxDisagreement", \.maxDisagreement, .seconds(1) ... .seconds(86_400)),
    // [Gpsd]
    .choice(
      "Gpsd", "Enable", "BOOL", \.gpsd.enabled, [("yes", true), ("no", false)],
      synonyms: [("true", true), ("on", true), ("1", true), ("false", false), ("off", false), ("0", false)]),
    // sun_path holds 108 bytes with its NUL (unix(7)).
    .text(
      "Gpsd", "Socket", "PATH", what: "an absolute path", \.gpsd.socketPath,
      valid: { $0.hasPrefix("/") && $0.utf8.count < 108 }),
    .port("Gpsd", "ListenPort", \.gpsd.listenPort),
    .count("Gpsd", "MaxClients", \.gpsd.maxClients, 1...65536),
    .count("Gpsd", "ReservedAdminClients", \.gpsd.reservedAdminClients, 0...65536),
    .count("Gpsd", "MaxClientsPerUser", \.gpsd.maxClientsPerUser, 1...65536),
    .count("Gpsd", "MaxQueuedBytesPerClient", \.gpsd.maxQueuedBytesPerClient, 4096...(256 << 20)),
    // [NMEAOut]
    .choice(
      "NMEAOut", "Enable", "BOOL", \.nmeaOut.enabled, [("yes", true), ("no", false)],
      synonyms: [("true", true), ("on", true), ("1", true), ("false", false), ("off", false), ("0", false)]),
    .path("NMEAOut", "Link", "PATH", \.nmeaOut.link),
    .text("NMEAOut", "Group", "GROUP", what: "a group name", \.nmeaOut.group, valid: isName),
    .ranged(
      "NMEAOut", "Mode", "MODE", what: "octal permission bits", \.nmeaOut.mode, range: 0...0o777,
      parse: ConfigKey.reading({ UInt32($0, radix: 8) }, else: "not an octal number"),
      format: { $0 == 0 ? "0" : "0" + String($0, radix: 8) }),
    .port("NMEAOut", "ListenPort", \.nmeaOut.listenPort),
    .count("NMEAOut", "MaxClients", \.nmeaOut.maxClients, 1...65536),
    .count("NMEAOut", "ReservedAdminClients", \.nmeaOut.reservedAdminClients, 0...65536),
    .count("NMEAOut", "MaxClientsPerUser", \.nmeaOut.maxClientsPerUser, 1...65536),
  ]

  /// The longest distance a key takes: half the Earth's circumference (about 20,000 km), beyond
  /// which no two places are.
  static let maxDistance = Meters(20_000_000)
  /// A BOOL key's words.
  static let yesNo: [(String, Bool)] = [("yes", true), ("no", false)]
  /// A BOOL key's other words.
  static let yesNoSynonyms: [(String, Bool)] = [
    ("true", true), ("on", true), ("1", true), ("false", false), ("off", false), ("0", false),
  ]

  /// A user or group name: not empty, at most 32 bytes, no `/`, `:` or white space
  /// (useradd(8)'s rules are stricter; these are the ones that keep a name a name).
  static func isName(_ text: String) -> Bool {
    !text.isEmpty && text.utf8.count <= 32 && !text.contains { $0 == "/" || $0 == ":" || $0.isWhitespace }
  }

  /// ModemManager's SUPL server form, `IP:PORT` or `FQDN:PORT`: a host of letters, digits,
  /// `.` and `-` (or an IPv6 address in brackets), a port 1 to 65535; at most 255 bytes.
  static func isHostPort(_ text: String) -> Bool {
    guard text.utf8.count <= 255, let colon = text.lastIndex(of: ":") else { return false }
    let host = text[..<colon]
    guard let port = Int(text[text.index(after: colon)...]), (1...65_535).contains(port) else { return false }
    if host.hasPrefix("[") && host.hasSuffix("]") {
      let inner = host.dropFirst().dropLast()
      return !inner.isEmpty && inner.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }
    return !host.isEmpty && !host.hasPrefix("-") && !host.hasPrefix(".")
      && host.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "." || $0 == "-" }
  }

  /// A zone name as tzdata spells them: letters, digits, `/ _ - +`, no `..`.
  static func isZoneName(_ text: String) -> Bool {
    text.utf8.count <= 64 && !hasTwoDots(text) && !text.hasPrefix("/")
      && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/_-+".contains($0)) }
  }

  /// Whether `text` has `..` in it. By its bytes: String's `contains(_: String)` lives in
  /// _StringProcessing, whose one unsplit object (400 KB of code, with _RegexParser's 480 KB)
  /// this was locd's only reason to link (decision 0057).
  static func hasTwoDots(_ text: String) -> Bool {
    var previousWasDot = false
    for byte in text.utf8 {
      let dot = byte == UInt8(ascii: ".")
      if dot && previousWasDot { return true }
      previousWasDot = dot
    }
    return false
  }
}
