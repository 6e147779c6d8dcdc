import Foundation
import LocCore
import Testing

@Suite struct DaemonConfigTests {
  @Test func appliesEveryKey() {
    var c = DaemonConfig()
    let problems = c.apply(
      fileText: """
        # comment
        [Daemon]
        Socket=/run/x/locd.sock
        SocketGroup=gps
        SocketMode=0666
        AdminGroup=wheel
        StateDirectory=/var/lib/x
        LogLevel=debug

        [Sources]
        Source=gpsd://10.0.0.2
        Source=
        Source=replay:/tmp/drive.nmea?speed=max&loop=1
        Source=serial:/dev/ttyACM0?baud=9600

        [Position]
        FreshFor=30s
        SignificantDistance=2.5km
        TimeZone=Europe/Oslo

        [Limits]
        MaxClients=10
        MaxRequestBytes=4096
        HandshakeTimeout=500ms
        """, fileName: "locd.conf")
    #expect(problems.isEmpty)
    #expect(c.socketPath == "/run/x/locd.sock")
    #expect(c.socketMode == 0o666)
    #expect(c.socketGroup == "gps")
    #expect(c.adminGroup == "wheel")
    #expect(c.effectiveReadGroup == "gps")
    #expect(c.logLevel == .debug)
    #expect(
      c.sources == [
        .replay(path: "/tmp/drive.nmea", speed: .max, loop: true),
        .serial(path: "/dev/ttyACM0", baud: .fixed(9600)),
      ])
    #expect(c.freshFor == .seconds(30))
    #expect(c.significantDistance == 2500)
    #expect(c.timeZone == "Europe/Oslo")
    #expect(c.maxClients == 10)
    #expect(c.handshakeTimeout == .milliseconds(500))
  }

  @Test func reportsProblemsWithFileAndLine() {
    var c = DaemonConfig()
    let problems = c.apply(
      fileText:
        "Socket=/x\n[Daemon]\nSocket=relative\nNoSuchKey=1\n[Nope]\nA=1\n[Sources]\nSource=ftp://x\nbroken line\n",
      fileName: "/etc/locd/locd.conf")
    #expect(
      problems.map(\.description) == [
        "/etc/locd/locd.conf:1: assignment outside a [Section]",
        "/etc/locd/locd.conf:3: Socket= must be an absolute path, not 'relative'",
        "/etc/locd/locd.conf:4: unknown key 'NoSuchKey' in [Daemon]",
        "/etc/locd/locd.conf:6: unknown section [Nope]",
        "/etc/locd/locd.conf:8: invalid source 'ftp://x': unknown scheme 'ftp' (replay, gpsd, nmea+tcp, nmea+tcp-listen, nmea+udp, nmea+unix-listen, serial, bluez, modem, compass)",
        "/etc/locd/locd.conf:9: expected Key=Value, got 'broken line'",
      ])
    #expect(c.socketPath == DaemonConfig().socketPath)
  }

  @Test func unknownKeysAndSectionsSuggestTheNearOne() {
    var c = DaemonConfig()
    let problems = c.apply(
      fileText:
        "[Position]\nFresFor=5s\nfreshfor=6s\n[Daemon]\nFreshFor=7s\n[Positon]\nFreshFor=8s\n[Position]\nWatch=1\n",
      fileName: "c")
    #expect(
      problems.map(\.message) == [
        "unknown key 'FresFor' in [Position]; did you mean 'FreshFor'?",
        "unknown key 'freshfor' in [Position]; did you mean 'FreshFor'?",
        "unknown key 'FreshFor' in [Daemon]; FreshFor belongs in [Position]",
        "unknown section [Positon]; did you mean 'Position'?",
        "unknown key 'Watch' in [Position]",
      ])
    #expect(c.freshFor == DaemonConfig().freshFor)
  }

  @Test(arguments: [
    ("gpsd://127.0.0.1:2947", "gpsd://127.0.0.1:2947"),
    ("gpsd://localhost", "gpsd://localhost:2947"),
    ("gpsd://[::1]:2948?nmea=1", "gpsd://[::1]:2948?nmea=1"),
    ("nmea+tcp://phone.lan:10110", "nmea+tcp://phone.lan:10110"),
    ("nmea+tcp-listen://0.0.0.0:10110", "nmea+tcp-listen://0.0.0.0:10110"),
    ("nmea+udp://127.0.0.1:29470", "nmea+udp://127.0.0.1:29470"),
    ("nmea+udp://:10110", "nmea+udp://127.0.0.1:10110"),
    ("nmea+tcp-listen://:10110", "nmea+tcp-listen://127.0.0.1:10110"),
    ("nmea+udp://[::]:10110", "nmea+udp://[::]:10110"),
    ("serial:/dev/ttyUSB0?baud=auto", "serial:/dev/ttyUSB0?baud=auto"),
    ("serial:/dev/ttyUSB0", "serial:/dev/ttyUSB0?baud=auto"),
    ("replay:/a/b.log?speed=10&loop=1", "replay:/a/b.log?speed=10&loop=1"),
    ("replay:rel.log", "replay:rel.log?speed=1&loop=0"),
    ("bluez:", "bluez:"), ("bluez:hci1", "bluez:hci1"),
    ("modem:", "modem:"), ("modem:867698041234567", "modem:867698041234567"),
    ("modem:a1B2.c_d-e", "modem:a1B2.c_d-e"), ("compass:", "compass:"),
  ])
  func sourceURIsRoundTrip(_ input: String, _ normalised: String) throws {
    #expect(try SourceURI(parsing: input).description == normalised)
  }

  @Test(arguments: [
    "gpsd", "gpsd://", "gpsd://host:0", "gpsd://host:70000", "nmea+tcp://host", "serial:ttyUSB0",
    "serial:/dev/ttyUSB0?baud=1234", "replay:", "replay:/x?speed=0", "replay:/x?speed=fast",
    "replay:/x?loop=yes",
    "replay:/x?foo=1", "gpsd://h?nmea", "http://x", "nmea+tcp://:10110", "gpsd://:2947",
    "bluez:hci", "bluez:usb0", "bluez:hci0/dev", "bluez:hci123456", "bluez:?x=1",
    "modem:/org/freedesktop/ModemManager1/Modem/0", "modem:a b", "modem:?x=1", "modem:ü",
    "modem:" + String(repeating: "1", count: 65), "compass:x", "compass:?x=1", "compass://",
  ])
  func sourceURIsRejected(_ input: String) {
    #expect(throws: SourceURI.ParseError.self) { try SourceURI(parsing: input) }
  }
}

