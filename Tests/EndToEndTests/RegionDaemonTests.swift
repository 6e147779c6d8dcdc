import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Regions against the real locd with `--clock replay` and synthetic NMEA (RMC + GGA at
/// 1 Hz, HDOP 0.9): the events come at the simulated times the geometry and the documented
/// rule give (docs/REGIONS.md), a receiver parked on a boundary makes no event, and the apps
/// rules decide who hears what (a when-in-use app in the background, an always app that
/// disconnected: queued, its launch unit started over a private D-Bus bus, dropped after
/// MaxEventAge=).
@Suite(.serialized) struct RegionDaemonTests {
  static let t0 = Instant(iso8601: "2026-06-21T10:00:00Z")!
  static let lat = 59.9
  /// Metres east along the parallel → longitude (the parallel's degree is 111,195 m × cos φ).
  static func lon(_ x: Double) -> Double { 10.7 + x / (111_195.0 * cos(lat * .pi / 180)) }
  static func point(_ x: Double) -> Coordinate { Coordinate(lat: lat, lon: lon(x))! }

  /// East at 10 m/s from x = 0, a fix a second, until `until` metres; then parked at `park`
  /// offsets from there (one a second).
  static func drive(until end: Double, parked offsets: [Double]) -> [(Instant, Double, Double, Double)] {
    var points: [(Instant, Double, Double, Double)] = []
    var t = t0
    var x = 0.0
    while x <= end {
      points.append((t, lat, lon(x), 10))
      t = t.adding(seconds: 1)
      x += 10
    }
    for o in offsets {
      points.append((t, lat, lon(end + o), 0))
      t = t.adding(seconds: 1)
    }
    return points
  }

  /// The first instant of `points` within `radius` of `centre`, and the first after it
  /// outside again: the true entry and exit (great-circle distance, as the rule measures).
  static func truth(_ points: [(Instant, Double, Double, Double)], _ centre: Coordinate, _ radius: Double)
    -> (enter: Instant?, exit: Instant?)
  {
    var enter: Instant? = nil
    for (t, la, lo, _) in points {
      let d = Coordinate(lat: la, lon: lo)!.distance(to: centre).value
      if enter == nil, d <= radius { enter = t }
      if enter != nil, d > radius { return (enter, t) }
    }
    return (enter, nil)
  }

  static func region(_ id: String, _ x: Double, _ r: Double) -> CircularRegion {
    try! CircularRegion(id: RegionID(id), centre: point(x), radius: Meters(r))
  }

  @Test func threeRegionsEnteredAndLeftAtTheirTimesAndNoFlappingOnABoundary() throws {
    let dir = LocdProcess.makeDirectory()
    // Parked on the boundary of "edge" for 10 min, jittering ±8 m along the drive (alternating,
    // then seeded random), which is inside the margin of a fix with this accuracy (below).
    // A fixed seed: the same jitter every run, so a failure can be replayed.
    var rng = SplitMix64(seed: 0x5EED_0012)
    var jitter: [Double] = (0..<300).map { $0 % 2 == 0 ? 8 : -8 }
    jitter += (0..<300).map { _ in Double.random(in: -8...8, using: &rng) }
    let points = Self.drive(until: 7000, parked: jitter)
    try syntheticNMEA(points).write(toFile: dir + "/drive.nmea", atomically: true, encoding: .utf8)
    // The replay starts at the app's first request (the first register-region): at 50× the
    // drive reaches the first region 3 s later, long after the four registrations are in.
    let daemon = try LocdProcess(
      arguments: ["--clock", "replay", "--source", "replay:\(dir)/drive.nmea?speed=50"], directory: dir)
    let app = "org.example.Fences"
    #expect(try daemon.locctl(["apps", "grant", app, "--always"]).status == 0)
    let a = try AppSocket(daemon, app: app)
    let regions = [
      Self.region("a", 1500, 200), Self.region("b", 3500, 300), Self.region("c", 5500, 150),
      Self.region("edge", 6600, 400),
    ]
    for r in regions {
      let reply = try a.call(.registerRegion(r))
      #expect(reply.regions.map(\.state) == [.known(.unknown)])
    }
    _ = try a.call(.subscribe([.region]))
    _ = try daemon.waitForStatus(timeout: 60) { $0.sourceState() == .known(.finished) }
    a.drain(for: 1)
    // The rule's margin is 3 × the fix's accuracy (at least 5 m): the jitter of ±8 m stays
    // inside it only if the accuracy is above 8/3 m.
    let accuracy = try #require(daemon.status().fix?.accuracy?.value)
    #expect(accuracy > 8.0 / 3 && accuracy < 10, "HDOP 0.9 gives \(accuracy) m")
    let got = a.regionEvents
    #expect(
      got.map { "\($0.data.id) \($0.data.event.word)" }
        == ["a enter", "a exit", "b enter", "b exit", "c enter", "c exit", "edge enter"], "\(got)")
    // Each event's `since` is the first fix beyond the margin: after the true crossing, by
    // at most the margin (3 × accuracy) at 10 m/s plus one fix; its time is 20 s of fixes later.
    let late = 3 * accuracy / 10 + 1
    for r in regions {
      let truth = Self.truth(points, r.centre, r.radius.value)
      for (event, at) in [("enter", truth.enter), ("exit", truth.exit)] {
        guard let at, let e = got.first(where: { $0.data.id == r.id.value && $0.data.event.word == event })
        else {
          continue
        }
        let after = e.data.since.duration(since: at).seconds
        #expect(after >= 0 && after <= late, "\(r.id) \(event): since \(e.data.since), truth \(at)")
        #expect(e.time.duration(since: e.data.since) == .seconds(20), "\(r.id) \(event) at \(e.time)")
      }
    }
    // The state is there at once; "edge" is still inside after 10 min on its line.
    let states = try a.call(.regionState())
    #expect(
      states.regions.map { "\($0.id)=\($0.state.word)" } == [
        "a=outside", "b=outside", "c=outside", "edge=inside",
      ])
    let status = try daemon.status()
    #expect(status.regions?.regions == 4 && status.regions?.apps == 1)
    #expect(status.regions?.counters.first { $0.name == "transitions" }?.value ?? 0 >= 7)
    // locctl status says when the next fix for regions is due, and why.
    let text = try daemon.locctl(["status"])
    let line = text.stdout.split(separator: "\n").first { $0.hasPrefix("Regions:") }.map(String.init) ?? ""
    #expect(
      line.contains("4 regions of 1 app; next fix due ") && line.contains(" because "), "\(text.stdout)")
    #expect(status.regions?.nextFixDue != nil && status.regions?.because?.isEmpty == false)
    // Every fix reached the monitor, the jittering ones too (none was dropped on the way).
    let evaluated = status.regions?.counters.first { $0.name == "fixes" }?.value ?? 0
    #expect(evaluated == points.count, "\(evaluated) of \(points.count)")
    a.close()
    #expect(daemon.stop() == 0)
  }

  /// One region; two apps in the foreground at the entry. Then the when-in-use app goes to the
  /// background and the always app disconnects; the exit comes 1 min later (simulated). The
  /// first gets nothing and finds the state right when it comes back; the second's exit is
  /// queued and its launch unit started (the StartUnit call on the bus); it comes back after
  /// MaxEventAge= and gets nothing, and the drop is counted. The replay runs at 5× so that the
  /// test can act between the entry and the exit (1 min simulated, 12 s here).
  @Test(
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-monitor") && getuid() == 0,
      "needs dbus-daemon, dbus-monitor and root (a cgroup for the verified app)"))
  func backgroundAndDisconnectedAppsFollowTheirAuthorization() throws {
    let dir = LocdProcess.makeDirectory()
    let (address, bus, monitor) = try PrivateBus.start(in: dir)
    defer { PrivateBus.stop(bus, monitor) }
    // East at 10 m/s into the region (centre 600 m, radius 300: in at 300 m, 30 s), through it
    // and out at 900 m (90 s), on to 1,300 m, then parked with a fix a minute for 6 min (gaps
    // over 10 s replay as one second, so the wait for MaxEventAge= costs no real time).
    var points = Self.drive(until: 1300, parked: [])
    let end = points.last!.0
    points += (1...6).map { (end.adding(seconds: Double($0 * 60)), Self.lat, Self.lon(1300), 0.0) }
    try syntheticNMEA(points).write(toFile: dir + "/drive.nmea", atomically: true, encoding: .utf8)
    let config = "[Apps]\nMaxEventAge=1min\nInUseGrace=5s\n"
    let daemon = try LocdProcess(
      arguments: ["--clock", "replay", "--source", "replay:\(dir)/drive.nmea?speed=5"],
      environment: ["DBUS_SYSTEM_BUS_ADDRESS": address], directory: dir, config: config)
    let wiu = "org.example.Errands"
    let always = "org.example.Fences"
    #expect(try daemon.locctl(["apps", "grant", wiu]).status == 0)
    #expect(try daemon.locctl(["apps", "grant", always, "--always"]).status == 0)
    let region = Self.region("shop", 600, 300)
    let w = try AppSocket(daemon, app: wiu)
    let f = try AppSocket(daemon, app: always)
    for app in [w, f] {
      _ = try app.call(.setActivity(.foreground))
      _ = try app.call(.registerRegion(region))
    }
    // The launch unit is named by the app as the kernel knows it: a process in its systemd
    // app unit (a claimed id names none).
    let named = try VerifiedApp.call(
      "set-launch-unit", #"{"unit":"app-\#(always).service"}"#, app: always, unit: "app-\(always)@1.service",
      socket: daemon.socketPath)
    #expect(named.status == 0, "\(named.stdout) \(named.stderr)")
    _ = try w.call(.subscribe([.region]))  // the replay starts
    // The entry reaches both; then one goes to the background, the other away.
    for app in [w, f] {
      try app.wait(timeout: 60) {
        if case .region(let r) = $0.data { r.event == .known(.enter) } else { false }
      }
    }
    _ = try w.call(.setActivity(.background))
    f.close()
    _ = try daemon.waitForStatus(timeout: 120) { $0.sourceState() == .known(.finished) }
    w.drain(for: 1)
    #expect(w.regionEvents.map(\.data.event) == [.known(.enter)], "no exit for the app in the background")
    // Back in the foreground: the state is right.
    _ = try w.call(.setActivity(.foreground))
    #expect(try w.call(.regionState(try RegionID("shop"))).regions.map(\.state) == [.known(.outside)])
    // The always app's exit waited, its unit was asked for on the bus.
    let log = daemon.log
    #expect(log.contains("region \"shop\" exit, waiting for the app"), "\(log.suffix(3000))")
    #expect(log.contains("starting app-\(always).service"))
    var calls = ""
    for _ in 0..<100 {
      calls = (try? String(contentsOfFile: dir + "/monitor.txt", encoding: .utf8)) ?? ""
      if calls.contains("app-\(always).service") { break }
      usleep(50_000)
    }
    #expect(
      calls.contains("interface=org.freedesktop.systemd1.Manager; member=StartUnit"), "\(calls.suffix(2000))")
    #expect(calls.contains("string \"app-\(always).service\"") && calls.contains("string \"replace\""))
    // Back after MaxEventAge (5 min parked): nothing comes, and the drop is counted.
    let back = try AppSocket(daemon, app: always)
    _ = try back.call(.subscribe([.region]))
    back.drain(for: 1)
    #expect(back.regionEvents.isEmpty, "\(back.regionEvents)")
    let staleDropped = try daemon.status().apps?.counters.first { $0.name == "staleDropped" }?.value
    #expect(staleDropped == 1)
    #expect(try daemon.status().regions?.counters.first { $0.name == "notDelivered" }?.value == 1)
    #expect(daemon.stop() == 0)
  }

  /// Bad input over the socket: each gets its error, the refusals are counted, and the daemon
  /// goes on serving (a status afterwards, a region registered after them).
  @Test func badInputIsRefusedClearlyAndCounted() throws {
    let daemon = try LocdProcess(config: "[Regions]\nMaxRegions=3\nMaxRegionsPerApp=2\n")
    let app = "org.example.Fences"
    #expect(try daemon.locctl(["apps", "grant", app, "--always"]).status == 0)
    let a = try AppSocket(daemon, app: app)
    func refusal(_ line: String) throws -> ErrorReply {
      try a.raw.send(line + "\n")
      while true {
        switch try a.raw.readMessage() {
        case .error(_, let reply): return reply
        case .event: continue
        case let other: throw HarnessError("expected an error, got \(other.line)")
        }
      }
    }
    func register(_ params: String) -> String {
      #"{"id":9,"method":"register-region","params":{\#(params)}}"#
    }
    for radius in ["0", "-5", "1e9", "\"NaN\"", "9.5", "100001"] {
      let e = try refusal(register(#""id":"r","lat":59.9,"lon":10.7,"radius":\#(radius)"#))
      #expect(e.code == .known(.invalidParams), "radius \(radius): \(e)")
      #expect(e.message.contains("radius"), "radius \(radius): \(e.message)")
      #expect(!e.message.contains("59.9"), "no coordinates in error messages")
    }
    let nan = try refusal(register(#""id":"r","lat":59.9,"lon":10.7,"radius":NaN"#))
    #expect(nan.code == .known(.invalidJSON))
    // Duplicates and the limits (2 per app, 3 in all).
    _ = try a.call(.registerRegion(Self.region("one", 0, 100)))
    #expect(throws: ErrorReply.self) { try a.call(.registerRegion(Self.region("one", 500, 100))) }
    let dup = try refusal(
      WireRequest.request(.registerRegion(Self.region("one", 500, 100))).line(id: .number(10)))
    #expect(dup.code == .known(.alreadyExists) && dup.message.contains("\"one\""))
    _ = try a.call(.registerRegion(Self.region("two", 0, 100)))
    let perApp = try refusal(
      WireRequest.request(.registerRegion(Self.region("three", 0, 100))).line(id: .number(11)))
    #expect(
      perApp.code == .known(.tooManyRegions) && perApp.message.contains("MaxRegionsPerApp=2"), "\(perApp)")
    let b = try AppSocket(daemon, app: "org.example.Other")
    #expect(try daemon.locctl(["apps", "grant", "org.example.Other", "--always"]).status == 0)
    _ = try b.call(.registerRegion(Self.region("x", 0, 100)))
    var total: ErrorReply? = nil
    do { _ = try b.call(.registerRegion(Self.region("y", 0, 100))) } catch let e as ErrorReply { total = e }
    #expect(total?.code == .known(.tooManyRegions) && total?.message.contains("MaxRegions=3") == true)
    // Reduced accuracy: refused, as Core Location refuses it.
    #expect(try daemon.locctl(["apps", "grant", "org.example.Vague", "--always", "--reduced"]).status == 0)
    let vague = try AppSocket(daemon, app: "org.example.Vague")
    var reduced: ErrorReply? = nil
    do { _ = try vague.call(.registerRegion(Self.region("v", 0, 100))) } catch let e as ErrorReply {
      reduced = e
    }
    #expect(reduced?.code == .known(.preciseLocationRequired))
    // A plain session may not register regions.
    let plain = try RawClient(path: daemon.socketPath)
    try plain.handshake()
    try plain.send(.registerRegion(Self.region("p", 0, 100)), id: .number(5))
    #expect(try plain.error().reply.code == .known(.permissionDenied))
    // Still serving, every refusal counted.
    let status = try daemon.status()
    #expect(status.regions?.regions == 3)
    let counters = status.regions?.counters ?? []
    #expect(counters.first { $0.name == "refused" }?.value == 4, "\(counters)")
    #expect(counters.first { $0.name == "refusedReduced" }?.value == 1)
    #expect(status.server.counters.invalidRequests >= 6 && status.server.counters.invalidJSON >= 1)
    #expect(daemon.stop() == 0)
    // The registrations survive a restart (the user's apps/UID.json, 0600), their states unknown.
    var st = stat()
    #expect(stat(daemon.stateDirectory + "/apps/\(getuid()).json", &st) == 0 && st.st_mode & 0o777 == 0o600)
    let again = try LocdProcess(
      directory: daemon.directory, config: "[Regions]\nMaxRegions=3\nMaxRegionsPerApp=2\n")
    let back = try AppSocket(again, app: app)
    let regions = try back.call(.regionState()).regions
    #expect(regions.map(\.id) == ["one", "two"] && regions.allSatisfy { $0.state == .known(.unknown) })
    #expect(regions.first?.radius == 100 && regions.first?.notify == ["entry", "exit"])
    #expect(again.stop() == 0)
  }

  /// `locctl regions` against the real daemon: add, state, a duplicate and a bad radius with
  /// their exit statuses and messages, remove; a usage mistake caught before connecting.
  @Test func locctlRegionsAddsShowsAndRemoves() throws {
    let daemon = try LocdProcess()
    let app = "org.example.Fences"
    #expect(try daemon.locctl(["apps", "grant", app, "--always"]).status == 0)
    let add = try daemon.locctl([
      "regions", app, "add", "home", "59.9139,10.7522", "150", "--notify", "entry,exit,dwell", "--dwell",
      "5m",
      "--json",
    ])
    #expect(add.status == 0, "\(add.stderr)")
    let added = try decodeOutput(add.stdout, as: RegionsResult.self)
    #expect(added.regions.map(\.id) == ["home"] && added.regions.first?.dwell == .seconds(300))
    let again = try daemon.locctl(["regions", app, "add", "home", "59.9,10.7", "100"])
    #expect(again.status != 0 && again.stderr.contains("is registered already"), "\(again.stderr)")
    let wide = try daemon.locctl(["regions", app, "add", "wide", "59.9,10.7", "1e9"])
    #expect(wide.status != 0 && wide.stderr.contains("radius"), "\(wide.stderr)")
    let state = try daemon.locctl(["regions", app, "state"])
    #expect(state.status == 0 && state.stdout.hasPrefix("home: unknown, "), "\(state.stdout)")
    #expect(try daemon.locctl(["regions", app, "remove", "home"]).status == 0)
    let gone = try daemon.locctl(["regions", app, "remove", "home"])
    #expect(gone.status != 0 && gone.stderr.contains("no region with id \"home\""), "\(gone.stderr)")
    let usage = try daemon.locctl(["regions", app, "ad", "x"])
    #expect(usage.status == 2 && usage.stderr.contains("did you mean 'add'"), "\(usage.stderr)")
    #expect(daemon.stop() == 0)
  }

  /// `locctl regions APP watch` shows an event's time in the zone in effect in locd, as
  /// `watch` does (it printed UTC): the drive is in Oslo on 2026-06-21, 10:0x UTC = 12:0x CEST.
  @Test func regionsWatchShowsTimesInTheZoneInEffect() throws {
    let dir = LocdProcess.makeDirectory()
    let points = Self.drive(until: 2500, parked: [])
    try syntheticNMEA(points).write(toFile: dir + "/drive.nmea", atomically: true, encoding: .utf8)
    let daemon = try LocdProcess(
      arguments: ["--clock", "replay", "--source", "replay:\(dir)/drive.nmea?speed=50"], directory: dir)
    let app = "org.example.Fences"
    #expect(try daemon.locctl(["apps", "grant", app, "--always"]).status == 0)
    let centre = Self.point(1500)
    // The first request starts the replay; the app is not connected at the entry, which waits
    // for it (an always app's events are kept).
    let add = try daemon.locctl([
      "regions", app, "add", "a", "\(centre.latitude.value),\(centre.longitude.value)", "200",
    ])
    #expect(add.status == 0, "\(add.stderr)")
    let status = try daemon.waitForStatus(timeout: 60) { $0.sourceState() == .known(.finished) }
    #expect(status.timezone.zone.id == "Europe/Oslo")
    let watch = try daemon.locctl(["regions", app, "watch", "--count", "1", "--timeout", "20s"])
    #expect(watch.status == 0, "\(watch.stderr)")
    // 2026-06-21 12:02:32 CEST  region  "a" enter, now inside (since 12:02:12 CEST)
    #expect(watch.stdout.hasPrefix("2026-06-21 12:0"), "\(watch.stdout)")
    #expect(watch.stdout.contains(" CEST  region  \"a\" enter, now inside (since 12:0"), "\(watch.stdout)")
    #expect(watch.stdout.hasSuffix(" CEST)\n"), "\(watch.stdout)")
    #expect(daemon.stop() == 0)
  }

  /// Visits through the daemon: parked 8 min, then away. An always app monitoring visits
  /// hears the arrival (timed from the first fix at the place) and the departure (the last
  /// fix there); `locctl watch` gets them too (a reader sees what the position shows).
  @Test func aVisitArrivesAndDepartsInSimulatedTime() throws {
    let dir = LocdProcess.makeDirectory()
    // Parked at x = 0 for 8 min (a fix a second), then east at 10 m/s for 3 min.
    var points = (0..<480).map { (Self.t0.adding(seconds: Double($0)), Self.lat, Self.lon(0), 0.0) }
    points += (1...180).map {
      (Self.t0.adding(seconds: Double(479 + $0)), Self.lat, Self.lon(Double($0) * 10), 10.0)
    }
    try syntheticNMEA(points).write(toFile: dir + "/stay.nmea", atomically: true, encoding: .utf8)
    let daemon = try LocdProcess(
      arguments: ["--clock", "replay", "--source", "replay:\(dir)/stay.nmea?speed=max"], directory: dir)
    let app = "org.example.Diary"
    #expect(try daemon.locctl(["apps", "grant", app, "--always"]).status == 0)
    let a = try AppSocket(daemon, app: app)
    _ = try a.call(.monitorVisits(true))  // the replay starts
    _ = try daemon.waitForStatus(timeout: 60) { $0.sourceState() == .known(.finished) }
    a.drain(for: 1)
    let visits = a.events.compactMap { e -> (Instant, VisitEventView)? in
      if case .visit(let v) = e.data { return (e.time, v) } else { return nil }
    }
    #expect(visits.map(\.1.event) == [.known(.arrival), .known(.departure)], "\(visits)")
    guard visits.count == 2 else { return }
    // Arrival: the first fix at the place, reported once it has held for 5 min.
    #expect(visits[0].1.arrival == Self.t0)
    #expect(visits[0].0 == Self.t0.adding(seconds: 300))
    // Departure: the last fix within the place's 100 m (plus its margin to count as out),
    // reported after 60 s of fixes out of it.
    let left = try #require(visits[1].1.departure)
    #expect(left >= Self.t0.adding(seconds: 479) && left <= Self.t0.adding(seconds: 479 + 12), "\(left)")
    #expect(visits[1].0.seconds(since: left) >= 60 && visits[1].0.seconds(since: left) <= 80)
    #expect(visits[1].1.coordinate.distance(to: Self.point(0)).value < 10)
    #expect(try daemon.status().regions?.visitApps == 1)
    _ = try a.call(.monitorVisits(false))
    #expect(try daemon.status().regions?.visitApps == 0)
    #expect(daemon.stop() == 0)
  }
}
