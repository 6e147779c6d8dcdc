import LocProtocol
import Testing

@testable import LocCore

/// Every message on the socket, encoded and decoded again, comes back equal: what the
/// daemon encodes from a view is what a client decodes into the same view.
@Suite struct RoundTripTests {
  typealias S = WireSamples

  /// Through the bytes a client reads: one line, parsed, decoded.
  func viaLine(_ message: ServerMessage) throws -> ServerMessage {
    let bytes = message.lineBytes
    #expect(bytes.last == 0x0A && bytes.dropLast().firstIndex(of: 0x0A) == nil, "one line")
    return try ServerMessage.decode(bytes.dropLast())
  }

  func roundTrip<T: WireCodable>(_ value: T) throws -> T {
    try T(json: JSON.parse(value.json.serialized))
  }

  /// `report` as a status reply, sent as a line and read back (equal to what was sent): the
  /// result it carries.
  func statusResult(_ report: StatusReport) throws -> JSON {
    let message = ServerMessage.reply(.number(1), .status(report))
    let back = try viaLine(message)
    #expect(back == message)
    guard case .reply(_, let result) = back else {
      Issue.record("not a reply: \(back)")
      return .null
    }
    return result
  }

  @Test func everyRequestDecodesToWhatWasEncoded() throws {
    let requests = try S.requests()
    #expect(Set(requests.map(\.method)) == Set(WireRequest.methods), "every method once at least")
    for (n, request) in requests.enumerated() {
      for id in [RequestID.number(Int64(n)), .string("req-\(n)")] {
        let decoded = try WireRequest.decode(Array(request.line(id: id).utf8)).get()
        #expect(decoded.0 == id)
        #expect(decoded.1 == request, "\(request.line(id: id))")
      }
    }
  }

  @Test func greetingAndHello() throws {
    let greeting = ServerMessage.greeting(Greeting(serverVersion: "0.1.0"))
    #expect(try viaLine(greeting) == greeting)
    for access in [AccessLevel.none, .read, .admin] {
      let result = HelloResult(session: 42, access: access)
      #expect(try roundTrip(result) == result)
    }
  }

  @Test func statusWithBeacons() throws {
    var report = try S.status()
    report.beacons = BeaconStatus(
      scanning: true, monitors: 2, ranging: 1, tracked: 7,
      counters: [Counter("sightings", 2140), Counter("unmatched", 12), Counter("refusedPerSession", 1)])
    let view = try Call.status.result(try statusResult(report))
    #expect(view.beacons == BeaconStatusView(try #require(report.beacons)))
    #expect(view.beacons?.counters.map(\.name) == ["sightings", "unmatched", "refusedPerSession"])
  }

  /// `geoclue` in `status` (1.4): present with the face's report, absent without it, and an
  /// unknown state from a newer daemon kept as its word.
  @Test func statusWithGeoClue() throws {
    var report = try S.status()
    let plain = ServerMessage.reply(.number(1), .status(report))
    #expect(plain.json["result"]?["geoclue"] == nil, "absent while the face is off")
    report.geoClue = GeoClueReport(
      state: .nameTaken, reason: "another program owns it", clients: 3, activeClients: 1,
      agents: [1000, 1001],
      counters: [Counter("clientsCreated", 4), Counter("starts", 2), Counter("locationsSignalled", 17)])
    let result = try statusResult(report)
    #expect(result["geoclue"]?["state"]?.string == "name-taken")
    let view = try #require(try Call.status.result(result).geoclue)
    #expect(view == GeoClueStatusView(try #require(report.geoClue)))
    #expect(view.agents == [1000, 1001] && view.clients == 3 && view.activeClients == 1)
    #expect(view.counters.map(\.name) == ["clientsCreated", "starts", "locationsSignalled"])
    // A state this build does not know, from a newer daemon.
    var o = try #require(view.json.object)
    o["state"] = .string("paused-by-admin")
    let newer = try GeoClueStatusView(json: .object(o))
    #expect(newer.state == .other("paused-by-admin"))
  }

