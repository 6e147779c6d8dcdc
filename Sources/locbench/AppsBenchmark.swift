import LocCore
import LocSystem

/// `locbench apps [--apps N] [--in-use N] [--fixes N]`: the engine's time per 10 Hz fix with
/// N app sessions authorized when-in-use, of which some are in use (issue 11: 1,000 apps, 200
/// in use, p99 at most 2 ms), against the same engine with the apps connected but none in
/// use and with no apps at all: a fix must cost nothing for apps that may not receive it.
/// Wall time per `Engine.handle` (one fix in, one push effect out for every recipient); the
/// shell's serialization (once per fix) and socket writes are not included.
enum AppsBenchmark: Benchmark {
  static let name = "apps"

  static func run(_ arguments: [String]) -> Int32 {
    var apps = 1000
    var inUse = 200
    var fixes = 3000
    var i = 0
    while i + 1 < arguments.count {
      guard let n = Int(arguments[i + 1]), n >= 0 else { break }
      switch arguments[i] {
      case "--apps": apps = n
      case "--in-use": inUse = min(n, apps)
      case "--fixes": fixes = max(1, n)
      default: break
      }
      i += 2
    }
    let (busy, recipients) = measure(apps: apps, inUse: inUse, fixes: fixes)
    let (idle, idleRecipients) = measure(apps: apps, inUse: 0, fixes: fixes)
    let (none, _) = measure(apps: 0, inUse: 0, fixes: fixes)
    guard recipients == inUse, idleRecipients == 0 else {
      print("apps: a fix reached \(recipients) apps, expected \(inUse) (and \(idleRecipients), expected 0)")
      return 1
    }
    print("apps: \(apps) apps when-in-use, \(inUse) in use, \(fixes) fixes at 10 Hz")
    print("fix_p50_us \(format(percentile(busy, 0.50)))")
    print("fix_p99_us \(format(percentile(busy, 0.99)))")
    print("idle_apps_p50_us \(format(percentile(idle, 0.50)))")
    print("no_apps_p50_us \(format(percentile(none, 0.50)))")
    return 0
  }

  /// Microseconds per fix, and how many app sessions the last fix was pushed to.
  static func measure(apps: Int, inUse: Int, fixes: Int) -> ([Double], Int) {
    var config = DaemonConfig()
    config.apps.maxAppsPerUser = max(apps, 1)
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
    for k in 0..<apps {
      let id = SessionID(UInt64(100 + k))
      let app = AppID("org.example.App\(k)")!
      let hello = SessionHello(
        peer: Peer(pid: Int32(100 + k), uid: 1000, gid: 1000), access: .none, app: app.rawValue)
      _ = engine.handle(.sessionOpened(id, hello, reply: nil), at: now)
      _ = engine.handle(
        .requestReceived(admin, .number(1), .changeApp(app, uid: 1000, .grant(.whenInUse, .full))), at: now)
      _ = engine.handle(.requestReceived(id, .number(1), .startUpdates(AppSession.Updates())), at: now)
      if k < inUse { _ = engine.handle(.requestReceived(id, .number(2), .setActivity(.foreground)), at: now) }
    }
    let a = Coordinate(lat: 59.9139, lon: 10.7522)!
    var samples: [Double] = []
    samples.reserveCapacity(fixes)
    var reached = 0
    for k in 0..<fixes {
      now = now.adding(.milliseconds(100))
      let c = a.destination(distance: Meters(Double(k % 4)), bearing: Degrees(Double(k * 37 % 360)))
      let fix = Fix(
        time: now, coordinate: c, mode: .threeD, quality: .gps, horizontalAccuracy: 5, satellitesUsed: 9)
      let start = wall()
      let effects = engine.handle(.fixDecoded(fix, source: source), at: now)
      samples.append((wall() - start) * 1e6)
      reached = effects.reduce(0) { n, e in
        if case .push(let s, .location, _) = e { return n + s.filter { $0.raw >= 100 }.count }
        return n
      }
    }
    return (samples, reached)
  }

  static func percentile(_ samples: [Double], _ p: Double) -> Double {
    let sorted = samples.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
  }

  static func wall() -> Double {
    Double(Clocks.nanoseconds(.monotonic)) / 1e9
  }

  static func format(_ value: Double) -> String { String((value * 10).rounded() / 10) }
}