@Suite struct TimerConfigTests {
  @Test func timerAndZoneKeys() {
    var c = DaemonConfig()
    let problems = c.apply(
      fileText: """
        [Timers]
        Directory=/srv/timers
        MissedAfter=5min
        CommandUser=alice
        MaxTimers=20
        [TimeZone]
        SwitchFixes=5
        SwitchDistance=250m
        SwitchAfter=2min
        SetSystemTimeZone=yes
        """, fileName: "t.conf")
    #expect(problems.isEmpty, "\(problems)")
    #expect(c.timersDirectory == "/srv/timers" && c.missedAfter == .seconds(300) && c.commandUser == "alice")
    #expect(c.maxTimers == 20 && c.zoneSwitch.fixes == 5 && c.zoneSwitch.distance == 250)
    #expect(c.zoneSwitch.time == .seconds(120) && c.setSystemTimeZone)
    var d = DaemonConfig()
    let bad = d.apply(
      fileText: "[Timers]\nDirectory=timers\nMaxTimers=0\n[TimeZone]\nSetSystemTimeZone=maybe\n",
      fileName: "b")
    #expect(bad.map(\.line) == [2, 3, 5])
  }
}

@Suite struct AcquisitionConfigTests {
  @Test func acquisitionKeys() {
    var c = DaemonConfig()
    #expect(c.acquisition == Acquisition.Policy(), "on-demand by default")
    #expect(c.acquisition.mode == .onDemand && c.acquisition.refreshInterval == .seconds(900))
    #expect(c.acquisition.timeout == .seconds(60) && c.acquisition.accuracy == 50)
    let problems = c.apply(
      fileText: """
        [Acquisition]
        Policy=continuous
        RefreshInterval=30min
        Timeout=2min
        Accuracy=25m
        StableFixes=3
        RetryDelay=30s
        """, fileName: "a.conf")
    #expect(problems.isEmpty, "\(problems)")
    #expect(c.acquisition.mode == .continuous && c.acquisition.refreshInterval == .seconds(1800))
    #expect(c.acquisition.timeout == .seconds(120) && c.acquisition.accuracy == 25)
    #expect(c.acquisition.stableFixes == 3 && c.acquisition.retryDelay == .seconds(30))
    var d = DaemonConfig()
    let bad = d.apply(
      fileText:
        "[Acquisition]\nPolicy=sometimes\nTimeout=0\nAccuracy=0m\nStableFixes=0\nRefreshInterval=soon\nWatch=1\n",
      fileName: "b")
    #expect(bad.map(\.line) == [2, 3, 4, 5, 6, 7])
    #expect(bad.first?.message == "Policy= must be on-demand or continuous, not 'sometimes'")
    #expect(bad.last?.message == "unknown key 'Watch' in [Acquisition]")
    #expect(d.acquisition == Acquisition.Policy())
  }
}

