import Foundation
import Testing

@testable import LocCore

/// Drives through many regions, overlapping and nested, checked against the brute force
/// (`BruteForceRegions`: docs/REGIONS.md's rule written out plainly, every region on every
/// fix): the monitor fix by fix, and the engine by what an always app in the foreground is
/// delivered (issue 28, finding 8: a geofence crossed while driving was missed when other
/// regions were registered).
///
/// A drive is a polyline at 1 Hz with turns, 3 to 40 m/s, each fix jittered by a few metres
/// and with its own accuracy; regions are placed where the drive goes: circles crossed near
/// their centre or just inside their edge, concentric sets of three to five radii, chains of
/// overlapping circles, and some far away.
@Suite struct RegionDriveOracleTests {
  struct Drive {
    var fixes: [(Coordinate, Double, Instant)] = []
    var regions: [CircularRegion] = []
  }

  static let t0 = Instant(iso8601: "2026-06-21T10:00:00Z")!

  static func drive(seed: UInt64, fixes count: Int, regions wanted: Int) throws -> Drive {
    var rng = SplitMix64(seed: seed)
    func uniform(_ lo: Double, _ hi: Double) -> Double { Double.random(in: lo..<hi, using: &rng) }
    var d = Drive()
    var here = Coordinate(lat: uniform(-60, 70), lon: uniform(-180, 180))!
    var bearing = uniform(0, 360)
    var speed = uniform(3, 40)
    var path: [Coordinate] = []
    for k in 0..<count {
      if k % 60 == 0 {
        bearing += uniform(-90, 90)
        speed = uniform(3, 40)
      }
      // Parked for a while now and then: states settle, dwells come due.
      let moving = (k / 300) % 4 != 3
      if moving { here = here.destination(distance: Meters(speed), bearing: Degrees(bearing)) }
      path.append(here)
      let jitter = here.destination(distance: Meters(uniform(0, 3)), bearing: Degrees(uniform(0, 360)))
      d.fixes.append((jitter, uniform(2, 15), t0.adding(seconds: Double(k))))
    }
    var serial = 0
    func add(_ centre: Coordinate, _ radius: Double, dwell: Bool) throws {
      serial += 1
      let r = min(max(radius, 10), 100_000)
      d.regions.append(
        try CircularRegion(
          id: RegionID("r\(serial)"), centre: centre, radius: Meters(r), notifyOnEntry: uniform(0, 1) < 0.9,
          notifyOnExit: uniform(0, 1) < 0.9, dwell: dwell ? .seconds(Double(Int(uniform(5, 400)))) : nil))
    }
    while d.regions.count < wanted {
      let on = path[Int(uniform(0, Double(path.count)))]
      let radius = exp(uniform(log(10), log(3_000)))
      switch Int(uniform(0, 4)) {
      case 0:  // crossed: the centre off the path by up to 1.2 radii
        try add(
          on.destination(distance: Meters(uniform(0, 1.2) * radius), bearing: Degrees(uniform(0, 360))),
          radius, dwell: uniform(0, 1) < 0.3)
      case 1:  // nested: three to five radii on one centre
        let centre = on.destination(
          distance: Meters(uniform(0, 0.5) * radius), bearing: Degrees(uniform(0, 360)))
        for n in 0..<Int(uniform(3, 6)) { try add(centre, radius * pow(1.8, Double(n)), dwell: n == 0) }
      case 2:  // a chain of overlapping circles along a bearing
        let b = uniform(0, 360)
        for n in 0..<Int(uniform(2, 6)) {
          try add(
            on.destination(distance: Meters(Double(n) * radius * 0.8), bearing: Degrees(b)), radius,
            dwell: false)
        }
      default:  // far from the drive
        try add(
          on.destination(distance: Meters(uniform(20_000, 200_000)), bearing: Degrees(uniform(0, 360))),
          radius, dwell: false)
      }
    }
    return d
  }

  /// The monitor, fix by fix and tick by tick, equal to the brute force.
  @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
  func theMonitorMatchesTheBruteForceOnDrives(seed: UInt64) throws {
    let d = try Self.drive(seed: seed, fixes: 3_600, regions: 2_000)
    var monitor = RegionMonitor()
    var reference = BruteForceRegions()
    let owners = [RegionOwner(1), RegionOwner(2)]
    for (i, r) in d.regions.enumerated() {
      let owner = owners[i % 2]
      try #require(monitor.handle(.register(owner, r), at: Self.t0) == [.registered(owner, r.id)])
      reference.add(owner, r)
    }
    var entries = 0
    var mismatches = 0
    for (k, (c, accuracy, t)) in d.fixes.enumerated() {
      let got = monitor.handle(.fix(c, accuracy: Meters(accuracy)), at: t).sorted(by: RegionOutput.inOrder)
      let want = reference.fix(c, accuracy: accuracy, at: t)
      if got != want {
        mismatches += 1
        if mismatches <= 3 { Issue.record("seed \(seed), fix \(k): monitor \(got), brute force \(want)") }
      }
      entries +=
        want.filter { if case .transition(let x) = $0 { return x.from == .outside } else { return false } }
        .count
      let tick = t.adding(seconds: 0.5)
      #expect(monitor.handle(.tick, at: tick).sorted(by: RegionOutput.inOrder) == reference.tick(at: tick))
    }
    #expect(mismatches == 0)
    // Of the scenario, not the outcome: regions are really crossed.
    #expect(entries > 20, "seed \(seed): \(entries) entries after a first determination")
  }

