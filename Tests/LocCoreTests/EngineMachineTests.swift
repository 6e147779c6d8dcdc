import Testing

@testable import LocCore

/// The engine's composition: its state is its configuration and one machine per concern.
@Suite struct EngineCompositionTests {
  @Test func engineHoldsOnlyConfigurationAndMachines() {
    let engine = Engine(config: DaemonConfig())
    var machines: [String] = []
    for child in Mirror(reflecting: engine).children {
      let label = child.label ?? "?"
      if label == "config" { continue }
      #expect(child.value is any EngineMachine, "Engine.\(label) is state outside a machine")
      machines.append(label)
    }
    // A new concern adds one machine here, never loose fields.
    #expect(
      machines == [
        "positions", "acquisition", "zones", "regeneration", "timers", "waits", "sessions",
        "appAuthorization", "appPrompts", "appDelivery", "statusLine", "beacons", "regions",
        "armed", "network", "heading", "lightDark", "skyDemand",
      ])
  }
}

/// The simulated clock shared by `locd --clock replay` and the scenario tests.
@Suite struct SimulatedClockTests {
  static let t0 = at("2026-06-01T07:00:00Z")

  func timer(_ name: String, _ rule: String) throws -> TimerDefinition {
    TimerDefinition(name: name, rule: try TimerRule(parsing: rule), origin: .file("/t/\(name).timer"))
  }

  /// An engine started at `t0` with `timers`, its effects tracked by `clock`.
  func started(_ timers: [TimerDefinition], clock: inout SimulatedClock) -> Engine {
    var engine = Engine(config: DaemonConfig())
    clock.track(engine.handle(.started(nil, stateProblem: nil), at: Self.t0))
    clock.track(engine.handle(.timersLoaded(timers, problems: [], store: nil), at: Self.t0))
    return engine
  }

  func firedLogs(_ effects: [(at: Instant, effect: Effect)]) -> [(Instant, String)] {
    effects.compactMap {
      if case .log(_, let m) = $0.effect, m.contains(" fired: ") { return ($0.at, m) } else { return nil }
    }
  }

  @Test func firesEachDueTimerAtItsOwnDeadlineInOrder() throws {
    var clock = SimulatedClock(now: Self.t0)
    var engine = started([try timer("b", "08:00"), try timer("a", "07:30")], clock: &clock)
    #expect(clock.armed[.timers] == at("2026-06-01T07:30:00Z"))
    let effects = clock.advance(&engine, to: at("2026-06-01T09:00:00Z"))
    // The 07:30 firing re-arms the timer for 08:00, which is due too: both fire, each at its deadline.
    let fired = firedLogs(effects)
    #expect(fired.map(\.0) == [at("2026-06-01T07:30:00Z"), at("2026-06-01T08:00:00Z")])
    #expect(fired.map { $0.1.hasPrefix("timer a") } == [true, false])
    #expect(clock.now == at("2026-06-01T09:00:00Z"))
    #expect(clock.armed[.timers] == at("2026-06-02T07:30:00Z"))
  }

  @Test func timeGoingBackIsAClockStep() throws {
    var clock = SimulatedClock(now: Self.t0)
    var engine = started([try timer("a", "07:30")], clock: &clock)
    _ = clock.advance(&engine, to: at("2026-06-01T07:45:00Z"))
    let back = at("2026-06-01T06:00:00Z")
    let effects = clock.advance(&engine, to: back)
    #expect(clock.now == back)
    #expect(effects.allSatisfy { $0.at == back })
    #expect(
      effects.contains {
        $0.effect == .log(.notice, "the clock was stepped to 2026-06-01T06:00:00Z; re-planning")
      })
    // The 07:30 of today fired already: it does not fire again as time passes it a second time.
    #expect(firedLogs(clock.advance(&engine, to: at("2026-06-01T08:00:00Z"))).isEmpty)
  }

  @Test func beforeTimeStartsTheFirstDeadlineSetsIt() throws {
    var clock = SimulatedClock()
    var engine = Engine(config: DaemonConfig())
    clock.track(engine.handle(.started(nil, stateProblem: nil), at: Self.t0))
    clock.track(
      engine.handle(.timersLoaded([try timer("a", "07:30")], problems: [], store: nil), at: Self.t0))
    let effects = clock.advance(&engine, to: at("2026-06-01T07:40:00Z"))
    #expect(firedLogs(effects).map(\.0) == [at("2026-06-01T07:30:00Z")])
  }

  @Test func simultaneousDeadlinesFireInDeclarationOrder() {
    let t = Self.t0
    let order = [EngineTimer.localMidnight, .timers, .acquisitionTimeout, .freshness].map { ($0, t) }
    let sorted = order.map { (key: $0.0, value: $0.1) }.sorted(by: SimulatedClock.earlier).map(\.key)
    #expect(sorted == [.freshness, .timers, .localMidnight, .acquisitionTimeout])
  }
}