/// The table of keys (`DaemonConfig.keys`) is what `apply` reads, what `--check-config`
/// prints, and what locd.conf(5) and the shipped example document: these hold them together.
@Suite struct ConfigTableTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// One `.BI Key= VALUE` entry of locd.conf(5): its section, key, placeholder and text
  /// (troff fonts and macros removed, white space collapsed).
  struct ManEntry {
    var section: String
    var key: String
    var placeholder: String
    var text: String
  }

  static func manEntries() throws -> [ManEntry] {
    let page = try String(
      contentsOf: root.appendingPathComponent("docs/man/locd.conf.5"), encoding: .utf8)
    var entries: [ManEntry] = []
    var section = ""
    var current: ManEntry? = nil
    func plain(_ line: Substring) -> String {
      var text = String(line)
      if text.hasPrefix("."), let space = text.firstIndex(of: " ") {
        text = String(text[text.index(after: space)...])
      } else if text.hasPrefix(".") {
        text = ""
      }
      for escape in ["\\fB", "\\fR", "\\fI", "\""] { text = text.replacingOccurrences(of: escape, with: "") }
      return text.replacingOccurrences(of: "\\-", with: "-")
    }
    for line in page.split(separator: "\n") {
      if line.hasPrefix(".SH ") || line.hasPrefix(".TP") {
        if let c = current { entries.append(c) }
        current = nil
        if line.hasPrefix(".SH [") { section = String(line.dropFirst(5).dropLast()) }
        if line.hasPrefix(".SH ") && !line.hasPrefix(".SH [") { section = "" }
      } else if line.hasPrefix(".BI "), current == nil, !section.isEmpty {
        let words = line.dropFirst(4).split(separator: " ")
        current = ManEntry(
          section: section, key: String(words[0].dropLast()), placeholder: String(words[1]), text: "")
      } else if current != nil {
        current!.text += " " + plain(line)
      }
    }
    return entries.map { e in
      var e = e
      e.text = e.text.split(whereSeparator: { $0 == " " }).joined(separator: " ")
      return e
    }
  }

  @Test func theManPageDocumentsExactlyTheTableWithItsDefaultsAndRanges() throws {
    let entries = try Self.manEntries()
    #expect(entries.map { "\($0.section)/\($0.key)" } == DaemonConfig.keys.map(\.id), "same keys, same order")
    for (entry, key) in zip(entries, DaemonConfig.keys) {
      #expect(entry.placeholder == key.placeholder, "\(key.id)")
      let text = entry.text.lowercased()
      let shown = key.defaults.first ?? ""
      let defaultPhrase = shown.isEmpty ? "empty by default" : "default \(shown.lowercased())"
      #expect(text.contains(defaultPhrase), "\(key.id): '\(defaultPhrase)' not in: \(entry.text)")
      if let allowed = key.allowed {
        #expect(entry.text.contains(allowed), "\(key.id): '\(allowed)' not in: \(entry.text)")
      }
    }
  }

  @Test func theShippedExampleListsEveryKeyAtItsDefault() throws {
    let example = try String(contentsOf: Self.root.appendingPathComponent("conf/locd.conf"), encoding: .utf8)
    var section = ""
    var seen: [String: String] = [:]  // id -> first value shown
    for line in example.split(separator: "\n") {
      if line.hasPrefix("[") { section = String(line.dropFirst().dropLast()) }
      guard line.hasPrefix("#"), let eq = line.firstIndex(of: "="), !line.contains(" ") else { continue }
      let id = "\(section)/\(line[line.index(after: line.startIndex)..<eq])"
      if seen[id] == nil { seen[id] = String(line[line.index(after: eq)...]) }
    }
    #expect(Set(seen.keys) == Set(DaemonConfig.keys.map(\.id)))
    for key in DaemonConfig.keys {
      #expect(seen[key.id] == key.defaults.first, "\(key.id)")
    }
    // And the example is valid as shipped.
    var c = DaemonConfig()
    #expect(c.apply(fileText: example, fileName: "locd.conf").isEmpty)
    #expect(c == DaemonConfig())
  }

  @Test func whatCheckConfigPrintsReadsBackToTheSameConfiguration() throws {
    var c = DaemonConfig()
    let problems = c.apply(
      fileText: """
        [Daemon]
        SocketMode=0600
        AdminGroup=wheel
        LogLevel=warn
        [Sources]
        Source=serial:/dev/ttyACM0
        Source=nmea+udp://:10110
        [Position]
        FreshFor=1h 30min 250ms
        SignificantDistance=2.5km
        TimeZone=America/Argentina/Buenos_Aires
        [TimeZone]
        SwitchAfter=0
        SetSystemTimeZone=on
        [Acquisition]
        Accuracy=0.05m
        """, fileName: "a.conf")
    #expect(problems.isEmpty, "\(problems)")
    let printed = c.effectiveSettings
    #expect(printed.contains("\nSocketMode=0600\n") && printed.contains("\nLogLevel=warning\n"))
    #expect(
      printed.contains("\nFreshFor=1h 30min 250ms\n") && printed.contains("\nSignificantDistance=2.5km\n"))
    #expect(printed.contains("\n#MaxClients=2048\n"), "defaults are commented out")
    var again = DaemonConfig()
    #expect(again.apply(fileText: printed, fileName: "printed").isEmpty)
    #expect(again == c)
    // The defaults print as the shipped example has them, and read back to the defaults.
    var fresh = DaemonConfig()
    #expect(fresh.apply(fileText: DaemonConfig().effectiveSettings, fileName: "d").isEmpty)
    #expect(fresh == DaemonConfig())
  }

  @Test(arguments: DaemonConfig.keys.filter { $0.allowed != nil && !$0.isList })
  func everyRangedKeyRefusesJustOutsideItsRangeWithFileAndLine(_ key: ConfigKey<DaemonConfig>) throws {
    // Past the upper end of each range (a value twice the maximum, or an unknown word).
    let allowed = try #require(key.allowed)
    let upper = allowed.components(separatedBy: " to ").last ?? allowed
    let outside: String
    if let n = Int(upper) {
      outside = "\(n * 2 + 1)"
    } else if upper.hasSuffix("km") {
      outside = "40000km"
    } else if let span = Duration(timeSpan: upper) {
      outside = TimeSpan.format(span + span)
    } else {
      outside = "neither"
    }
    var c = DaemonConfig()
    let problems = c.apply(fileText: "# x\n[\(key.section)]\n\(key.name)=\(outside)\n", fileName: "f")
    #expect(problems.map(\.description) == ["f:3: \(problems.first?.message ?? "")"])
    #expect(problems.first?.message.hasPrefix("\(key.name)= must be") == true, "\(problems)")
    #expect(c == DaemonConfig())
  }
}
