import LocCore
import Testing

/// `wait` requests through the engine (`WaitMachine`), with the simulated clock: each is
/// answered once, at the instant a timer with the same rule fires, or at a zone change.
@Suite struct WaitMachineTests {
  static let badajoz = Coordinate(lat: 38.8794, lon: -6.9707)!
  static let elvas = Coordinate(lat: 38.8808, lon: -7.1628)!
  let waiter = SessionID(7)

  /// A harness with a read-only session `waiter` beside the admin watcher.
  func harness(at start: Instant, timers: [TimerDefinition] = []) -> EngineHarness {
    var h = EngineHarness(at: start, timers: timers)
    h.handle(.sessionOpened(waiter, Peer(pid: 2, uid: 1000, gid: 1000), .read, client: "locctl"))
    return h
  }

  /// The `waited` replies sent to `session`, with the instants they were sent at.
  func answers(_ h: EngineHarness, to session: SessionID) -> [(
    at: Instant, id: RequestID, outcome: WaitOutcome
  )] {
    h.log.compactMap { entry in
      if case .reply(let s, let id, .success(.waited(let o))) = entry.effect, s == session {
        return (entry.at, id, o)
      }
      return nil
    }
  }

  /// The errors replied to `session`.
  func errors(_ h: EngineHarness, to session: SessionID) -> [RequestError] {
    h.log.compactMap { entry in
      if case .reply(let s, _, .failure(let e)) = entry.effect, s == session { return e }
      return nil
    }
  }

  @Test func aWallClockRuleIsAnsweredOnceAtItsDeadline() throws {
    // No position: the zone in effect is the system's, UTC, so 07:30 is 07:30Z.
    var h = harness(at: at("2026-06-01T07:00:00Z"))
    h.handle(.requestReceived(waiter, .number(5), .wait(.rule(try TimerRule(parsing: "07:30")))))
    #expect(answers(h, to: waiter).isEmpty, "not answered at once")
    #expect(h.armed[.timers] == at("2026-06-01T07:30:00Z"), "the engine's timer is armed for it")
    h.advance(to: at("2026-06-02T08:00:00Z"))
    let got = answers(h, to: waiter)
    #expect(got.count == 1, "answered once, not again the next day")
    let first = try #require(got.first)
    #expect(first.at == at("2026-06-01T07:30:00Z") && first.id == .number(5))
    guard case .occurred(let rule, let o, let late, let zone, let local, let offset) = first.outcome else {
      Issue.record("not an occurrence: \(first.outcome)")
      return
    }
    #expect(rule.description == "07:30" && o.instant == at("2026-06-01T07:30:00Z") && late == .zero)
    #expect(zone == "UTC" && offset == 0 && local.hour == 7 && local.minute == 30)
  }

  @Test func aSolarRuleIsAnsweredWhenATimerWithTheSameRuleFires() throws {
    // The timer machinery is tested against references (TimerPlannerTests); a wait with the
    // same rule must come at the same instant.
    let timer = TimerDefinition(
      name: "dusk", rule: try TimerRule(parsing: "sunset-30m"), origin: .file("/t/dusk.timer"))
    var h = harness(at: at("2026-06-21T12:00:00Z"), timers: [timer])
    h.fix(Self.badajoz, at: at("2026-06-21T12:00:00Z"))
    h.handle(.requestReceived(waiter, .string("w"), .wait(.rule(try TimerRule(parsing: "sunset-30m")))))
    var t = h.now
    while t < at("2026-06-21T21:00:00Z") {
      t = t.adding(.seconds(600))
      h.fix(Self.badajoz, at: t)
    }
    let fired = try #require(h.firings.first { $0.name == "dusk" })
    let got = answers(h, to: waiter)
    #expect(got.map(\.at) == [fired.occurrence.instant])
    guard case .occurred(_, let o, _, let zone, let local, let offset)? = got.first?.outcome else {
      Issue.record("no occurrence")
      return
    }
    #expect(o == fired.occurrence)
    #expect(zone == "Europe/Madrid" && offset == 7200 && local.hour == 21)  // about 21:24 CEST
  }

