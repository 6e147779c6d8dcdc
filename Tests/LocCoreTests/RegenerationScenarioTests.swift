import LocCore
import Testing

/// The scenarios, replayed as (instant, event) lists through the engine with a
/// simulated clock (`EngineHarness`): each checks the effects, never timing.
@Suite struct RegenerationScenarioTests {
  static let badajoz = Coordinate(lat: 38.8794, lon: -6.9707)!
  static let elvas = Coordinate(lat: 38.8808, lon: -7.1628)!

  func timer(_ name: String, _ rule: String, missed: MissedEventPolicy = .skip) throws -> TimerDefinition {
    TimerDefinition(
      name: name, rule: try TimerRule(parsing: rule), missed: missed, origin: .file("/t/\(name).timer"))
  }

  /// Fixes once a second from `from` to `to` at `speed`, starting at `start`; returns the end time.
  func drive(_ h: inout EngineHarness, from: Coordinate, to: Coordinate, speed: Double, start: Instant)
    -> Instant
  {
    let total = from.distance(to: to).value
    let steps = Int(total / speed)
    let lat0 = from.latitude.value
    let lon0 = from.longitude.value
    var t = start
    for i in 0...steps {
      let f = Double(i) / Double(steps)
      let c = Coordinate(
        lat: lat0 + f * (to.latitude.value - lat0), lon: lon0 + f * (to.longitude.value - lon0))!
      h.fix(c, at: t, speed: speed)
      t = t.adding(.seconds(1))
    }
    return t
  }

  @Test func badajozToPortugalAtSunset() throws {
    var h = EngineHarness(
      at: at("2026-06-21T19:30:00Z"), timers: [try timer("sunset", "sunset"), try timer("ten", "22:00")])
    h.fix(Self.badajoz, at: at("2026-06-21T19:30:00Z"))
    #expect(h.engine.status(at: h.now).timeZone.id == "Europe/Madrid")
    let spainValue = h.timer("ten")
    let spain = try #require(spainValue)
    #expect(spain.next?.instant == at("2026-06-21T20:00:00Z"))  // 22:00 CEST
    #expect(spain.nextLocal?.hour == 22)
    let spanishSunsetValue = h.timer("sunset")?.next?.instant
    let spanishSunset = try #require(spanishSunsetValue)
    #expect(h.timer("sunset")?.nextLocal?.hour == 21)  // about 21:54 CEST

    // West along the A-5/A6 at 25 m/s: the border (7.034°W) about 5.5 km out, Elvas after 16.7 km.
    let end = drive(&h, from: Self.badajoz, to: Self.elvas, speed: 25, start: at("2026-06-21T19:40:00Z"))
    // One zone change, adopted after the hysteresis, from Madrid (+2 h) to Lisbon (+1 h)
    // (after the first fix's change from the system zone).
    #expect(h.zoneChanges.map(\.to.id) == ["Europe/Madrid", "Europe/Lisbon"])
    let change = try #require(h.zoneChanges.last)
    #expect(change.from?.id == "Europe/Madrid" && change.from?.offsetSeconds == 7200)
    #expect(change.to.id == "Europe/Lisbon" && change.to.offsetSeconds == 3600)
    // The same wall time is now an hour later in absolute time; sunset keeps its instant
    // (a few seconds later, farther west) but reads an hour earlier on the wall.
    let portugalValue = h.timer("ten")
    let portugal = try #require(portugalValue)
    #expect(portugal.next?.instant == at("2026-06-21T21:00:00Z"))  // 22:00 WEST
    #expect(portugal.nextLocal?.hour == 22)
    // Parked in Elvas until after both deadlines.
    var t = end
    while t < at("2026-06-21T21:05:00Z") {
      h.fix(Self.elvas, at: t)
      t = t.adding(.seconds(30))
    }
    let sunsets = h.firings.filter { $0.name == "sunset" }
    #expect(sunsets.count == 1)  // once, in Portugal, never a second time for the same day
    let fired = try #require(sunsets.first)
    #expect(fired.occurrence.instant > spanishSunset)
    #expect(fired.occurrence.instant.seconds(since: spanishSunset) < 120)
    #expect(fired.missed == 0 && fired.late < .seconds(1))
    #expect(h.firings.filter { $0.name == "ten" }.map(\.occurrence.instant) == [at("2026-06-21T21:00:00Z")])
    // The notice names the zone the deadline was planned in.
    let names = h.notices.compactMap { n -> String? in
      if case .timerFired(let f, let zone, let local) = n.notice, f.name == "sunset" {
        return "\(zone) \(local.hour)"
      }
      return nil
    }
    #expect(names == ["Europe/Lisbon 20"])
    #expect(h.significantChanges >= 10)  // a 16.7 km drive with a 1 km threshold
  }