/// The STATUS= line: at once for a change of tier, fix mode or zone; details throttled.
@Suite struct StatusLineMachineTests {
  static let t0 = at("2026-06-01T12:00:00Z")

  func summary(sats: Int, tier: PositionTier = .fix, zone: String = "Europe/Oslo") -> StatusSummary {
    let p = Position(
      coordinate: Coordinate(lat: 59.9, lon: 10.7)!, accuracy: 5, time: Self.t0, receivedAt: Self.t0,
      source: "replay:x")
    let fix = Fix(
      time: Self.t0, coordinate: p.coordinate, mode: .threeD, quality: .gps, horizontalAccuracy: 5,
      satellitesUsed: sats)
    return StatusSummary(ResolvedPosition(tier: tier, position: p, age: .zero), fix: fix, zone: zone)
  }

  @Test func detailsWaitForTheThrottleMajorChangesDoNot() {
    var m = StatusLineMachine()
    #expect(m.observe(summary(sats: 9), at: Self.t0) == .send("3D fix, 9 sats, ±5 m, Europe/Oslo"))
    #expect(m.observe(summary(sats: 9), at: Self.t0.adding(.seconds(1))) == nil)
    // A detail 2 s later: the refresh is armed for 10 s after the last line, once.
    let refresh = Self.t0.adding(.seconds(10))
    #expect(m.observe(summary(sats: 8), at: Self.t0.adding(.seconds(2))) == .armRefresh(refresh))
    #expect(m.observe(summary(sats: 7), at: Self.t0.adding(.seconds(3))) == nil)
    // A new zone is news at once.
    #expect(
      m.observe(summary(sats: 7, zone: "Europe/Stockholm"), at: Self.t0.adding(.seconds(4)))
        == .send("3D fix, 7 sats, ±5 m, Europe/Stockholm"))
    // The refresh armed before fires; a detail then is 6 s after the last line: 4 s more.
    m.refreshFired()
    let next = Self.t0.adding(.seconds(14))
    #expect(m.observe(summary(sats: 6, zone: "Europe/Stockholm"), at: refresh) == .armRefresh(next))
    #expect(
      m.observe(summary(sats: 6, zone: "Europe/Stockholm"), at: next)
        == .send("3D fix, 6 sats, ±5 m, Europe/Stockholm"))
  }

  @Test func coarseAgesCompareEqualExactlyWhenTheyReadTheSame() {
    // TimeFormat.coarseAge (tested on its own) is the reference for what the line shows.
    let ages: [Double] = [-5, 0, 59.9, 60, 61, 119, 3599, 3600, 7199, 172_799, 172_800, 259_200, 1e7]
    for a in ages {
      for b in ages {
        let sameText = TimeFormat.coarseAge(.seconds(a)) == TimeFormat.coarseAge(.seconds(b))
        #expect(
          (StatusSummary.coarse(.seconds(a)) == StatusSummary.coarse(.seconds(b))) == sameText, "\(a) \(b)")
      }
      #expect(TimeFormat.coarseAge(StatusSummary.coarse(.seconds(a))) == TimeFormat.coarseAge(.seconds(a)))
    }
    #expect(StatusSummary.coarse(nil) == nil)
  }
}