  /// The engine, with every fix (Policy=continuous): what an always app in the foreground is
  /// delivered is exactly the brute force's entries and exits the app asked for, with their
  /// times (no dwells here: the engine reports a dwell at its deadline, between fixes).
  @Test(arguments: [7, 8, 9] as [UInt64])
  func theEngineDeliversEveryCrossingOfADrive(seed: UInt64) throws {
    var d = try Self.drive(seed: seed, fixes: 2_400, regions: 600)
    // One accuracy for every fix: acceptance drops a less accurate fix inside the current
    // one's circle (docs/SOURCES.md), and the brute force is fed every fix.
    d.fixes = d.fixes.map { ($0.0, 6, $0.2) }
    d.regions = try d.regions.map {
      try CircularRegion(
        id: $0.id, centre: $0.centre, radius: $0.radius, notifyOnEntry: $0.notifyOnEntry,
        notifyOnExit: $0.notifyOnExit)
    }
    let got = try Self.engineEvents(d)
    var reference = BruteForceRegions()
    for r in d.regions { reference.add(RegionOwner(1), r) }
    var want: [String] = []
    for (c, accuracy, t) in d.fixes {
      for case .transition(let x) in reference.fix(c, accuracy: accuracy, at: t) where x.notify {
        want.append("\(x.id) \(x.to == .inside ? "enter" : "exit") \(x.at) since \(x.firstSeen)")
      }
    }
    #expect(want.count > 10, "the drive crosses regions")
    #expect(got.sorted() == want.sorted(), "seed \(seed)")
  }

  /// The drive and the four regions of the finding (Tests/Fixtures/regions): REGIONS.md's
  /// rule, worked out in its README, gives far-4-200 enter at 10:10:20 (since 10:10:00) and
  /// exit at 10:11:07 (since 10:10:47), with the three start regions registered or not.
  @Test func theFindingsDriveEntersAndLeavesFar4200() throws {
    let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fixtures/regions")
    let log = try #require(
      FileManager.default.contents(atPath: dir.appendingPathComponent("drive-oslo-30kmh.nmea").path))
    let file = try #require(
      FileManager.default.contents(atPath: dir.appendingPathComponent("missed-geofence-regions.json").path))
    let list = try #require(try JSON.parse(Array(file)).array)
    var regions: [CircularRegion] = []
    for v in list {
      let id = try #require(v["id"]?.string)
      let lat = try #require(v["lat"]?.number)
      let lon = try #require(v["lon"]?.number)
      let radius = try #require(v["radius"]?.number)
      regions.append(try CircularRegion(id: id, latitude: lat, longitude: lon, radius: radius))
    }
    var d = Drive()
    d.fixes = NMEAFixtures.decode([UInt8](log)).fixes.map {
      ($0.coordinate!, $0.horizontalAccuracy!.value, $0.time)
    }
    #expect(d.fixes.count == 900)
    let far = [
      "far-4-200 enter 2026-06-21T10:10:20Z since 2026-06-21T10:10:00Z",
      "far-4-200 exit 2026-06-21T10:11:07Z since 2026-06-21T10:10:47Z",
    ]
    for subset in [[3], [0, 3], [0, 1, 2, 3]] {
      d.regions = subset.map { regions[$0] }
      let got = try Self.engineEvents(d, format: { $0.iso8601(fractionDigits: 0) })
      #expect(got.filter { $0.hasPrefix("far-4-200") } == far, "\(subset.map { regions[$0].id })")
    }
  }

  /// The region events an always app in the foreground gets when the engine (Policy=
  /// continuous) is fed every fix of `d` with its regions registered.
  static func engineEvents(_ d: Drive, format: (Instant) -> String = { "\($0)" }) throws -> [String] {
    var config = DaemonConfig()
    config.acquisition.mode = .continuous
    var h = EngineHarness(config: config, at: d.fixes[0].2, watching: [.acquisition])
    h.handle(.appsLoaded(nil, problem: nil))
    let admin = SessionID(50)
    let app = SessionID(1)
    let id = "org.example.Drive"
    h.plain(admin, uid: 0, access: .admin)
    h.app(app, id)
    h.send(admin, .changeApp(AppID(id)!, uid: 1000, .grant(.always, .full)))
    h.send(app, .setActivity(.foreground))
    for r in d.regions {
      guard case .success? = h.send(app, .registerRegion(r)) else { throw HarnessFailure("\(r.id) refused") }
    }
    for (c, accuracy, t) in d.fixes { h.fix(c, at: t, accuracy: accuracy) }
    return RegionEngineTests.events(h, app).map {
      "\($0.id) \($0.event.rawValue) \(format($0.at)) since \(format($0.since))"
    }
  }

  struct HarnessFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
  }
}
