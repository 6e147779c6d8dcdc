import LocCore
import Testing

/// The engine driver (EngineDriver): one way into the engine. Events submitted while an effect
/// list is carried out wait for it; the lists the shell is given are exactly those of an
/// engine fed the same events one after another (what the engine harness predicts), and
/// the shell is never asked to carry out a list inside another.
@Suite struct EngineDriverTests {
  static let t0 = Instant(utc: CivilDate(year: 2026, month: 3, day: 1)!, hour: 12)
  static let oslo = Coordinate(lat: 59.9139, lon: 10.7522)!
  static let source = SourceID(0)
  static let watcher = SessionID(7)
  static let admin = SessionID(8)

  static func fix(_ k: Int) -> Fix {
    Fix(
      time: t0.adding(seconds: Double(k)),
      coordinate: oslo.destination(distance: Meters(Double(k) * 40), bearing: Degrees(0)),
      mode: .threeD, quality: .gps, horizontalAccuracy: Meters(5), satellitesUsed: 9)
  }

  /// The events every test starts with: a source, a watcher of every event, an admin.
  static let opening: [EngineEvent] = [
    .started(nil, stateProblem: nil),
    .sourceUpdated(SourceSnapshot(id: source, uri: "replay:x", state: .connected), restarted: true),
    .sessionOpened(watcher, Peer(pid: 2, uid: 0, gid: 0), .admin, client: "watch"),
    .requestReceived(watcher, .number(1), .subscribe(Set(EventKind.allCases))),
    .sessionOpened(admin, Peer(pid: 3, uid: 0, gid: 0), .admin, client: nil),
  ]

  static func isSubscription(_ event: EngineEvent) -> Bool {
    if case .requestReceived(_, _, .subscribe) = event { return true }
    return false
  }

  /// What the shell was given, list by list, and the deepest nesting it saw.
  final class Shell {
    var lists: [[Effect]] = []
    var depth = 0
    var deepest = 0
  }

  /// Effect lists of a plain engine fed `events` one after another at `now`: the prediction.
  static func predicted(_ events: [EngineEvent], config: DaemonConfig, now: Instant) -> [[Effect]] {
    var engine = Engine(config: config)
    return events.map { engine.handle($0, at: now) }
  }

  @Test func aReloadAskedForInTheMiddleOfABurstOfFixesComesAfterTheFixesQueuedBeforeIt() {
    let now = Self.t0.adding(seconds: 20)
    let driver = EngineDriver(Engine(config: DaemonConfig()), clock: .system, wallClock: { now })
    let shell = Shell()
    var reloaded = DaemonConfig()
    reloaded.freshFor = .seconds(30)
    let ref = RequestRef(session: Self.admin, id: .string("r"))
    // A burst: ten fixes and the reload request arrive while the first fix's location is
    // being pushed (as if that effect had woken the source and the socket).
    let burst: [EngineEvent] =
      (1...4).map { .fixDecoded(Self.fix($0), source: Self.source) }
      + [.requestReceived(Self.admin, .string("r"), .reload)]
      + (5...10).map { .fixDecoded(Self.fix($0), source: Self.source) }
    var burstSent = false
    var fixSubmitted = false
    driver.perform = { effects, _ in
      shell.depth += 1
      shell.deepest = max(shell.deepest, shell.depth)
      defer { shell.depth -= 1 }
      shell.lists.append(effects)
      for effect in effects {
        switch effect {
        case .reloadConfiguration(let requester):
          // What Daemon.reload does: read the files, hand the result in.
          driver.submit(.configReloaded(.success(reloaded), requestedBy: requester))
        case .push(_, .location, _) where fixSubmitted && !burstSent:
          burstSent = true
          for event in burst { driver.submit(event) }
        default: continue
        }
      }
    }
    for event in Self.opening { driver.submit(event) }
    fixSubmitted = true
    driver.submit(.fixDecoded(Self.fix(0), source: Self.source))

    // The prediction: the opening, fix 0, the burst in order, and the reload last of all
    // (it was asked for while fix 5…10 were already waiting).
    let order =
      Self.opening + [.fixDecoded(Self.fix(0), source: Self.source)] + burst
      + [.configReloaded(.success(reloaded), requestedBy: ref)]
    let want = Self.predicted(order, config: DaemonConfig(), now: now)
    #expect(shell.deepest == 1, "the shell was asked to carry out a list inside another")
    #expect(shell.lists.count == want.count)
    for (k, (got, expected)) in zip(shell.lists, want).enumerated() where got != expected {
      Issue.record(
        "list \(k): \(got.count) effects, predicted \(expected.count): \(String(describing: got.first).prefix(120)) / \(String(describing: expected.first).prefix(120))"
      )
    }
    #expect(burstSent)
    #expect(shell.lists.last?.contains(.reply(Self.admin, .string("r"), .success(.done))) == true)
    #expect(driver.engine.config.freshFor == .seconds(30))
    #expect(!driver.isBusy)
  }