/// Sessions: who may ask what, and who gets which events.
@Suite struct SessionMachineTests {
  @Test func admissionFollowsAccessAndCountsRefusals() {
    var m = SessionMachine()
    let reader = SessionID(2)
    let stranger = SessionID(3)
    m.opened(reader, peer: Peer(pid: 2, uid: 1000, gid: 100), access: .read, isApp: false)
    m.opened(stranger, peer: Peer(pid: 3, uid: 1001, gid: 1001), access: .none, isApp: false)
    #expect(m.admit(.status, from: reader) == .allowed(Peer(pid: 2, uid: 1000, gid: 100)))
    #expect(
      m.admit(.clearLocation, from: reader)
        == .denied(RequestError(.permissionDenied, "changing locd's state needs root or the admin group")))
    #expect(
      m.admit(.status, from: stranger)
        == .denied(RequestError(.permissionDenied, "reading locd's state needs root or the socket group")))
    #expect(m.admit(.status, from: SessionID(9)) == .unknownSession)
    #expect(m.permissionDenied == 2)
  }

  @Test func recipientsAreReadersInIdOrder() {
    var m = SessionMachine()
    for (id, access) in [(7, AccessLevel.admin), (3, .read), (5, .none)] {
      m.opened(SessionID(UInt64(id)), peer: Peer(pid: 1, uid: 0, gid: 0), access: access, isApp: false)
      _ = m.subscribe(SessionID(UInt64(id)), to: [.location, .timerFired])
    }
    #expect(m.recipients(of: .location) == [SessionID(3), SessionID(7)])
    #expect(m.unsubscribe(SessionID(7), from: [.location]) == [.timerFired])
    #expect(m.recipients(of: .location) == [SessionID(3)])
    m.closed(SessionID(3))
    #expect(m.recipients(of: .location).isEmpty)
    #expect(m.recipients(of: .timerFired) == [SessionID(7)])
  }

  /// The subscriber lists are kept up to date in place (a binary search a change, issue 28's
  /// 2,000 slow readers): after every step of 5,000 random opens, subscriptions, access
  /// changes and closes, each kind's recipients are what a rebuild from the sessions gives,
  /// in id order.
  @Test func theListsKeptInPlaceAreWhatARebuildGives() {
    var m = SessionMachine()
    var rng = SplitMix64(seed: 28)
    let kinds = EventKind.allCases
    func rebuilt(_ kind: EventKind) -> [SessionID] {
      // Every id the steps use, asked of the machine one by one (its sessions are private).
      (UInt64(1)...60).map { SessionID($0) }.filter { id in
        m.session(id).map { !$0.isApp && $0.subscriptions.contains(kind) && $0.access >= .read } ?? false
      }
      .sorted()
    }
    for step in 0..<5000 {
      let id = SessionID(UInt64.random(in: 1...60, using: &rng))
      let some = Set(kinds.filter { _ in Bool.random(using: &rng) })
      switch Int.random(in: 0..<10, using: &rng) {
      case 0, 1:
        let access = [AccessLevel.none, .read, .admin].randomElement(using: &rng)!
        m.opened(id, peer: Peer(pid: 1, uid: 0, gid: 0), access: access, isApp: Bool.random(using: &rng))
      case 2, 3, 4: _ = m.subscribe(id, to: some)
      case 5, 6: _ = m.unsubscribe(id, from: some)
      case 7:
        _ = m.changeAccess(
          id, to: [.none, .read, .admin].randomElement(using: &rng)!, reason: .configurationReloaded)
      default: m.closed(id)
      }
      for kind in kinds where m.recipients(of: kind) != rebuilt(kind) {
        Issue.record("step \(step): \(kind) has \(m.recipients(of: kind)), a rebuild \(rebuilt(kind))")
        return
      }
    }
  }
}

/// Acquisition's transitions as values: what is routine, and the words on the wire.
@Suite struct AcquisitionTransitionTests {
  @Test func routineTransitionsAreTheRefreshCycle() {
    let t = at("2026-06-01T08:00:00Z")
    typealias T = Acquisition.Transition
    #expect(T(from: .settled, to: .idle, reason: .released(refreshIn: .seconds(900)), at: t).isRoutine)
    #expect(T(from: .idle, to: .acquiring, reason: .triggered(.refresh), at: t).isRoutine)
    #expect(!T(from: .idle, to: .acquiring, reason: .triggered(.manual), at: t).isRoutine)
    #expect(!T(from: .acquiring, to: .settled, reason: .stable(accuracy: 50), at: t).isRoutine)
    let timeout = Acquisition.Reason.timedOut(accuracy: 50, timeout: .seconds(60), retryIn: .seconds(120))
    #expect(!T(from: .acquiring, to: .idle, reason: timeout, at: t).isRoutine)
    #expect(timeout.description == "no fix within 50 m in 1 min; next attempt in 2 min")
    #expect(Acquisition.Reason.triggered(.oneShot).description == "one-shot")
  }
}

/// The status reply: the engine's part, completed by the shell with what only it knows.
@Suite struct StatusCompletionTests {
  @Test func shellPartsReplaceTheEnginesExceptWhatTheEngineCounts() {
    var e = Engine(config: DaemonConfig())
    let t = at("2026-06-01T12:00:00Z")
    _ = e.handle(.started(nil, stateProblem: nil), at: t)
    let old = SourceSnapshot(
      id: SourceID(0), uri: "replay:x", state: .connected, counters: [Counter("fixes", 1)])
    _ = e.handle(.sourceUpdated(old, restarted: true), at: t)
    _ = e.handle(.sessionOpened(SessionID(1), Peer(pid: 1, uid: 1000, gid: 1000), .none, client: nil), at: t)
    _ = e.handle(.requestReceived(SessionID(1), .number(1), .status), at: t)  // refused, counted
    let report = e.status(at: t)
    #expect(
      report.server
        == {
          var c = ServerCounters(); c.permissionDenied = 1; return c
        }())
    var server = ServerCounters()
    server.accepted = 4
    server.permissionDenied = 99  // the server does not decide these; the engine's count stays
    let live = SourceSnapshot(
      id: SourceID(0), uri: "replay:x", state: .connected, counters: [Counter("fixes", 7)])
    let completed = report.completed(server: server, sources: [live])
    #expect(completed.server.accepted == 4 && completed.server.permissionDenied == 1)
    #expect(completed.sources == [live])
    #expect(completed.position == report.position && completed.summary == report.summary)
  }
}