  /// `chrony` in `status`: what went, what was withheld and why (1.10), read back as sent;
  /// a writer or reason from a newer daemon kept as its word; a 1.7 member without the 1.10
  /// members read as nothing withheld.
  @Test func statusWithChrony() throws {
    var report = try S.status()
    let at = Instant(iso8601: "2026-06-21T19:57:21.316Z")!
    var chrony = ChronyReport(socket: "/run/chrony.locd.sock", maxDisagreement: .seconds(60))
    chrony.sent = 12
    chrony.lastOffset = -0.052
    chrony.untrusted = 70
    chrony.lastUntrusted = ChronyReport.Withheld(
      source: "nmea+tcp-listen://127.0.0.1:10110", writer: .localUser(uid: 65534), seconds: 3599.949, at: at)
    chrony.disagreeing = 3
    chrony.lastDisagreement = ChronyReport.Withheld(
      source: "serial:/dev/ttyUSB0?baud=auto", writer: .device, seconds: 3600.012, at: at)
    chrony.socketRefused = 5
    chrony.socketProblem = .symbolicLink(path: "/tmp/x/refclock.sock")
    chrony.refusedSince = at
    chrony.systemClock = .synchronised
    report.chrony = chrony
    let result = try statusResult(report)
    #expect(result["chrony"]?["lastUntrusted"]?["writer"]?.string == "local-user")
    #expect(result["chrony"]?["lastUntrusted"]?["uid"] == .number(65534))
    #expect(result["chrony"]?["refusal"]?["reason"]?.string == "symbolic-link")
    #expect(result["chrony"]?["maxDisagreement"] == .number(60))
    let view = try #require(try Call.status.result(result).chrony)
    #expect(view == ChronyStatusView(chrony))
    #expect(view.untrusted == 70 && view.disagreeing == 3 && view.socketRefused == 5)
    #expect(view.lastDisagreement?.offset == 3600.012 && view.systemClock == .known(.synchronised))
    #expect(
      view.refusal?.message
        == "/run/chrony.locd.sock is reached through a symbolic link (/tmp/x/refclock.sock); name it by a path without links"
    )
    // A writer this build does not know, from a newer daemon.
    var o = try #require(view.json.object)
    var last = try #require(o["lastUntrusted"]?.object)
    last["writer"] = .string("bluetooth-peer")
    o["lastUntrusted"] = .object(last)
    #expect(try ChronyStatusView(json: .object(o)).lastUntrusted?.writer == .other("bluetooth-peer"))
    // A 1.7 daemon's member.
    let old = try ChronyStatusView(
      json: .object(["socket": .string("/run/c.sock"), "sent": .number(3), "failed": .number(0)]))
    #expect(old.untrusted == 0 && old.refusal == nil && old.maxDisagreement == nil && old.systemClock == nil)
  }

  @Test func everyResponse() throws {
    let responses: [Response] =
      [
        .status(try S.status()), .subscriptions([.location, .sourceStatus]), .subscriptions([]),
        .manualLocation(S.manual, previous: nil), .manualLocation(nil, previous: S.manual),
        .manualLocation(nil, previous: nil), .done,
        .timers(
          [
            try S.timer(),
            try S.timer(
              file: "/etc/locd/timers.d/x.timer", action: .command(argv: ["/bin/true", "x"], user: nil),
              outcome: TimerActionOutcome(succeeded: false, at: S.t, detail: "exited with status 3")),
          ], problems: ["a.timer:3: bad rule"], now: S.t.adding(microseconds: 123_456)),
        .timer(try S.timer(action: .event)),
        .located(LocateAnswer(position: S.fresh, wanted: 50, waited: .seconds(2.3456), note: "n")),
        .located(
          LocateAnswer(
            position: S.degraded, wanted: 10, waited: .seconds(30),
            note: "no fresh fix within 10 m came in 30 s")),
        .acquisition(S.acquisition()), .acquisition(S.settledAcquisition()),
        .beaconRanging(S.beaconConstraint),
        .beaconMonitor(S.beaconConstraint, state: .inside, exitAfter: .seconds(30)),
        .waited(try S.waitedForRule()),
        .waited(.timezoneChanged(ZoneChange(from: nil, to: S.zone, reason: .start))),
        .regions(RegionWireTests.monitored), .skies([S.sky]), .skies([]),
        .lightDark(try S.lightDark()), .lightDark(S.unknownLightDark),
      ] + AppSamples.responses
    for (n, response) in responses.enumerated() {
      let message = ServerMessage.reply(.number(Int64(n)), response)
      let back = try viaLine(message)
      #expect(back == message)
      guard case .reply(_, let result) = back else {
        Issue.record("not a reply: \(back)")
        continue
      }
      // The typed result a client decodes into, equal to the view the daemon encoded from.
      switch response {
      case .status(let r): #expect(try Call.status.result(result) == StatusView(r))
      case .subscriptions(let k): #expect(try Call.subscribe(k).result(result).events == k)
      case .manualLocation(let p, let previous):
        let decoded = try Call.clearLocation.result(result)
        #expect(decoded.manual == p.map { PositionView($0, rounded: false) })
        #expect(decoded.previous == previous.map { PositionView($0, rounded: false) })
      case .done: #expect(try Call.reload.result(result) == EmptyResult())
      case .timers(let list, let problems, let now):
        #expect(
          try Call.listTimers.result(result)
            == TimerListResult(timers: list.map(TimerView.init), problems: problems, now: now))
      case .timer(let t): #expect(try Call.showTimer("x").result(result).timer == TimerView(t))
      case .located(let a): #expect(try Call.locate().result(result) == LocateView(a))
      case .acquisition(let a): #expect(try Call.refresh.result(result).acquisition == AcquisitionView(a))
      case .hello(let a): #expect(try Call.hello().result(result) == HelloResult(a))
      case .appStatus(let r):
        #expect(try Call.setActivity(.foreground).result(result).authorization == AppStatusView(r))
      case .agent(let uid, let pending):
        #expect(try Call.registerAgent.result(result) == AgentResult(uid: uid, pending: pending))
      case .apps(let list): #expect(try Call.listApps().result(result).apps == list.map(AppListingView.init))
      case .app(let l): #expect(try Call.changeApp(l.key.app, .reset).result(result).app == AppListingView(l))
      case .beaconRanging(let c): #expect(try Call.rangeBeacons(c).result(result).constraint == c)
      case .beaconMonitor(let c, let state, let exitAfter):
        #expect(
          try Call.monitorBeacons(c).result(result)
            == BeaconMonitorResult(constraint: c, state: state, exitAfter: exitAfter))
      case .waited(let o):
        let rule = try TimerRule(parsing: "sunset-30m")
        #expect(try Call.wait(.rule(rule)).result(result) == WaitResult(o))
      case .regions(let list):
        #expect(try Call.regionState().result(result) == RegionsResult(regions: list.map(RegionView.init)))
      case .lightDark(let s):
        #expect(try Call.lightDark().result(result) == LightDarkView(s))
        #expect(try Call.setMode(.auto).result(result) == LightDarkView(s))
      case .skies(let list):
        let decoded = try Call.sky.result(result)
        #expect(decoded == SkyResult(skies: list.map(SkyView.init)))
        #expect(decoded.skies.first?.summary == list.first.map { SatellitesSummaryView($0.sky.summary) })
      }
    }
  }

  @Test func errors() throws {
    for code in ErrorCode.allCases {
      let message = ServerMessage.failure(.string("x"), RequestError(code, "what went wrong: \"\(code)\""))
      #expect(try viaLine(message) == message)
    }
    let anonymous = ServerMessage.failure(nil, RequestError(.invalidJSON, "not valid JSON"))
    #expect(try viaLine(anonymous) == anonymous)
  }

  @Test func everyEvent() throws {
    let a = S.acquisition()
    var acquisition = Acquisition(policy: Acquisition.Policy())
    _ = acquisition.trigger(.oneShot, at: S.t)
    let notices: [Notice] =
      [
        .location(S.fresh, fix: S.fix), .location(S.degraded, fix: nil), .location(S.fresh, fix: S.noFix),
        .significantChange(from: S.manual, to: S.position, distance: 1234.56),
        .significantChange(from: nil, to: S.position, distance: nil), .sourceStatus(S.source), .sky(S.sky),
        .sourceStatus(SourceSnapshot(id: SourceID(1), uri: "serial:/dev/ttyACM0", state: .idle)),
        .sourceStatus(
          SourceSnapshot(
            id: SourceID(2), uri: "serial:/dev/ttyUSB0?baud=auto", state: .starting,
            lastError: "no NMEA at 9600, 4800, 38400, 115200 baud",
            fault: SourceFault(kind: .noNMEA, reason: "no NMEA at 9600, 4800, 38400, 115200 baud", since: S.t)
          )),
        .timezoneChanged(ZoneChange(from: nil, to: S.zone, reason: .start)),
        .timezoneChanged(
          ZoneChange(
            from: ZoneReport(id: "Etc/UTC", origin: .system, offsetSeconds: nil, abbreviation: nil),
            to: S.zone,
            reason: .significantChange)),
        .solarRegenerated(
          SolarRegeneration(reason: .localMidnight, zone: "Europe/Oslo", before: [], after: S.solarDays())),
        .timerFired(
          try S.firing(), zone: "Europe/Madrid",
          local: LocalDateTime(microsecondsSinceLocalEpoch: S.t.microsecondsSinceEpoch + 7_200_000_000)),
        .acquisition(AcquisitionChange(transition: acquisition.lastTransition!, report: a)),
        .accessChanged(
          AccessChange(
            from: .read, to: .none, reason: .configurationReloaded, unsubscribed: [.location, .timerFired],
            subscriptions: [])),
        .accessChanged(
          AccessChange(
            from: .read, to: .admin, reason: .configurationReloaded, unsubscribed: [],
            subscriptions: [.accessChanged, .location])),
        .beaconsRanged(S.beaconConstraint, S.rangedBeacons), .beaconsRanged(S.beaconConstraint, []),
        .beaconRegion(S.beaconConstraint, .entered, state: .inside),
        .beaconRegion(S.beaconConstraint, .exited, state: .outside),
        .beaconRegion(S.beaconConstraint, .determinedOutside, state: .outside),
        .simulationFinished(
          SimulationReport(
            state: .finished, time: S.t, pauses: 2, pausedFor: .milliseconds(1500), exitAtEnd: false)),
        .region(RegionNotice(id: try RegionID("home"), event: .exit, state: .outside, at: S.t, since: S.t)),
        .visit(.arrived(Visit(coordinate: S.oslo, accuracy: 8, arrival: S.t))),
        .heading(HeadingReading(magneticHeading: 359.96, time: S.t, source: "compass:")),
        .heading(HeadingReading(magneticHeading: 0, trueHeading: 3.25, time: S.t, source: "compass:")),
        .lightDark(try S.lightDark(), reason: .transition), .lightDark(S.unknownLightDark, reason: .override),
        .lightDark(try S.lightDark(), reason: .regenerated(.resume)),
      ] + AppSamples.notices
    #expect(Set(notices.compactMap(\.kind)) == Set(EventKind.allCases), "every kind once at least")
    for notice in notices {
      let message = ServerMessage.event(EventMessage(notice, at: S.t))
      #expect(try viaLine(message) == message, "\(message.line)")
    }
  }

  /// The status object with its apps member.
  @Test func statusWithApps() throws {
    var report = try S.status()
    report.apps = AppSamples.report
    let message = ServerMessage.reply(.number(1), .status(report))
    #expect(try viaLine(message) == message)
    let back = try StatusView(json: StatusView(report).json)
    #expect(back.apps == AppsStatusView(AppSamples.report))
  }

  /// Unknown event kinds (from a newer minor version) survive as `.other`.
  @Test func eventOfANewerKind() throws {
    let line = #"{"type":"event","event":"geofence","time":"2026-06-21T19:57:21.316544Z","data":{"place":1}}"#
    let message = try ServerMessage.decode(Array(line.utf8))
    #expect(
      message
        == .event(EventMessage(time: S.t, data: .other(name: "geofence", data: .object(["place": .int(1)])))))
    #expect(message.line == line)
  }
}