  @Test func osloToTromsoInDecemberSunriseGoesQuiet() throws {
    var h = EngineHarness(at: at("2026-12-10T04:00:00Z"), timers: [try timer("dawn", "sunrise")])
    h.fix(Coordinate(lat: 59.9139, lon: 10.7522)!, at: at("2026-12-10T05:00:00Z"))
    #expect(h.timer("dawn")?.next?.date == CivilDate(year: 2026, month: 12, day: 10))
    // A flight north (2.5 h, 1,150 km: plausible).
    h.fix(Coordinate(lat: 69.6492, lon: 18.9553)!, at: at("2026-12-10T07:30:00Z"))
    let quietValue = h.timer("dawn")
    let quiet = try #require(quietValue)
    let next = try #require(quiet.next)
    #expect(next.date.year == 2027 && next.date.month == 1, "\(next.date)")
    #expect(quiet.reason.contains("polar night"), "\(quiet.reason)")
    #expect(quiet.reason.contains("no sunrise 2026-12-"), "\(quiet.reason)")
    h.advance(to: at("2026-12-14T12:00:00Z"))
    #expect(h.firings.isEmpty)
    // Each local midnight regenerated the solar days without any move.
    let midnights = h.notices.compactMap { n -> Instant? in
      if case .solarRegenerated(let r) = n.notice, r.reason == .localMidnight { return n.at }
      return nil
    }
    #expect(midnights == (11...14).map { at("2026-12-\($0 - 1)T23:00:00Z") })  // 00:00 CET
    #expect(h.engine.status(at: h.now).sun?.note?.contains("polar night") == true)
  }

  func dstHarness(_ start: Instant) throws -> EngineHarness {
    var config = DaemonConfig()
    config.timeZone = "Europe/Oslo"
    return EngineHarness(
      config: config, environment: EngineEnvironment(systemZone: "UTC", zones: TestZones.catalog),
      at: start, timers: [try timer("night", "02:30")])
  }

  @Test func springForwardNight() throws {
    var h = try dstHarness(at("2026-03-28T12:00:00Z"))
    h.advance(to: at("2026-03-30T12:00:00Z"))
    #expect(h.firings.map(\.occurrence.instant) == [at("2026-03-29T01:30:00Z"), at("2026-03-30T00:30:00Z")])
    #expect(h.firings.allSatisfy { $0.missed == 0 })
    // The offset change itself is news, at the transition.
    let changes = h.notices.filter {
      if case .timezoneChanged = $0.notice { return true } else { return false }
    }
    #expect(changes.map(\.at) == [at("2026-03-29T01:00:00Z")])
    #expect(h.zoneChanges.first?.reason == .utcOffset)
    #expect(h.zoneChanges.first?.to.offsetSeconds == 7200)
  }

  @Test func autumnNightTwoThirtyHappensTwiceFiresOnce() throws {
    var h = try dstHarness(at("2026-10-24T12:00:00Z"))
    h.advance(to: at("2026-10-26T12:00:00Z"))
    #expect(h.firings.map(\.occurrence.instant) == [at("2026-10-25T00:30:00Z"), at("2026-10-26T01:30:00Z")])
  }

  @Test func clockSetBackAfterATimerFiredDoesNotFireAgain() throws {
    var h = EngineHarness(
      environment: EngineEnvironment(), at: at("2026-06-01T07:00:00Z"), timers: [try timer("wake", "07:30")])
    h.advance(to: at("2026-06-01T07:30:05Z"))
    #expect(h.firings.count == 1)
    h.now = at("2026-06-01T06:30:05Z")  // someone sets the clock back an hour
    h.handle(.clockStepped)
    #expect(h.armed[.timers] == at("2026-06-02T07:30:00Z"))
    h.advance(to: at("2026-06-01T08:00:00Z"))
    #expect(h.firings.count == 1)
    // Even without the shell noticing the step, time going back never fires twice.
    h.now = at("2026-06-01T07:00:00Z")
    h.fix(Coordinate(lat: 50, lon: 10)!, at: at("2026-06-01T07:00:00Z"))
    h.advance(to: at("2026-06-02T07:30:01Z"))
    #expect(h.firings.map(\.occurrence.date.day) == [1, 2])
  }

  @Test func clockJumpForwardOverTwoDeadlinesUnderEachPolicy() throws {
    var h = EngineHarness(
      environment: EngineEnvironment(), at: at("2026-06-01T07:00:00Z"),
      timers: [
        try timer("skip", "07:30", missed: .skip), try timer("once", "07:30", missed: .once),
        try timer("all", "07:30", missed: .all),
      ])
    h.now = at("2026-06-02T07:45:00Z")
    h.handle(.clockStepped)
    h.handle(.timerFired(.timers))
    #expect(h.firings.filter { $0.name == "skip" }.isEmpty)
    #expect(h.firings.filter { $0.name == "once" }.map(\.missed) == [2])
    #expect(h.firings.filter { $0.name == "all" }.map(\.occurrence.date.day) == [1, 2])
    #expect(h.logLines.contains("timer skip: 2 missed occurrence(s) not fired (Missed=skip)"))
    #expect(h.armed[.timers] == at("2026-06-03T07:30:00Z"))
    #expect(h.log.contains { if case .persistTimers = $0.effect { return true } else { return false } })
  }

