import LocCore

/// `locbench regions-engine [--regions N] [--apps N] [--fixes N]`: regions through the
/// engine, as the daemon serves them: N regions (default 100,000) registered by `register-
/// region` requests of K app sessions (default 10, always), then a 1 Hz drive at 25 m/s
/// through them, measured per `Engine.handle` of a fix (fix acceptance, publishing, the
/// region monitor, delivery of the events through the apps gate, the hint and the timers
/// after the event). Beside it the same drive through an engine without regions. The core's
/// own costs (index, memory, brute force) are `locbench regions` (bench/70-regions.sh).
enum RegionsEngineBenchmark: Benchmark {
  static let name = "regions-engine"

  static func run(_ arguments: [String]) -> Int32 {
    var regions = 100_000
    var apps = 10
    var fixes = 3000
    var i = 0
    while i + 1 < arguments.count {
      guard let n = Int(arguments[i + 1]), n >= 0 else { break }
      switch arguments[i] {
      case "--regions": regions = n
      case "--apps": apps = max(1, n)
      case "--fixes": fixes = max(1, n)
      default: break
      }
      i += 2
    }
    let with = measure(regions: regions, apps: apps, fixes: fixes)
    let without = measure(regions: 0, apps: apps, fixes: fixes)
    let bare = monitorAlone(regions: regions, fixes: fixes)
    guard with.registered == regions else {
      print("regions-engine: \(with.registered) of \(regions) regions registered")
      return 1
    }
    print("regions-engine: \(regions) regions of \(apps) apps, \(fixes) fixes at 1 Hz, 25 m/s")
    print("register_total_ms \(AppsBenchmark.format(with.registration * 1e3))")
    print("fix_p50_us \(AppsBenchmark.format(AppsBenchmark.percentile(with.samples, 0.50)))")
    print("fix_p99_us \(AppsBenchmark.format(AppsBenchmark.percentile(with.samples, 0.99)))")
    print("first_fix_ms \(AppsBenchmark.format(with.first / 1e3))")
    print("monitor_alone_fix_p50_us \(AppsBenchmark.format(AppsBenchmark.percentile(bare, 0.50)))")
    print("no_regions_fix_p50_us \(AppsBenchmark.format(AppsBenchmark.percentile(without.samples, 0.50)))")
    print("events_delivered \(with.events)")
    return 0
  }

  /// The same regions and drive through a bare `RegionMonitor`: microseconds per fix.
  static func monitorAlone(regions: Int, fixes: Int) -> [Double] {
    var configuration = RegionMonitor.Configuration()
    configuration.maxRegions = max(regions, 1)
    configuration.maxRegionsPerOwner = max(regions, 1)
    var monitor = RegionMonitor(configuration: configuration)
    var now = Instant(iso8601: "2026-06-21T08:00:00Z")!
    for (n, region) in layout(regions).enumerated() {
      _ = monitor.handle(.register(RegionOwner(UInt32(n % 10)), region), at: now)
    }
    var samples: [Double] = []
    for k in 0...fixes {
      now = now.adding(.seconds(1))
      let c = centre.destination(distance: Meters(Double(k) * 25), bearing: 60)
      let t = AppsBenchmark.wall()
      _ = monitor.handle(.fix(c, accuracy: 5), at: now)
      if k > 0 { samples.append((AppsBenchmark.wall() - t) * 1e6) }
    }
    return samples
  }

  static let centre = Coordinate(lat: 59.9139, lon: 10.7522)!

  /// Regions of 50 m to 1 km within 30 km of the centre (the core benchmark's city).
  static func layout(_ count: Int) -> [CircularRegion] {
    var rng = RegionsBenchmark.Generator(seed: 12)
    return (0..<count).map { n in
      let at = centre.destination(
        distance: Meters(30_000 * rng.uniform(0, 1).squareRoot()), bearing: Degrees(rng.uniform(0, 360)))
      return try! CircularRegion(
        id: RegionID("region-\(n)"), centre: at, radius: Meters(rng.uniform(50, 1000)))
    }
  }

  /// Registration time (s), microseconds per fix after the first, the first fix's
  /// microseconds, regions registered, region events pushed.
  static func measure(regions: Int, apps: Int, fixes: Int) -> (
    registration: Double, samples: [Double], first: Double, registered: Int, events: Int
  ) {
    var config = DaemonConfig()
    config.regions.maxRegionsPerApp = 100_000
    config.regions.maxRegions = max(regions, 1)
    var engine = Engine(
      config: config,
      environment: EngineEnvironment(systemZone: "UTC", zones: ZoneCatalog(), zoneAt: { _ in nil }))
    var now = Instant(iso8601: "2026-06-21T08:00:00Z")!
    _ = engine.handle(.started(nil, stateProblem: nil), at: now)
    _ = engine.handle(.appsLoaded(nil, problem: nil), at: now)
    let source = SourceID(0)
    _ = engine.handle(
      .sourceUpdated(SourceSnapshot(id: source, uri: "bench", state: .connected), restarted: true), at: now)
    let admin = SessionID(1)
    _ = engine.handle(.sessionOpened(admin, Peer(pid: 1, uid: 0, gid: 0), .admin, client: "bench"), at: now)
    var sessions: [SessionID] = []
    for k in 0..<apps {
      let id = SessionID(UInt64(100 + k))
      let app = AppID("org.example.Fences\(k)")!
      let hello = SessionHello(
        peer: Peer(pid: Int32(100 + k), uid: 1000, gid: 1000), access: .none, app: app.rawValue)
      _ = engine.handle(.sessionOpened(id, hello, reply: nil), at: now)
      _ = engine.handle(
        .requestReceived(admin, .number(1), .changeApp(app, uid: 1000, .grant(.always, .full))), at: now)
      sessions.append(id)
    }
    let made = layout(regions)
    var registered = 0
    let start = AppsBenchmark.wall()
    for (n, region) in made.enumerated() {
      let effects = engine.handle(
        .requestReceived(sessions[n % apps], .number(2), .registerRegion(region)), at: now)
      for case .reply(_, _, .success) in effects { registered += 1 }
    }
    let registration = AppsBenchmark.wall() - start
    var samples: [Double] = []
    var first = 0.0
    var events = 0
    for k in 0...fixes {
      now = now.adding(.seconds(1))
      let c = centre.destination(distance: Meters(Double(k) * 25), bearing: 60)
      let fix = Fix(
        time: now, coordinate: c, mode: .threeD, quality: .gps, horizontalAccuracy: 5, satellitesUsed: 9)
      let t = AppsBenchmark.wall()
      let effects = engine.handle(.fixDecoded(fix, source: source), at: now)
      let us = (AppsBenchmark.wall() - t) * 1e6
      if k == 0 { first = us } else { samples.append(us) }
      for case .push(_, .region, _) in effects { events += 1 }
    }
    return (registration, samples, first, registered, events)
  }
}