  @Test func aZoneWaitIsAnsweredByTheBorderCrossing() throws {
    var h = harness(at: at("2026-06-21T10:00:00Z"))
    h.fix(Self.badajoz, at: at("2026-06-21T10:00:00Z"))
    h.handle(.requestReceived(waiter, .number(1), .wait(.timezoneChange)))
    #expect(answers(h, to: waiter).isEmpty)
    // West at 25 m/s, 1 fix a second, then parked in Elvas.
    let total = Self.badajoz.distance(to: Self.elvas).value
    let steps = Int(total / 25)
    for i in 0...steps + 120 {
      let f = min(1, Double(i) / Double(steps))
      let c = Coordinate(
        lat: Self.badajoz.latitude.value + f * (Self.elvas.latitude.value - Self.badajoz.latitude.value),
        lon: Self.badajoz.longitude.value + f * (Self.elvas.longitude.value - Self.badajoz.longitude.value))!
      h.fix(c, at: at("2026-06-21T10:01:00Z").adding(.seconds(Double(i))), speed: 25)
    }
    let got = answers(h, to: waiter)
    #expect(got.count == 1)
    guard case .timezoneChanged(let change)? = got.first?.outcome else {
      Issue.record("no zone change: \(got)")
      return
    }
    #expect(change.from?.id == "Europe/Madrid" && change.to.id == "Europe/Lisbon")
    #expect(change == h.zoneChanges.last)
  }

  @Test func closingTheSessionDropsItsWaits() throws {
    var h = harness(at: at("2026-06-01T07:00:00Z"))
    h.handle(.requestReceived(waiter, .number(1), .wait(.rule(try TimerRule(parsing: "07:30")))))
    h.handle(.sessionClosed(waiter))
    #expect(h.armed[.timers] == nil, "nothing left to wake up for")
    h.advance(to: at("2026-06-01T08:00:00Z"))
    #expect(answers(h, to: waiter).isEmpty)
  }

  @Test func atMostSixteenWaitsPerSession() throws {
    var h = harness(at: at("2026-06-01T07:00:00Z"))
    let rule = try TimerRule(parsing: "07:30")
    for n in 0..<17 { h.handle(.requestReceived(waiter, .number(Int64(n)), .wait(.rule(rule)))) }
    let refused = errors(h, to: waiter)
    #expect(refused.count == 1 && refused.first?.code == .failed)
    h.advance(to: at("2026-06-01T08:00:00Z"))
    #expect(answers(h, to: waiter).count == 16)
  }

  @Test func polarNightWaitsForJanuaryAndAnUnreachableElevationIsRefused() throws {
    // Tromsø (69.65°N) in December: polar night; the timer planner finds the first sunrise
    // in mid-January (TimerPlannerTests), so the wait is taken and the engine wakes then. An
    // elevation the Sun never reaches there has no occurrence at all: refused with the reason.
    var h = harness(at: at("2026-12-10T12:00:00Z"))
    h.fix(Coordinate(lat: 69.6492, lon: 18.9553)!, at: at("2026-12-10T12:00:00Z"))
    h.handle(.requestReceived(waiter, .number(1), .wait(.rule(try TimerRule(parsing: "sunrise")))))
    #expect(errors(h, to: waiter).isEmpty)
    let armed = try #require(h.armed[.timers])
    #expect(armed > at("2027-01-10T00:00:00Z") && armed < at("2027-01-21T00:00:00Z"), "\(armed)")
    h.handle(
      .requestReceived(waiter, .number(2), .wait(.rule(try TimerRule(parsing: "elevation:60:morning")))))
    let refused = errors(h, to: waiter)
    #expect(refused.count == 1)
    #expect(refused.first?.code == .failed && refused.first?.message.contains("within 370 days") == true)
  }

  @Test func theSunsetOffsetNeedsAUnit() {
    #expect(throws: (any Error).self) { try TimerRule(parsing: "sunset-30") }
    do {
      _ = try TimerRule(parsing: "sunset-30")
    } catch {
      #expect("\(error)".contains("sunset-30m"), "suggests minutes: \(error)")
    }
    #expect((try? TimerRule(parsing: "sunset-30m"))?.description == "sunset-30m")
    #expect((try? TimerRule(parsing: "sunset-30s")) != nil)
  }
}
