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
        "/etc/locd/locd.conf:3: Socket= must be an absolute path",
        "/etc/locd/locd.conf:4: unknown key 'NoSuchKey' in [Daemon]",
        "/etc/locd/locd.conf:6: unknown section [Nope]",
        "/etc/locd/locd.conf:8: invalid source 'ftp://x': unknown scheme 'ftp' (replay, gpsd, nmea+tcp, nmea+tcp-listen, nmea+udp, serial)",
        "/etc/locd/locd.conf:9: expected Key=Value, got 'broken line'",
      ])
    #expect(c.socketPath == DaemonConfig().socketPath)
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
  ])
  func sourceURIsRoundTrip(_ input: String, _ normalised: String) throws {
    #expect(try SourceURI(parsing: input).description == normalised)
  }

  @Test(arguments: [
    "gpsd", "gpsd://", "gpsd://host:0", "gpsd://host:70000", "nmea+tcp://host", "serial:ttyUSB0",
    "serial:/dev/ttyUSB0?baud=1234", "replay:", "replay:/x?speed=0", "replay:/x?speed=fast",
    "replay:/x?loop=yes",
    "replay:/x?foo=1", "gpsd://h?nmea", "http://x", "nmea+tcp://:10110", "gpsd://:2947",
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
    #expect(bad.first?.message == "Policy= must be on-demand or continuous")
    #expect(bad.last?.message == "unknown key 'Watch' in [Acquisition]")
    #expect(d.acquisition == Acquisition.Policy())
  }
}
