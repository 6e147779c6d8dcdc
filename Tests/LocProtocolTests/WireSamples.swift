import LocProtocol

@testable import LocCore

/// Core reports with awkward values (times to the microsecond, coordinates with many
/// decimals, missing values) for the wire tests: what the engine hands the daemon.
enum WireSamples {
  static let t = Instant(iso8601: "2026-06-21T19:57:21.316544Z")!
  /// A sky: a used GPS satellite, an SBAS one without a signal, a GLONASS one without a
  /// position, and one GPS satellite on a second signal.
  static let sky = SourceSky(
    source: "serial:/dev/ttyACM0",
    sky: Sky(satellites: [
      Satellite(constellation: .gps, svid: 17, prn: 17, elevation: 72, azimuth: 207, signal: 32, used: true),
      Satellite(
        constellation: .gps, svid: 17, prn: 17, elevation: 72, azimuth: 207, signal: 29.5, used: true,
        signalID: 8
      ),
      Satellite(constellation: .sbas, svid: 123, prn: 36, elevation: 30, azimuth: 200.5),
      Satellite(constellation: .glonass, svid: 6, prn: 70, signal: 21),
    ]), time: t)

  /// A light/dark schedule with an override and a polar note; whole seconds, as the engine
  /// gives them.
  static func lightDark() throws -> LightDarkSchedule {
    LightDarkSchedule(
      mode: .dark, scheduled: .light, since: Instant(iso8601: "2026-06-21T04:12:09Z")!,
      transitions: [
        LightDarkTransition(mode: .dark, at: Instant(iso8601: "2026-06-21T20:57:13Z")!),
        LightDarkTransition(mode: .light, at: Instant(iso8601: "2026-06-22T04:12:31Z")!),
      ],
      rules: try LightDarkRules(dark: "civil-dusk+10m", light: "elevation:3:morning"),
      override: LightDarkOverride(mode: .dark, until: Instant(iso8601: "2026-06-21T20:57:13Z")!),
      note: "no sunset 2026-05-20..2026-07-22 (polar day: the Sun stays above that elevation); then",
      zone: "Europe/Oslo")
  }

  /// The schedule without a position, with an override that has no end yet.
  static let unknownLightDark = LightDarkSchedule(
    mode: .light, scheduled: nil, since: nil, transitions: [], rules: .standard,
    override: LightDarkOverride(mode: .light, until: nil), note: "no position", zone: "UTC")

  /// A wildcard-minor constraint of the Govee thermometers' UUID (Tests/Fixtures/beacons).
  static let beaconConstraint = BeaconConstraint("494e5445-4c4c-495f-524f-434b535f4857:20597")!

  /// A ranging list: one beacon with a distance (an unrounded one, as the model gives it),
  /// one with an RSSI but no plausible power, one silent beyond the smoothing window.
  static let rangedBeacons: [RangedBeacon] = {
    let identity = BeaconIdentity(uuid: beaconConstraint.uuid, major: 20597, minor: 62207)
    return [
      RangedBeacon(
        identity: identity, address: BluetoothAddress("a4:c1:38:d5:a3:3b")!, rssi: DecibelMilliwatts(-68.5),
        accuracy: Meters(2.1134890398366466), proximity: .near, lastHeard: t),
      RangedBeacon(
        identity: identity, address: BluetoothAddress("d0:35:33:33:44:03")!, rssi: DecibelMilliwatts(-52),
        accuracy: nil, proximity: .unknown, lastHeard: t.adding(seconds: -1.5)),
      RangedBeacon(
        identity: identity, address: BluetoothAddress("e3:60:59:21:80:65")!, rssi: nil, accuracy: nil,
        proximity: .unknown, lastHeard: t.adding(seconds: -7)),
    ]
  }()
  static let oslo = Coordinate(lat: 59.913_912_345_6, lon: 10.752_245_678_9)!

  static let position = Position(
    coordinate: oslo, accuracy: 4.23, altitude: 23.456, time: t, receivedAt: t.adding(seconds: 0.25),
    source: "gpsd://127.0.0.1:2947")
  static let manual = Position(
    coordinate: Coordinate(lat: -33.8688, lon: 151.2093)!, accuracy: nil, time: t, receivedAt: t,
    source: "manual", name: "Sydney \"office\"")

  static let fresh = ResolvedPosition(tier: .fix, position: position, age: .milliseconds(1_234))
  static let degraded = PositionResolver.resolve(
    fix: nil, lastKnown: nil, manual: nil, freshFor: .seconds(10), now: t, sourceProblem: "no source")

