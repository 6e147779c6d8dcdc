import Foundation
import LocCore
import Testing

/// Zones from the system's tzdata, read once, as the shell hands them to the engine.
enum TestZones {
  static let names = ["UTC", "Europe/Madrid", "Europe/Lisbon", "Europe/Oslo", "Europe/Paris"]
  static let rules: [String: ZoneRules] = {
    var out: [String: ZoneRules] = ["UTC": .utc]
    for name in names.dropFirst() { out[name] = try? systemZone(name) }
    return out
  }()
  static let catalog = ZoneCatalog(
    Dictionary(uniqueKeysWithValues: names.dropFirst().map { ($0, ZoneCatalog.Entry.tzif(tzif($0))) }))

  /// The Spain-Portugal border near Badajoz and Elvas: (latitude, longitude of the border),
  /// measured with timezonefinder 9.0.0 / timezonefinder-data 3.2026.3.post1 (boundary release
  /// 2026c) by bisecting each parallel between 7.4°W and 6.8°W to 1e-5°.
  static let iberianBorder: [(lat: Double, lon: Double)] = [
    (38.70, -7.26665), (38.75, -7.20613), (38.80, -7.14806), (38.85, -7.07186), (38.86, -7.05167),
    (38.87, -7.03957), (38.875, -7.03629), (38.88, -7.03378), (38.885, -7.04022), (38.89, -7.03924),
    (38.90, -7.0433), (38.95, -7.01242), (39.00, -6.9706),
  ]

  /// A small deterministic zone lookup: Lisbon west of the measured border, Madrid east of it
  /// (38.70°N to 39.00°N only); Oslo for Norway's mainland box; nothing elsewhere.
  static func zoneAt(_ c: Coordinate) -> String? {
    let lat = c.latitude.value
    let lon = c.longitude.value
    if lat >= 57.9, lat <= 71.2, lon >= 4.5, lon <= 31.1 { return "Europe/Oslo" }
    guard lat >= 38.70, lat <= 39.00, lon > -8, lon < -6 else { return nil }
    var i = 0
    while i + 2 < iberianBorder.count, iberianBorder[i + 1].lat < lat { i += 1 }
    let a = iberianBorder[i]
    let b = iberianBorder[i + 1]
    let f = (lat - a.lat) / (b.lat - a.lat)
    let border = a.lon + f * (b.lon - a.lon)
    return lon < border ? "Europe/Lisbon" : "Europe/Madrid"
  }

  static func environment(system: String = "UTC") -> EngineEnvironment {
    EngineEnvironment(systemZone: system, zones: catalog, zoneAt: { zoneAt($0) })
  }
}

/// Drives an engine with the simulated clock `locd --clock replay` uses (`SimulatedClock`):
/// armed timers fire at their deadlines as simulated time passes; every effect is kept with
/// the instant it happened at.
struct EngineHarness {
  var engine: Engine
  var clock: SimulatedClock
  var log: [(at: Instant, effect: Effect)] = []
  let source = SourceID(0)
  let watcher = SessionID(99)

  init(
    config: DaemonConfig = DaemonConfig(), environment: EngineEnvironment = TestZones.environment(),
    at start: Instant, state: StoredState? = nil, timers: [TimerDefinition] = [], store: TimerStore? = nil,
    watching: Set<EventKind> = Set(EventKind.allCases)
  ) {
    engine = Engine(config: config, environment: environment)
    clock = SimulatedClock(now: start)
    handle(.started(state, stateProblem: nil))
    handle(.sourceUpdated(SourceSnapshot(id: source, uri: "replay:test", state: .connected), restarted: true))
    handle(.timersLoaded(timers, problems: [], store: store))
    handle(.sessionOpened(watcher, Peer(pid: 1, uid: 0, gid: 0), .admin, client: "watch"))
    handle(.requestReceived(watcher, .number(0), .subscribe(watching)))
  }

  /// The simulated now; setting it is a jump of the wall clock the engine does not see
  /// until an event comes (a step, a suspend).
  var now: Instant {
    get { clock.now! }
    set { clock.now = newValue }
  }

  /// The engine's timers armed, by the instant they fire at.
  var armed: [EngineTimer: Instant] { clock.armed }

  /// Handles `event` at the current simulated time.
  @discardableResult mutating func handle(_ event: EngineEvent) -> [Effect] {
    let effects = engine.handle(event, at: now)
    clock.track(effects)
    log += effects.map { (now, $0) }
    return effects
  }

  /// Moves simulated time to `t`, firing every armed timer due on the way at its deadline.
  mutating func advance(to t: Instant) {
    log += clock.advance(&engine, to: t)
  }

  /// A fix at simulated time `t` (time advances to it first).
  mutating func fix(_ c: Coordinate, at t: Instant, accuracy: Double = 5, speed: Double? = nil) {
    advance(to: t)
    handle(
      .fixDecoded(
        Fix(
          time: t, coordinate: c, mode: .threeD, quality: .gps, speed: speed.map { MetersPerSecond($0) },
          horizontalAccuracy: Meters(accuracy), satellitesUsed: 9), source: source))
  }

  /// Sends a request as the admin watcher and returns the reply.
  mutating func request(_ r: Request) -> Result<Response, RequestError>? {
    for e in handle(.requestReceived(watcher, .number(1), r)) {
      if case .reply(_, _, let result) = e { return result }
    }
    return nil
  }

  /// The status of timer `name`.
  mutating func timer(_ name: String) -> TimerStatus? {
    if case .success(.timer(let s))? = request(.showTimer(name)) { return s }
    return nil
  }

  /// Pushed notices, in order, with their instants.
  var notices: [(at: Instant, notice: Notice)] {
    log.compactMap { entry in
      if case .push(let s, let n, _) = entry.effect, s.contains(watcher) { return (entry.at, n) }
      return nil
    }
  }

  var firings: [TimerFiring] {
    notices.compactMap { if case .timerFired(let f, _, _) = $0.notice { return f } else { return nil } }
  }

  var zoneChanges: [ZoneChange] {
    notices.compactMap { if case .timezoneChanged(let z) = $0.notice { return z } else { return nil } }
  }

  var significantChanges: Int {
    notices.filter { if case .significantChange = $0.notice { return true } else { return false } }.count
  }

  /// The acquisition events, in order.
  var acquisitionChanges: [(at: Instant, change: AcquisitionChange)] {
    notices.compactMap { if case .acquisition(let c) = $0.notice { return ($0.at, c) } else { return nil } }
  }

  /// What the shell was told about receivers, in order.
  var receiverCommands: [(at: Instant, active: Bool)] {
    log.compactMap { if case .receivers(let a) = $0.effect { return ($0.at, a) } else { return nil } }
  }

  var logLines: [String] {
    log.compactMap { if case .log(_, let m) = $0.effect { return m } else { return nil } }
  }
}

func at(_ iso: String) -> Instant { Instant(iso8601: iso)! }

/// The TZif bytes of a zone of the system's tzdata.
func tzif(_ name: String) -> [UInt8] {
  (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/" + name)))) ?? []
}