  @Test func suspendAcrossADeadline() throws {
    var h = EngineHarness(
      environment: EngineEnvironment(), at: at("2026-06-01T19:00:00Z"),
      timers: [
        try timer("skip", "20:00"), try timer("once", "20:00", missed: .once), try timer("later", "21:00:30"),
      ])
    // Asleep from 19:00 to 21:00: the realtime timer fires on resume, and the shell reports it.
    h.now = at("2026-06-01T21:00:00Z")
    h.handle(.timerFired(.timers))
    h.handle(.resumed(sleptFor: .seconds(7200)))
    #expect(h.firings.map(\.name) == ["once"])
    #expect(h.firings.first?.missed == 1)
    h.advance(to: at("2026-06-01T21:00:31Z"))
    #expect(h.firings.map(\.name) == ["once", "later"])
    #expect(h.firings.last?.missed == 0)
    // A nap that ends within MissedAfter of the deadline is merely late, not missed.
    var nap = EngineHarness(
      environment: EngineEnvironment(), at: at("2026-06-01T19:59:00Z"), timers: [try timer("skip", "20:00")])
    nap.now = at("2026-06-01T20:00:20Z")
    nap.handle(.resumed(sleptFor: .seconds(80)))
    #expect(nap.firings.map(\.missed) == [0])
  }

  @Test func aMoveNeverFiresTheSameDayTwice() throws {
    var h = EngineHarness(at: at("2026-06-21T19:00:00Z"), timers: [try timer("sunset", "sunset")])
    // Manual locations (no receiver): Badajoz first, then 130 km west, where the Sun sets later.
    _ = h.request(.setLocation(Self.badajoz, name: nil, accuracy: nil))
    let firstValue = h.timer("sunset")?.next?.instant
    let first = try #require(firstValue)
    h.advance(to: first.adding(.seconds(5)))
    #expect(h.firings.count == 1)
    _ = h.request(.setLocation(Coordinate(lat: 38.88, lon: -8.5)!, name: nil, accuracy: nil))
    let westValue = h.timer("sunset")?.next
    let west = try #require(westValue)
    #expect(west.date == CivilDate(year: 2026, month: 6, day: 22))
    h.advance(to: at("2026-06-21T21:00:00Z"))
    #expect(h.firings.count == 1)
  }

  @Test func jitterOfThirtyMetresForAnHourIsNoSignificantChange() {
    var h = EngineHarness(at: at("2026-06-01T12:00:00Z"))
    let home = Coordinate(lat: 59.9139, lon: 10.7522)!
    var t = at("2026-06-01T12:00:00Z")
    for i in 0..<3600 {
      let c = home.destination(
        distance: Meters(Double(i * 7919 % 31)), bearing: Degrees(Double(i * 37 % 360)))
      h.fix(c, at: t, accuracy: 8)
      t = t.adding(.seconds(1))
    }
    #expect(h.significantChanges == 1)  // the first position only
    let regenerations = h.notices.filter {
      if case .solarRegenerated = $0.notice { return true } else { return false }
    }
    #expect(regenerations.count == 1)
    #expect(h.zoneChanges.map(\.to.id) == ["Europe/Oslo"])  // from the system zone, at the first fix
    #expect(h.log.filter { if case .persist = $0.effect { return true } else { return false } }.count == 1)
  }

  @Test func teleportingOutlierIsRejected() {
    var h = EngineHarness(at: at("2026-06-01T12:00:00Z"))
    let road = Coordinate(lat: 59.9139, lon: 10.7522)!
    var t = at("2026-06-01T12:00:00Z")
    for i in 0..<20 {
      h.fix(road.destination(distance: Meters(Double(i) * 20), bearing: 45), at: t, speed: 20)
      t = t.adding(.seconds(1))
    }
    let before = h.significantChanges
    // One fix 800 km away (a multipath glitch or a bad NMEA sentence that passed its checksum).
    h.fix(Coordinate(lat: 52.52, lon: 13.40)!, at: t, speed: 20)
    #expect(h.engine.resolve(at: h.now).position?.coordinate.latitude.value ?? 0 > 59)
    #expect(h.significantChanges == before)
    let counters = h.engine.status(at: h.now).rejectedFixes
    #expect(counters.contains(Counter("implausible-jump", 1)))
    t = t.adding(.seconds(1))
    h.fix(road.destination(distance: 420, bearing: 45), at: t, speed: 20)
    #expect(h.engine.resolve(at: h.now).position?.coordinate == road.destination(distance: 420, bearing: 45))
  }
}
