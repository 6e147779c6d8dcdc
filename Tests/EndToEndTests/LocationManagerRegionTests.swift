import Foundation
import Glibc
import LocCore
import LocProtocol
import LocationManager
import Testing

/// The LocationManager library's regions and visits in this process, against the real locd
/// with `--clock replay` and synthetic NMEA (RMC + GGA, HDOP 0.9), as RegionDaemonTests
/// drives it: an always app monitors two regions and visits and gets them as typed events at
/// the simulated times the rule gives (docs/REGIONS.md); `requestState` and
/// `monitoredRegions` answer at once; refusals carry locd's codes; an app with reduced
/// accuracy is refused region and visit monitoring.
@Suite(.serialized) struct LocationManagerRegionTests {
  static let t0 = RegionDaemonTests.t0
  static let lat = RegionDaemonTests.lat

  /// At home (x = 0) 100 s at 1 Hz, then 6 min with a fix a minute; east at 10 m/s to
  /// x = 2,500 m (through "a", into "b"), parked there 6 min with a fix a minute.
  static func day() -> (points: [(Instant, Double, Double, Double)], leftHome: Instant, parked: Instant) {
    let lon = RegionDaemonTests.lon
    var points = (0..<100).map { (t0.adding(seconds: Double($0)), lat, lon(0), 0.0) }
    points += (1...6).map { (t0.adding(seconds: Double(99 + 60 * $0)), lat, lon(0), 0.0) }
    let leftHome = points.last!.0
    points += (1...250).map { (leftHome.adding(seconds: Double($0)), lat, lon(Double($0) * 10), 10.0) }
    let parked = points.last!.0
    points += (1...6).map { (parked.adding(seconds: Double(60 * $0)), lat, lon(2500), 0.0) }
    return (points, leftHome, parked)
  }

  /// The code of locd's refusal of `call`; nil when it succeeded or failed otherwise.
  static func code(_ call: () async throws -> Void) async -> ErrorCode? {
    do {
      try await call()
      return nil
    } catch ControlClient.Failure.daemon(let reply) {
      return reply.code.known
    } catch {
      return nil
    }
  }

  /// Every event left in `events` once the manager is closed (the stream then ends).
  static func rest(_ events: inout AsyncStream<LocationManagerEvent>.Iterator) async -> [LocationManagerEvent]
  {
    var all: [LocationManagerEvent] = []
    while let e = await events.next() { all.append(e) }
    return all
  }

  /// On a thread of its own (ThreadExecutor): the calls must get in while the replay is at
  /// home, whatever else `make test` runs.
  @Test func regionsAndVisitsComeAsTypedEventsAtTheirSimulatedTimes() async throws {
    try await withTaskExecutorPreference(ThreadExecutor()) { try await Self.regionsAndVisits() }
  }

  static func regionsAndVisits() async throws {
    let dir = LocdProcess.makeDirectory()
    let (points, leftHome, parked) = Self.day()
    try syntheticNMEA(points).write(toFile: dir + "/day.nmea", atomically: true, encoding: .utf8)
    // 20× real time: the 100 s at home at 1 Hz (5 s here) are the time the calls below have to
    // get in before the visit at home could be missed; the regions matter 9 s in.
    let owner = try DaemonThread(
      arguments: ["--clock", "replay", "--source", "replay:\(dir)/day.nmea?speed=20"],
      config: "[Regions]\nMaxRegionsPerApp=2\n")
    defer { owner.release() }
    let daemon = owner.daemon
    let app = "org.example.Fences"
    #expect(try daemon.locctl(["apps", "grant", app, "--always"]).status == 0)
    // The replay starts at the manager's hello (its subscription to its authorization) or,
    // where locd waits for a request that wants events, at startMonitoringVisits().
    let manager = try await LocationManager(app: app, socketPath: daemon.socketPath)
    var events = manager.events.makeAsyncIterator()
    try await manager.startMonitoringVisits()
    let a = try CircularRegion(
      id: "a", latitude: Self.lat, longitude: RegionDaemonTests.lon(1000), radius: 300)
    let b = try CircularRegion(
      id: "b", latitude: Self.lat, longitude: RegionDaemonTests.lon(2500), radius: 300, notifyOnExit: false)
    try await manager.startMonitoring(for: a)
    try await manager.startMonitoring(for: b)
    // Refusals with their codes: the same id again, a third region (MaxRegionsPerApp=2), a
    // launch unit from an app only its word names (this process runs in no app unit).
    let again = try CircularRegion(id: "a", latitude: Self.lat, longitude: 10.7, radius: 50)
    #expect(await Self.code { try await manager.startMonitoring(for: again) } == .alreadyExists)
    let c = try CircularRegion(id: "c", latitude: Self.lat, longitude: 10.7, radius: 50)
    #expect(await Self.code { try await manager.startMonitoring(for: c) } == .tooManyRegions)
    #expect(await Self.code { try await manager.setLaunchUnit("app-\(app).service") } == .notAuthorized)
    // Values out of range never reach locd: making the region throws.
    #expect(throws: RegionError.self) {
      try CircularRegion(id: "z", latitude: Self.lat, longitude: 10.7, radius: 0)
    }

