import LocCore
import LocSystem

/// `locbench heading [--sessions N] [--headings N] [--rounds N]`: the engine's part of a
/// compass heading, `Engine.handle(.headingMeasured)`: N plain sessions (default 10) that
/// started heading updates with filter 0 (each reading goes to each), then readings a
/// tenth of a second apart, each one turned 7.3° from the last; and the same with filter 45
/// (most held back). CPU time of this process (CLOCK_PROCESS_CPUTIME_ID) per reading, the
/// median of the rounds. The bus side is bench/67-compass.sh.
enum HeadingBenchmark: Benchmark {
  static let name = "heading"

  static func run(_ arguments: [String]) -> Int32 {
    var sessions = 10
    var headings = 100_000
    var rounds = 5
    var i = 0
    while i + 1 < arguments.count {
      guard let n = Int(arguments[i + 1]), n > 0 else { break }
      switch arguments[i] {
      case "--sessions": sessions = n
      case "--headings": headings = n
      case "--rounds": rounds = n
      default: break
      }
      i += 2
    }
    for filter in [0.0, 45] {
      var samples: [Double] = []
      var pushed = 0
      for _ in 0..<rounds {
        let (seconds, pushes) = measure(sessions: sessions, headings: headings, filter: filter)
        samples.append(seconds / Double(headings))
        pushed = pushes
      }
      let median = samples.sorted()[samples.count / 2]
      print(
        "heading: \(sessions) sessions, filter \(Int(filter))°, \(headings) readings (\(pushed) pushes): "
          + "\(AppsBenchmark.format(median * 1e9 / 1e3)) µs a reading in the engine (median of \(rounds))")
    }
    return 0
  }

  /// CPU seconds for `headings` readings, and the heading events pushed.
  static func measure(sessions: Int, headings: Int, filter: Double) -> (Double, Int) {
    let t0 = Instant(iso8601: "2026-06-01T10:00:00Z")!
    var engine = Engine(config: DaemonConfig())
    _ = engine.handle(.started(nil, stateProblem: nil), at: t0)
    let source = SourceID(0)
    _ = engine.handle(
      .sourceUpdated(
        SourceSnapshot(id: source, uri: "compass:", state: .connected, givesFixes: false), restarted: true),
      at: t0)
    for n in 0..<sessions {
      let id = SessionID(UInt64(n + 1))
      _ = engine.handle(.sessionOpened(id, Peer(pid: 1, uid: 0, gid: 0), .admin, client: "bench"), at: t0)
      _ = engine.handle(.requestReceived(id, .number(1), .startHeading(filter: filter)), at: t0)
    }
    var pushes = 0
    var degrees = 0.0
    let start = Double(Clocks.processCPUNanoseconds()) / 1e9
    for k in 0..<headings {
      degrees = (degrees + 7.3).truncatingRemainder(dividingBy: 360)
      let effects = engine.handle(
        .headingMeasured(degrees, source: source), at: t0.adding(seconds: Double(k) / 10))
      for case .push(let to, .heading, _) in effects { pushes += to.count }
    }
    return (Double(Clocks.processCPUNanoseconds()) / 1e9 - start, pushes)
  }
}