  static let fix = Fix(
    time: t, coordinate: oslo, mode: .threeD, quality: .dgps, altitudeMSL: 23.456, speed: 1.234,
    course: 271.5, horizontalAccuracy: 4.23, satellitesUsed: 9, satellitesInView: 14, hdop: 0.87)
  static let noFix = Fix(time: t, coordinate: nil, mode: .noFix)

  static let source = SourceSnapshot(
    id: SourceID(0), uri: "nmea+tcp://gps.local:10110", state: .reconnecting(retryAt: t.adding(seconds: 2.5)),
    counters: [Counter("sentences", 1200), Counter("fixes", 120), Counter("badChecksums", 3)],
    lastError: "connect: Connection refused")

  static let zone: ZoneReport = {
    var z = ZoneReport(
      id: "Europe/Oslo", origin: .position, offsetSeconds: 7200, abbreviation: "CEST",
      reason: "Europe/Oslo from the position")
    z.borderDistance = 850.4
    return z
  }()

  /// Oslo's summer time as a fixed zone (POSIX TZ string), for today's sun.
  static let cest = ZoneRules(name: "Europe/Oslo", posix: "CEST-2")!

  static func acquisition() -> AcquisitionReport {
    var a = Acquisition(policy: Acquisition.Policy())
    _ = a.trigger(.manual, at: t)
    _ = a.trigger(.start, at: t.adding(seconds: 1.5))
    return a.report(pendingLocates: 2)
  }

  static func settledAcquisition() -> AcquisitionReport {
    var a = Acquisition(policy: Acquisition.Policy())
    _ = a.trigger(.refresh, at: t)
    for i in 0..<3 { _ = a.fix(oslo, accuracy: 4.26, at: t.adding(seconds: Double(i) + 0.4)) }
    return a.report(pendingLocates: 0)
  }

  static func timer(
    file: String? = nil, action: TimerAction = .startUnit("night-mode.service"),
    outcome: TimerActionOutcome? = nil
  ) throws -> TimerStatus {
    let rule = try TimerRule(parsing: "sunset-30m Mon-Fri")
    let definition = TimerDefinition(
      name: "lamp", rule: rule, action: action, missed: .once, origin: file.map { .file($0) } ?? .runtime)
    let next = TimerOccurrence(
      date: CivilDate(year: 2026, month: 6, day: 22)!, instant: t.adding(seconds: 86_000.7),
      eventInstant: t.adding(seconds: 87_800.7), note: nil)
    return TimerStatus(
      definition: definition, next: next,
      nextLocal: LocalDateTime(
        microsecondsSinceLocalEpoch: next.instant.microsecondsSinceEpoch + 7_200_000_000),
      nextOffsetSeconds: 7200, nextAbbreviation: "CEST", reason: "sunset on 2026-06-22, 30m earlier",
      lastFiredAt: t.adding(seconds: -86_400), zone: "Europe/Oslo", lastOutcome: outcome)
  }

  static func status() throws -> StatusReport {
    var server = ServerCounters()
    server.accepted = 10
    server.invalidJSON = 2
    server.permissionDenied = 1
    var report = StatusReport(
      position: fresh,
      fix: FixSummary(
        mode: .threeD, quality: .gps, satellitesUsed: 9, satellitesInView: 12, accuracy: 4.26, hdop: 0.9,
        time: t, altitudeMSL: 23.456, speed: 1.23456, course: 271.54),
      sources: [source], timeZone: zone,
      sun: SunReport(today: oslo, in: cest, at: t),
      server: server, sessions: 2, startedAt: t.adding(seconds: -3600.9), stateProblem: nil,
      summary: "3D fix, 9 sats, ±4 m, Europe/Oslo", timers: 3, nextTimer: try timer(),
      rejectedFixes: [Counter("no-fix", 0), Counter("implausible-jump", 1)], acquisition: acquisition())
    report.manual = manual
    report.now = t.adding(microseconds: 400_321)
    report.satellites = sky.sky.summary
    return report
  }

  /// Today in Tromsø in December (polar night: no sunrise or sunset) and in Oslo in June.
  static func solarDays() -> [SolarDaySummary] {
    func day(_ c: Coordinate, _ date: CivilDate, offset: Int64) -> SolarDaySummary {
      let start = Instant(microsecondsSinceEpoch: Int64(date.daysSinceEpoch) * 86_400_000_000 - offset)
      let end = start.adding(seconds: 86_400)
      return SolarDaySummary(SolarCalculator(coordinate: c).day(date, interval: start..<end))
    }
    return [
      day(
        Coordinate(lat: 69.6492, lon: 18.9553)!, CivilDate(year: 2026, month: 12, day: 21)!,
        offset: 3_600_000_000),
      day(oslo, CivilDate(year: 2026, month: 6, day: 21)!, offset: 7_200_000_000),
    ]
  }

