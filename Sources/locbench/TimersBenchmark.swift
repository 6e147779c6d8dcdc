import LocCore
import LocSystem

/// `locbench timers [--timers N] [--changes N] [--fixes N]`: the engine's cost of a significant
/// change with N timers (regeneration: zone, two solar days, every deadline), and of an
/// ordinary 10 Hz fix that changes nothing (acceptance, zone hysteresis, significance, due
/// check). CPU time per operation; bench/40-timers.sh repeats runs and prints medians.
enum TimersBenchmark: Benchmark {
  static let name = "timers"

  static func run(_ arguments: [String]) -> Int32 {
    var timerCount = 1000
    var changes = 200
    var fixes = 100_000
    var i = 0
    while i + 1 < arguments.count {
      guard let n = Int(arguments[i + 1]), n > 0 else { break }
      switch arguments[i] {
      case "--timers": timerCount = n
      case "--changes": changes = n
      case "--fixes": fixes = n
      default: break
      }
      i += 2
    }
    let zones = ZoneDatabase()
    let madrid = zones.catalog(names: ["Europe/Madrid"])
    guard case .tzif? = madrid.entries["Europe/Madrid"] else {
      print("timers: cannot read Europe/Madrid from the system's tzdata")
      return 1
    }
    // A constant zone lookup first (the engine alone), then the shipped boundary data if found.
    let constant = EngineEnvironment(systemZone: "UTC", zones: madrid, zoneAt: { _ in "Europe/Madrid" })
    let (regeneration, perFix, count) = measure(constant, timerCount, changes, fixes)
    print("timers: \(count) timers, \(changes) significant changes, \(fixes) fixes at 10 Hz")
    print("regeneration_us \(format(regeneration * 1e6))")
    print("fix_us \(format(perFix * 1e6))")
    if let boundaries = try? ZoneBoundaryFile.open() {
      let real = ZoneData(database: zones, boundaries: boundaries, systemZone: "UTC").environment(
        configured: nil)
      let (_, withLookup, _) = measure(real, timerCount, changes, fixes)
      print("fix_lookup_us \(format(withLookup * 1e6))")
    }
    return 0
  }

  /// CPU seconds per significant change and per ordinary fix, and the number of timers.
  static func measure(_ environment: EngineEnvironment, _ timerCount: Int, _ changes: Int, _ fixes: Int)
    -> (Double, Double, Int)
  {
    var config = DaemonConfig()
    config.maxTimers = max(config.maxTimers, timerCount)
    var engine = Engine(config: config, environment: environment)
    var now = Instant(iso8601: "2026-06-21T08:00:00Z")!
    _ = engine.handle(.started(nil, stateProblem: nil), at: now)
    _ = engine.handle(.timersLoaded(makeTimers(timerCount), problems: [], store: nil), at: now)
    let source = SourceID(0)
    _ = engine.handle(
      .sourceUpdated(SourceSnapshot(id: source, uri: "bench", state: .connected), restarted: true), at: now)
    let a = Coordinate(lat: 38.8794, lon: -6.9707)!
    let b = a.destination(distance: 5000, bearing: 270)
    func fix(_ c: Coordinate, _ t: Instant) -> Fix {
      Fix(time: t, coordinate: c, mode: .threeD, quality: .gps, horizontalAccuracy: 5, satellitesUsed: 9)
    }
    var effects = 0
    effects += engine.handle(.fixDecoded(fix(a, now), source: source), at: now).count

    // Significant changes: 5 km back and forth, a minute apart (a plausible 83 m/s).
    var start = cpu()
    for k in 0..<changes {
      now = now.adding(.seconds(60))
      effects += engine.handle(.fixDecoded(fix(k % 2 == 0 ? b : a, now), source: source), at: now).count
    }
    let regeneration = (cpu() - start) / Double(changes)

    // 10 Hz fixes jittering within 3 m: nothing significant.
    let here = now
    start = cpu()
    for k in 0..<fixes {
      now = here.adding(.milliseconds(100 * (k + 1)))
      let c = a.destination(distance: Meters(Double(k % 4)), bearing: Degrees(Double(k * 37 % 360)))
      effects += engine.handle(.fixDecoded(fix(c, now), source: source), at: now).count
    }
    let perFix = (cpu() - start) / Double(fixes)
    precondition(effects > 0)
    return (regeneration, perFix, engine.status(at: now).timers)
  }

  /// A realistic mix: solar events with offsets, custom elevations, wall-clock times, weekdays.
  static func makeTimers(_ n: Int) -> [TimerDefinition] {
    let solar = [
      "sunset", "sunrise", "civil-dusk", "civil-dawn", "solar-noon", "elevation:-8.5:evening",
      "nautical-dusk",
    ]
    var out: [TimerDefinition] = []
    for k in 0..<n {
      let text: String
      switch k % 4 {
      case 0: text = "\(solar[k % solar.count])-\(k % 90)m"
      case 1: text = "\(solar[k % solar.count])+\(k % 45)m Mon-Fri"
      case 2: text = "\(two(k % 24)):\(two(k % 60))"
      default: text = "\(two(k % 24)):\(two((k * 7) % 60)) Sat,Sun"
      }
      guard let rule = try? TimerRule(parsing: text) else { continue }
      out.append(
        TimerDefinition(name: "t\(k)", rule: rule, missed: .skip, origin: .file("/bench/t\(k).timer")))
    }
    return out
  }

  static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

  static func cpu() -> Double {
    Double(Clocks.processCPUNanoseconds()) / 1e9
  }

  static func format(_ value: Double) -> String { String((value * 100).rounded() / 100) }
}