  @Test func anEventRaisedByAnEffectWaitsForTheRestOfItsList() {
    let driver = EngineDriver(Engine(config: DaemonConfig()), clock: .system, wallClock: { Self.t0 })
    var performed: [Effect] = []
    var raised = false
    driver.perform = { effects, _ in
      for effect in effects {
        performed.append(effect)
        // A command refused at once, say: its end is reported from inside the list.
        if !raised, case .log = effect {
          raised = true
          driver.submit(.timerActionEnded(timer: "t", succeeded: false, detail: "refused"))
          #expect(driver.isBusy)
        }
      }
    }
    driver.submit(.started(nil, stateProblem: nil))
    var reference = Engine(config: DaemonConfig())
    let first = reference.handle(.started(nil, stateProblem: nil), at: Self.t0)
    let second = reference.handle(
      .timerActionEnded(timer: "t", succeeded: false, detail: "refused"), at: Self.t0)
    #expect(raised, "the start logs something (the test needs a log effect to raise the event from)")
    #expect(performed == first + second)
  }

  /// Issue 26: before a replay's first fix the engine runs on the wall clock; what it planned
  /// then (acquisition's start) is planned again on the simulated clock once it starts, also
  /// without a timer to notice the clock went back.
  @Test func theReplaysFirstFixReplansWhatTheWallClockPlanned() throws {
    let wall = Instant(utc: CivilDate(year: 2030, month: 1, day: 1)!, hour: 0)
    let driver = EngineDriver(Engine(config: DaemonConfig()), clock: .replay, wallClock: { wall })
    for event in Self.opening { driver.submit(event) }
    let before = try #require(driver.engine.status(at: driver.now).acquisition?.since)
    #expect(before == wall, "acquiring since the start, on the wall clock")
    let fix = Self.fix(0)
    driver.submit(.fixDecoded(fix, source: Self.source), advancingTo: fix.time)
    let a = try #require(driver.engine.status(at: driver.now).acquisition)
    if let since = a.since { #expect(since <= fix.time, "since \(since), simulated now \(fix.time)") }
    if let deadline = a.deadline { #expect(deadline.seconds(since: fix.time) <= 3600, "\(deadline)") }
    if let next = a.nextRefresh { #expect(next.seconds(since: fix.time) <= 86_400, "\(next)") }
  }

  @Test func aReplayThatLeapsAMonthForwardStepsTheClockInsteadOfLivingThroughIt() {
    // Recordings played one after another (`cat *.log`): the next fix comes 30 days after the
    // last. Lived through timer by timer, that month is every refresh, freshness check and
    // sun event in it, each with its pushes to the watcher: thousands of effects (years
    // between two logs took locd to 2 GB). A leap past a day is a clock step, as time going
    // back is: one re-planning, each timer armed again once.
    let wall = Instant(utc: CivilDate(year: 2030, month: 1, day: 1)!, hour: 0)
    let driver = EngineDriver(Engine(config: DaemonConfig()), clock: .replay, wallClock: { wall })
    var effects = 0
    driver.perform = { list, _ in effects += list.count }
    // No one subscribed to locations: acquisition on demand wakes the receiver every 15
    // minutes for a fresh fix (the case that ran away).
    for event in Self.opening where !Self.isSubscription(event) { driver.submit(event) }
    let first = Self.fix(0)
    driver.submit(.fixDecoded(first, source: Self.source), advancingTo: first.time)
    var later = Self.fix(1)
    later.time = first.time.adding(seconds: 30 * 86_400)
    let before = effects
    driver.submit(.fixDecoded(later, source: Self.source), advancingTo: later.time)
    #expect(driver.now == later.time)
    #expect(effects - before < 100, "\(effects - before) effects for the leap")
    // Under a day is time lived through: three hours at a refresh every 15 minutes is at
    // least 12 firings, each re-arming the next (one effect at least).
    var got: [Effect] = []
    driver.perform = { list, _ in got += list }
    var next = later
    next.time = later.time.adding(seconds: 3 * 3600)
    driver.submit(.fixDecoded(next, source: Self.source), advancingTo: next.time)
    #expect(got.filter { if case .arm = $0 { true } else { false } }.count >= 12, "\(got.count) effects")
  }

  @Test func onTheReplayClockFixesMoveTimeAndTimersFireAsTheHarnessFiresThem() {
    let wall = Instant(utc: CivilDate(year: 2030, month: 1, day: 1)!, hour: 0)
    let driver = EngineDriver(Engine(config: DaemonConfig()), clock: .replay, wallClock: { wall })
    var got: [Effect] = []
    driver.perform = { effects, _ in got += effects }
    #expect(driver.now == wall, "the wall clock until the first fix")
    for event in Self.opening { driver.submit(event) }
    let fixes = [0, 1, 2, 40, 41, 200].map { Self.fix($0) }
    for fix in fixes { driver.submit(.fixDecoded(fix, source: Self.source), advancingTo: fix.time) }
    #expect(driver.now == fixes.last!.time)

    // The prediction: SimulatedClock on a plain engine, as the engine harness drives it.
    var engine = Engine(config: DaemonConfig())
    var clock = SimulatedClock()
    var want: [Effect] = []
    for event in Self.opening {
      let effects = engine.handle(event, at: wall)
      clock.track(effects)
      want += effects
    }
    for fix in fixes {
      // The first fix starts simulated time (a clock step from the wall clock), the rest advance it.
      want +=
        clock.now == nil
        ? clock.start(&engine, at: fix.time) : clock.advance(&engine, to: fix.time).map(\.effect)
      let effects = engine.handle(.fixDecoded(fix, source: Self.source), at: fix.time)
      clock.track(effects)
      want += effects
    }
    #expect(got == want)
    // The 40 s and 200 s gaps let the freshness timer fire in simulated time.
    #expect(
      got.contains { if case .push(_, .location(let r, _), _) = $0 { r.tier == .cached } else { false } })
    #expect(driver.simulated.armed == clock.armed)
  }
}