  static func firing() throws -> TimerFiring {
    TimerFiring(
      name: "dusk", rule: try TimerRule(parsing: "civil_dusk"),
      action: .command(argv: ["/usr/local/bin/dim", "--level", "3"], user: "alice"),
      occurrence: TimerOccurrence(
        date: CivilDate(year: 2026, month: 6, day: 21)!, instant: t, eventInstant: t.adding(seconds: -0.0004),
        note: "22:00 happened twice; the first"),
      firedAt: t.adding(seconds: 0.0123456), missed: 2)
  }

  /// A `wait` for `sunset-30m` answered 0.25 s late, in Oslo's summer time.
  static func waitedForRule() throws -> WaitOutcome {
    let o = TimerOccurrence(
      date: CivilDate(year: 2026, month: 6, day: 21)!, instant: t, eventInstant: t.adding(seconds: 1800.0004),
      note: nil)
    return .occurred(
      try TimerRule(parsing: "sunset-30m"), o, late: .milliseconds(250), zone: "Europe/Oslo",
      local: LocalDateTime(microsecondsSinceLocalEpoch: t.microsecondsSinceEpoch + 7_200_000_000),
      offsetSeconds: 7200)
  }

  /// Every request method at least once, with awkward values (the round-trip and the
  /// hostile-values tests start from these).
  static func requests() throws -> [WireRequest] {
    typealias S = WireSamples
    return
      [
        .hello(protocolMajor: 1, app: "org.example.Maps", client: nil),
        .hello(protocolMajor: 7, app: nil, client: "locctl"),
        .request(.status), .request(.subscribe(Set(EventKind.allCases))), .request(.subscribe([.location])),
        .request(.unsubscribe([.timerFired, .acquisition])),
        .request(.setLocation(S.oslo, name: nil, accuracy: nil)),
        .request(.setLocation(S.oslo, name: "Oslo \"sentrum\"", accuracy: 12.5)), .request(.clearLocation),
        .request(.reload), .request(.listTimers), .request(.sky), .request(.showTimer("lamp")),
        .request(.removeTimer("a.b@c-d_1")),
        .request(
          .addTimer(TimerDefinition(name: "lamp", rule: try TimerRule(parsing: "sunset-30m Mon-Fri")))),
        .request(
          .addTimer(
            TimerDefinition(
              name: "wake", rule: try TimerRule(parsing: "07:30 Sat,Sun"), action: .startUnit("wake.service"),
              missed: .all))),
        .request(.locate(timeout: nil, accuracy: nil)),
        .request(.locate(timeout: .milliseconds(2500), accuracy: 20)),
        .request(.locate(timeout: .zero, accuracy: 0.5)), .request(.refresh),
        .request(.rangeBeacons(S.beaconConstraint)), .request(.stopRangingBeacons(S.beaconConstraint)),
        .request(.monitorBeacons(S.beaconConstraint, exitAfter: nil)),
        .request(.monitorBeacons(S.beaconConstraint, exitAfter: .milliseconds(12_500))),
        .request(.stopMonitoringBeacons(S.beaconConstraint)),
        .request(.wait(.rule(try TimerRule(parsing: "civil_dusk+1h30m Mon-Fri")))),
        .request(.wait(.timezoneChange)),
        .request(.registerRegion(RegionWireTests.region)), .request(.unregisterRegion(try RegionID("home"))),
        .request(.regionState(nil)), .request(.regionState(try RegionID("h\u{f6}me"))),
        .request(.monitorVisits(true)),
        .request(.monitorVisits(false)), .request(.setLaunchUnit("app-org.example.Fences.service")),
        .request(.setLaunchUnit(nil)), .request(.startHeading(filter: 0)),
        .request(.startHeading(filter: 12.5)), .request(.stopHeading),
        .request(.lightDark(rules: nil, follow: false)), .request(.lightDark(rules: nil, follow: true)),
        .request(
          .lightDark(
            rules: try LightDarkRules(dark: "elevation:-3:evening+10m", light: "elevation:3:morning"),
            follow: true)),
        .request(.setMode(.dark)), .request(.setMode(.light)), .request(.setMode(.toggle)),
        .request(.setMode(.auto)),
      ] + AppSamples.requests
  }
}