    _ = try daemon.waitForStatus(timeout: 90) { $0.sourceState() == .known(.finished) }
    // Answered at once: "a" was left, the device is parked in "b".
    #expect(try await manager.requestState(for: a) == .outside)
    #expect(try await manager.requestState(for: b) == .inside)
    let monitored = try await manager.monitoredRegions()
    // As registered (the centre as the wire carries it: to a millimetre).
    #expect(monitored.map(\.region.id) == [a.id, b.id], "\(monitored)")
    for (m, r) in zip(monitored, [a, b]) {
      #expect(m.region.centre.distance(to: r.centre).value < 0.001 && m.region.radius == r.radius)
      #expect(m.region.notifyOnEntry == r.notifyOnEntry && m.region.notifyOnExit == r.notifyOnExit)
    }
    #expect(monitored.map(\.state) == [.outside, .inside])
    try await manager.stopMonitoring(for: a)
    #expect(await Self.code { _ = try await manager.requestState(for: a) } == .notFound)
    #expect(try await manager.monitoredRegions().map(\.region.id) == [b.id])
    manager.close()
    let all = await Self.rest(&events)

    let accuracy = try #require(daemon.status().fix?.accuracy?.value)
    try Self.checkRegionEvents(all, [a, b], points, accuracy: accuracy)
    try Self.checkVisits(all, leftHome: leftHome, parked: parked)
    #expect(try daemon.status().regions?.visitApps == 1)
  }

  /// The `.region` events of `all`: typed (none left as `.other`), in order, each at the
  /// simulated time the rule gives for `points` and a fix of `accuracy`.
  static func checkRegionEvents(
    _ all: [LocationManagerEvent], _ regions: [CircularRegion], _ points: [(Instant, Double, Double, Double)],
    accuracy: Double
  ) throws {
    // Typed, in order, and none left as `.other`.
    let others = all.compactMap { e -> String? in
      if case .other(let name, _) = e { return name } else { return nil }
    }
    #expect(!others.contains("region") && !others.contains("visit"), "\(others)")
    let notices = all.compactMap { e -> RegionNotice? in
      if case .region(let n) = e { return n } else { return nil }
    }
    #expect(
      notices.map { "\($0.id) \($0.event.rawValue) \($0.state.rawValue)" }
        == ["a enter inside", "a exit outside", "b enter inside"], "\(notices)")
    // Each event's `since` is the first fix beyond the margin (3 × the accuracy) after the
    // true crossing, and `at` the fix 20 s later that confirmed it.
    let late = 3 * accuracy / 10 + 1
    for n in notices {
      let region = try #require(regions.first { $0.id == n.id })
      let truth = RegionDaemonTests.truth(points, region.centre, region.radius.value)
      let crossed = try #require(n.event == .enter ? truth.enter : truth.exit)
      let after = n.since.duration(since: crossed).seconds
      #expect(after >= 0 && after <= late, "\(n.id) \(n.event): since \(n.since), truth \(crossed)")
      #expect(n.at.duration(since: n.since) == .seconds(20), "\(n.id) \(n.event) at \(n.at)")
    }
  }

  /// The `.visit` events of `all`: at home, then in "b".
  static func checkVisits(_ all: [LocationManagerEvent], leftHome: Instant, parked: Instant) throws {
    // At home: the arrival, then the departure with the last fix there; then in "b".
    let visits = all.compactMap { e -> Visit? in
      if case .visit(let v) = e { return v } else { return nil }
    }
    #expect(visits.map { $0.departure == nil } == [true, false, true], "\(visits)")
    guard visits.count == 3 else { return }
    let home = RegionDaemonTests.point(0)
    #expect(visits[0].arrival >= Self.t0 && visits[0].arrival <= Self.t0.adding(seconds: 100), "\(visits[0])")
    #expect(visits[1].arrival == visits[0].arrival && visits[1].coordinate.distance(to: home).value < 10)
    let departed = try #require(visits[1].departure)
    #expect(departed >= leftHome && departed <= leftHome.adding(seconds: 12), "\(departed)")
    #expect(visits[2].arrival >= parked.adding(seconds: -20) && visits[2].arrival <= parked, "\(visits[2])")
    #expect(visits[2].coordinate.distance(to: RegionDaemonTests.point(2500)).value < 60)
  }

  /// The region example (Examples/Geofence) as a process of its own, on the same drive: it
  /// registers "a", prints its state, and prints the entry and the exit at their simulated
  /// times, then stops monitoring it and exits 0.
  /// It blocks while the example runs: on ThreadExecutor's thread, not one of the pool's.
  @Test func theGeofenceExamplePrintsTheEntryAndTheExit() async throws {
    try await withTaskExecutorPreference(ThreadExecutor()) { try Self.geofence() }
  }

  static func geofence() throws {
    let dir = LocdProcess.makeDirectory()
    let points = Self.day().points
    try syntheticNMEA(points).write(toFile: dir + "/day.nmea", atomically: true, encoding: .utf8)
    let daemon = try LocdProcess(
      arguments: ["--clock", "replay", "--source", "replay:\(dir)/day.nmea?speed=20"], directory: dir)
    let app = "org.example.Geofence"
    #expect(try daemon.locctl(["apps", "grant", app, "--always"]).status == 0)
    let centre = RegionDaemonTests.point(1000)
    let r = try run(
      Binaries.geofence,
      [
        "a", "\(centre.latitude.value),\(centre.longitude.value)", "300", "--socket", daemon.socketPath,
        "--app", app, "--timeout", "60",
      ], timeout: 90)
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 3 && ["a: unknown", "a: outside"].contains(lines.first ?? ""), "\(r.stdout)")
    guard lines.count == 3 else { return }
    // "a: enter at TIME, now inside": TIME the fix 20 s after the first beyond the margin.
    let truth = RegionDaemonTests.truth(points, centre, 300)
    let late = 3 * (try #require(daemon.status().fix?.accuracy?.value)) / 10 + 1
    for (line, event, state, crossed) in [
      (lines[1], "enter", "inside", truth.enter), (lines[2], "exit", "outside", truth.exit),
    ] {
      let words = line.split(separator: " ").map(String.init)
      #expect(words.count == 6 && words[1] == event && words[5] == state, "\(line)")
      let at = try #require(words.count == 6 ? Instant(iso8601: String(words[3].dropLast())) : nil, "\(line)")
      let after = at.duration(since: try #require(crossed)).seconds
      #expect(after >= 20 && after <= 20 + late, "\(line): \(after) s after the true crossing")
    }
    #expect(try daemon.status().regions?.regions == 0, "the example stopped monitoring")
    #expect(daemon.stop() == 0)
  }

  /// Reduced accuracy: region and visit monitoring are refused with
  /// `precise-location-required`, as Core Location refuses them; nothing is registered.
  @Test func aReducedAccuracyAppIsRefusedRegionsAndVisits() async throws {
    let owner = try DaemonThread()
    defer { owner.release() }
    let daemon = owner.daemon
    let app = "org.example.Vague"
    #expect(try daemon.locctl(["apps", "grant", app, "--always", "--reduced"]).status == 0)
    let manager = try await LocationManager(app: app, socketPath: daemon.socketPath)
    #expect(manager.accuracyAuthorization == .reduced && manager.authorizationStatus == .always)
    let region = try CircularRegion(id: "home", latitude: 59.9139, longitude: 10.7522, radius: 150)
    do {
      try await manager.startMonitoring(for: region)
      Issue.record("an app with reduced accuracy registered a region")
    } catch {
      guard case .daemon(let reply) = error else { throw error }
      #expect(reply.code == .known(.preciseLocationRequired), "\(reply)")
    }
    do {
      try await manager.startMonitoringVisits()
      Issue.record("an app with reduced accuracy monitors visits")
    } catch {
      guard case .daemon(let reply) = error else { throw error }
      #expect(reply.code == .known(.preciseLocationRequired), "\(reply)")
    }
    let status = try daemon.status()
    #expect(status.regions?.regions == 0 && status.regions?.visitApps == 0)
    #expect(status.regions?.counters.first { $0.name == "refusedReduced" }?.value ?? 0 >= 1)
  }
}
