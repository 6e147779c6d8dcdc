import Testing

@testable import LocCore

/// Light and dark by the Sun in the engine (decision 0065), replayed in simulated time: the
/// schedule any local user may ask for, the transitions pushed to its followers at sunset and
/// sunrise, overrides until the next transition, polar days and nights, a suspend across
/// transitions, a clock step, a move to another cell, and the place it is worked out for.
///
/// Expected solar times come from Tests/Fixtures/solar/reference.csv (Skyfield with DE421,
/// see its README) for the reference city, and from reasoning for what the 25 km cell moves
/// them: the schedule is worked out for the centre of the cell, at most 12.5 km east or west
/// of the position; the Sun's hour angle moves 15° an hour, so a sunset moves by 4 minutes per
/// degree of longitude: 12.5 km at 48.86°N is 12.5 / (111.19 · cos 48.86°) = 0.171° = 41 s.
/// North-south, 12.5 km (0.112°) moves a sunset at an equinox by under 5 s (the Sun sets
/// straight down the meridian's hour there: dH/dφ = tan δ · sec²φ / sin H ≈ 0). Hence 50 s.
@Suite struct LightDarkEngineTests {
  static let paris = Coordinate(lat: 48.8566, lon: 2.3522)!
  static let tromso = Coordinate(lat: 69.6492, lon: 18.9553)!
  static let reykjavik = Coordinate(lat: 64.1466, lon: -21.9426)!
  /// A user of no group: access none.
  static let user = SessionID(10)
  /// A second session of the same user (its desktop's service, say).
  static let service = SessionID(11)
  /// Another user's session.
  static let stranger = SessionID(12)

  static func started(at t: Instant, place: Coordinate?) -> EngineHarness {
    var h = EngineHarness(at: t, watching: [])
    if let place {
      #expect(h.request(.setLocation(place, name: nil, accuracy: nil)) != nil)
    }
    h.plain(user, uid: 1000, access: .none)
    h.plain(service, uid: 1000, access: .none)
    h.plain(stranger, uid: 1001, access: .none)
    return h
  }

  static func schedule(_ r: Result<Response, RequestError>?) throws -> LightDarkSchedule {
    guard case .success(.lightDark(let s))? = r else {
      throw TestFailure("not a schedule: \(String(describing: r))")
    }
    return s
  }

  /// The `light-dark` events `id` got, with the instant each went out.
  static func pushes(_ h: EngineHarness, to id: SessionID) -> [(
    at: Instant, s: LightDarkSchedule, why: LightDarkReason
  )] {
    h.log.compactMap {
      if case .push(let ids, .lightDark(let s, let why), _) = $0.effect, ids.contains(id) {
        return ($0.at, s, why)
      }
      return nil
    }
  }

  static func near(_ a: Instant?, _ b: Instant, within seconds: Double) -> Bool {
    guard let a else { return false }
    return abs(a.seconds(since: b)) <= seconds
  }

  @Test func anyLocalUserGetsTheScheduleAndItsFollowersGetSunsetAndSunrise() throws {
    var h = Self.started(at: at("2024-03-20T12:00:00Z"), place: Self.paris)
    let s = try Self.schedule(h.send(Self.service, .lightDark(rules: nil, follow: true)))
    // Reference: Paris, 2024-03-20, sunrise 05:52:43Z, sunset 18:04:00Z (50 s: the cell).
    #expect(s.mode == .light && s.scheduled == .light && s.override == nil)
    #expect(Self.near(s.since, at("2024-03-20T05:52:43Z"), within: 50), "\(s)")
    #expect(s.transitions.count == 2)
    #expect(
      s.transitions.first?.mode == .dark
        && Self.near(s.transitions.first?.at, at("2024-03-20T18:04:00Z"), within: 50))
    // The next sunrise: about 1 min 50 s earlier a day around the equinox at 49°N (the day
    // grows by 3 min 40 s a day there, half of it in the morning).
    #expect(
      s.transitions.last?.mode == .light
        && Self.near(s.transitions.last?.at, at("2024-03-21T05:50:53Z"), within: 50 + 30))
    // Whole seconds, never before the event.
    #expect(s.transitions.allSatisfy { $0.at.microsecondsSinceEpoch % 1_000_000 == 0 })
    #expect(s.rules == .standard && s.zone == "UTC")

    let sunset = try #require(s.transitions.first?.at)
    h.advance(to: at("2024-03-21T12:00:00Z"))
    let pushed = Self.pushes(h, to: Self.service)
    #expect(pushed.map(\.s.mode) == [.dark, .light])
    #expect(pushed.map(\.why) == [.transition, .transition])
    // Each at its transition, in simulated time.
    #expect(pushed.first?.at == sunset && pushed.last?.at == s.transitions.last?.at)
    #expect(pushed.first?.s.since == sunset)
    // A user who does not follow gets no event; another user's follower nothing of this one's.
    #expect(Self.pushes(h, to: Self.user).isEmpty && Self.pushes(h, to: Self.stranger).isEmpty)
  }

  @Test func appSessionsAreRefusedTheyGetLightAndDarkFromThePortal() {
    var h = Self.started(at: at("2024-03-20T12:00:00Z"), place: Self.paris)
    h.handle(.appsLoaded(nil, problem: nil))
    h.app(SessionID(20), "org.example.Viewer")
    guard case .failure(let e)? = h.send(SessionID(20), .lightDark(rules: nil, follow: false)) else {
      Issue.record("an app session got a schedule")
      return
    }
    #expect(e.code == .permissionDenied)
  }

  @Test func overridesHoldUntilTheNextTransition() throws {
    var h = Self.started(at: at("2024-03-20T12:00:00Z"), place: Self.paris)
    _ = try Self.schedule(h.send(Self.service, .lightDark(rules: nil, follow: true)))
    let set = try Self.schedule(h.send(Self.user, .setMode(.dark)))
    let sunset = try #require(set.transitions.first?.at)
    #expect(
      set.mode == .dark && set.scheduled == .light
        && set.override == LightDarkOverride(mode: .dark, until: sunset))
    // The service follows; the session that set it has its answer.
    #expect(Self.pushes(h, to: Self.service).map(\.s.mode) == [.dark])
    #expect(Self.pushes(h, to: Self.service).map(\.why) == [.override])
    #expect(Self.pushes(h, to: Self.user).isEmpty)
    // Asking for what the schedule says anyway ends the override.
    #expect(try Self.schedule(h.send(Self.user, .setMode(.light))).override == nil)
    #expect(try Self.schedule(h.send(Self.user, .setMode(.toggle))).mode == .dark)
    // At sunset the override ends: dark by the schedule now, told once.
    h.advance(to: sunset.adding(seconds: 60))
    let atSunset = try #require(Self.pushes(h, to: Self.service).last)
    #expect(
      atSunset.at == sunset && atSunset.s.mode == .dark && atSunset.s.override == nil
        && atSunset.why == .transition)
    // Light by hand in the night, until sunrise; `auto` goes back to the schedule at once.
    let light = try Self.schedule(h.send(Self.user, .setMode(.light)))
    #expect(light.mode == .light && light.override?.until == light.transitions.first?.at)
    #expect(try Self.schedule(h.send(Self.user, .setMode(.auto))).mode == .dark)
    #expect(Self.pushes(h, to: Self.service).suffix(2).map(\.s.mode) == [.light, .dark])
    // The other user's mode was never touched.
    #expect(try Self.schedule(h.send(Self.stranger, .lightDark(rules: nil, follow: false))).override == nil)
  }

  @Test func aSuspendAcrossTransitionsIsToldOnceWithTheModeNow() throws {
    var h = Self.started(at: at("2024-03-20T15:00:00Z"), place: Self.paris)
    _ = try Self.schedule(h.send(Self.service, .lightDark(rules: nil, follow: true)))
    // Asleep from 15:00 to 09:00 the next morning: past the sunset and the sunrise. The
    // engine sees nothing until the shell says it resumed; the realtime timer armed for the
    // sunset fires late too (on resume), in whichever order.
    h.now = at("2024-03-21T09:00:00Z")
    h.handle(.resumed(sleptFor: .seconds(18 * 3600)))
    h.handle(.timerFired(.lightDark))
    let pushed = Self.pushes(h, to: Self.service)
    #expect(pushed.count == 1, "\(pushed)")
    #expect(pushed.first?.s.mode == .light && pushed.first?.why == .regenerated(.resume))
    // The morning's sunrise is the mode's start: 1 min 50 s a day earlier (see above).
    #expect(Self.near(pushed.first?.s.since, at("2024-03-21T05:50:53Z"), within: 50 + 30))

    // Asleep across the next sunset alone: dark, once, whether the late timer or the resume
    // comes first.
    h.now = at("2024-03-21T21:00:00Z")
    h.handle(.timerFired(.lightDark))
    h.handle(.resumed(sleptFor: .seconds(12 * 3600)))
    let after = Self.pushes(h, to: Self.service)
    #expect(after.count == 2 && after.last?.s.mode == .dark && after.last?.why == .transition)
  }

  @Test func aClockSteppedBackBeforeSunsetMakesItLightAgain() throws {
    var h = Self.started(at: at("2024-03-20T17:00:00Z"), place: Self.paris)
    _ = try Self.schedule(h.send(Self.service, .lightDark(rules: nil, follow: true)))
    h.advance(to: at("2024-03-20T19:00:00Z"))
    #expect(Self.pushes(h, to: Self.service).last?.s.mode == .dark)
    h.now = at("2024-03-20T17:30:00Z")
    h.handle(.clockStepped)
    let last = try #require(Self.pushes(h, to: Self.service).last)
    #expect(last.s.mode == .light && last.why == .regenerated(.clockStep))
  }

  /// The polar night in Tromsø lasts from about 27 November to 15 January, the midnight sun
  /// from about 20 May to 22 July (the Norwegian Meteorological Institute's figures for the
  /// city; the reference has no sunrise on 2024-12-21 and no sunset on 2024-06-20). The cell
  /// and the refraction convention move those dates by a day or two: five days of slack.
  @Test func polarNightAndMidnightSunGiveTheNextRealTransition() throws {
    var h = Self.started(at: at("2024-12-21T12:00:00Z"), place: Self.tromso)
    let night = try Self.schedule(h.send(Self.user, .lightDark(rules: nil, follow: false)))
    #expect(night.mode == .dark && night.zone == "Europe/Oslo")
    #expect(Self.near(night.since, at("2024-11-27T12:00:00Z"), within: 5 * 86_400), "\(night)")
    #expect(Self.near(night.transitions.first?.at, at("2025-01-15T11:00:00Z"), within: 5 * 86_400))
    #expect(night.transitions.first?.mode == .light && night.transitions.count == 2)
    #expect(night.note?.contains("polar night") == true, "\(night.note ?? "")")

    h.now = at("2024-06-20T12:00:00Z")
    h.handle(.clockStepped)
    let day = try Self.schedule(h.send(Self.user, .lightDark(rules: nil, follow: false)))
    #expect(day.mode == .light)
    #expect(Self.near(day.since, at("2024-05-20T00:00:00Z"), within: 5 * 86_400), "\(day)")
    #expect(Self.near(day.transitions.first?.at, at("2024-07-22T23:00:00Z"), within: 5 * 86_400))
    #expect(day.note?.contains("polar day") == true)
  }

  /// gammastep's two elevations: at Reykjavik (64.15°N) at the June solstice the Sun's lowest
  /// altitude is 64.15 + 23.44 - 90 = -2.41°: it never sinks below -3°, so the pair
  /// elevation:-3:evening / elevation:3:morning keeps it light through the night, while
  /// sunset and sunrise (-0.83°) make a short night.
  @Test func twoElevationsMakeAHysteresis() throws {
    var h = Self.started(at: at("2024-06-20T12:00:00Z"), place: Self.reykjavik)
    let pair = try LightDarkRules(dark: "elevation:-3:evening", light: "elevation:3:morning")
    let high = try Self.schedule(h.send(Self.user, .lightDark(rules: pair, follow: false)))
    #expect(high.mode == .light && high.rules == pair)
    let darkAt = try #require(high.transitions.first?.at)
    #expect(darkAt > at("2024-06-23T00:00:00Z"), "no dark around the solstice: \(high)")
    let standard = try Self.schedule(h.send(Self.user, .lightDark(rules: .standard, follow: false)))
    let sunset = try #require(standard.transitions.first)
    #expect(sunset.mode == .dark && sunset.at < at("2024-06-21T01:00:00Z"))
  }

  /// A user changing rules gets the new rules' transitions at once, and so do the user's
  /// followers, however often the rules change (the planner keeps the days it computed; a day
  /// computed for sunset and sunrise must still give civil dusk when a rule first asks for it).
  /// Reference (Tests/Fixtures/solar/reference.csv), Paris 2024-03-20: sunset 18:04:00Z, civil
  /// dusk 18:35:33Z, civil dawn 05:21:16Z; 50 s for the cell as above, and 30 s more for the
  /// next morning's dawn or sunrise, about 1 min 50 s earlier than the day before around the
  /// equinox (see the first test).
  @Test func changingRulesGivesTheNewRulesTransitions() throws {
    var h = Self.started(at: at("2024-03-20T12:00:00Z"), place: Self.paris)
    let first = try Self.schedule(h.send(Self.service, .lightDark(rules: nil, follow: true)))
    #expect(Self.near(first.transitions.first?.at, at("2024-03-20T18:04:00Z"), within: 50))

    // Civil twilight: the days already computed for sunset and sunrise gain civil dusk and dawn.
    let civil = try LightDarkRules(dark: "civil-dusk", light: "civil-dawn")
    let c = try Self.schedule(h.send(Self.user, .lightDark(rules: civil, follow: false)))
    #expect(c.rules == civil && c.mode == .light && c.transitions.map(\.mode) == [.dark, .light])
    #expect(Self.near(c.transitions.first?.at, at("2024-03-20T18:35:33Z"), within: 50), "\(c)")
    #expect(Self.near(c.transitions.last?.at, at("2024-03-21T05:19:26Z"), within: 50 + 30), "\(c)")
    let toldCivil = try #require(Self.pushes(h, to: Self.service).last)
    #expect(toldCivil.why == .rules && toldCivil.s == c)

    // An offset: half an hour after sunset, 18:34:00Z.
    let late = try LightDarkRules(dark: "sunset+30m", light: "sunrise")
    let l = try Self.schedule(h.send(Self.user, .lightDark(rules: late, follow: false)))
    #expect(Self.near(l.transitions.first?.at, at("2024-03-20T18:34:00Z"), within: 50), "\(l)")
    #expect(Self.pushes(h, to: Self.service).last?.s == l)

    // At 18:20Z, past the sunset but before it plus 30 minutes: still light by these rules...
    h.advance(to: at("2024-03-20T18:20:00Z"))
    #expect(Self.pushes(h, to: Self.service).count == 2, "no transition before 18:34")
    // ...and dark at once when the user goes back to sunset, since the sunset.
    let back = try Self.schedule(h.send(Self.user, .lightDark(rules: .standard, follow: false)))
    #expect(back.mode == .dark && back.rules == .standard)
    #expect(Self.near(back.since, at("2024-03-20T18:04:00Z"), within: 50), "\(back)")
    #expect(Self.near(back.transitions.first?.at, at("2024-03-21T05:50:53Z"), within: 50 + 30))
    let toldBack = try #require(Self.pushes(h, to: Self.service).last)
    #expect(toldBack.why == .rules && toldBack.s.mode == .dark)

    // Then the standard sunrise reaches the follower at its second.
    h.advance(to: at("2024-03-21T12:00:00Z"))
    let sunrise = try #require(Self.pushes(h, to: Self.service).last)
    #expect(
      sunrise.why == .transition && sunrise.s.mode == .light && sunrise.at == back.transitions.first?.at)
  }

  @Test func withoutAPositionTheModeIsUnknownUntilThereIsOne() throws {
    var h = Self.started(at: at("2024-03-20T20:00:00Z"), place: nil)
    let none = try Self.schedule(h.send(Self.service, .lightDark(rules: nil, follow: true)))
    #expect(none.mode == nil && none.transitions.isEmpty && none.note?.contains("no position") == true)
    // A mode set by hand holds meanwhile, with no end until there is a schedule.
    #expect(
      try Self.schedule(h.send(Self.user, .setMode(.dark))).override
        == LightDarkOverride(mode: .dark, until: nil))
    #expect(h.request(.setLocation(Self.paris, name: nil, accuracy: nil)) != nil)
    let last = try #require(Self.pushes(h, to: Self.service).last)
    #expect(last.s.mode == .dark && last.s.scheduled == .dark && last.why == .regenerated(.manualLocation))
    #expect(last.s.override?.until == last.s.transitions.first?.at)
  }

  /// The schedule tells the cell, never the position: two places 8 km apart in one cell get the
  /// same schedule to the second; 40 km east is another cell, with its own; and a position 3 km
  /// past the cell's edge keeps the cell (5 km of hysteresis), so the schedule does not flip
  /// at the line.
  @Test func theScheduleIsTheCellsNotThePositions() throws {
    let grid = LightDarkPlace.grid
    let cell = grid.cell(of: Self.paris)
    let centre = grid.centre(cell)
    var h = Self.started(
      at: at("2024-03-20T12:00:00Z"), place: centre.destination(distance: 4000, bearing: 270))
    let west = try Self.schedule(h.send(Self.service, .lightDark(rules: nil, follow: true)))
    #expect(
      h.request(.setLocation(centre.destination(distance: 4000, bearing: 90), name: nil, accuracy: nil))
        != nil)
    let east = try Self.schedule(h.send(Self.user, .lightDark(rules: nil, follow: false)))
    #expect(west == east)
    #expect(Self.pushes(h, to: Self.service).isEmpty, "same cell: nothing to tell")
    // Just past the eastern edge: kept.
    let b = grid.bounds(cell)
    let edge = Coordinate(lat: centre.latitude.value, lon: b.east)!.destination(distance: 3000, bearing: 90)
    #expect(h.request(.setLocation(edge, name: nil, accuracy: nil)) != nil)
    #expect(Self.pushes(h, to: Self.service).isEmpty)
    #expect(try Self.schedule(h.send(Self.user, .lightDark(rules: nil, follow: false))) == west)
    // 40 km east of the centre: past the margin, into a cell one or two columns east (cells are
    // about 25 km wide), whose centre's sunset is 25 to 50 km · 4 min / 73.2 km = 82 to 164 s
    // earlier.
    #expect(
      h.request(.setLocation(centre.destination(distance: 40_000, bearing: 90), name: nil, accuracy: nil))
        != nil)
    let moved = try #require(Self.pushes(h, to: Self.service).last)
    #expect(moved.why == .regenerated(.manualLocation))
    let shift = try #require(west.transitions.first?.at).seconds(
      since: try #require(moved.s.transitions.first?.at))
    #expect(shift > 60 && shift < 180, "\(shift)")
  }

  @Test func rulesMustFollowTheSunAndDiffer() {
    #expect(throws: LightDarkRules.Problem.self) { try LightDarkRules(dark: "20:00", light: "sunrise") }
    #expect(throws: LightDarkRules.Problem.self) {
      try LightDarkRules(dark: "sunset Mon-Fri", light: "sunrise")
    }
    #expect(throws: LightDarkRules.Problem.self) { try LightDarkRules(dark: "sunset", light: "sunset") }
    #expect(throws: LightDarkRules.Problem.self) { try LightDarkRules(dark: "dusk", light: "sunrise") }
    #expect(throws: LightDarkRules.Problem.self) {
      try LightDarkRules(dark: String(repeating: "s", count: 65), light: "sunrise")
    }
    #expect(
      (try? LightDarkRules(dark: "sunset+15m", light: "civil-dawn"))?.description
        == "dark at sunset+15m, light at civil-dawn")
  }

  @Test func aUsersStateGoesWithItsLastSession() throws {
    var h = Self.started(at: at("2024-03-20T12:00:00Z"), place: Self.paris)
    _ = try Self.schedule(h.send(Self.service, .lightDark(rules: nil, follow: true)))
    _ = try Self.schedule(h.send(Self.user, .setMode(.dark)))
    #expect(h.engine.status(at: h.now).lightDark?.overrides == 1)
    h.handle(.sessionClosed(Self.user))
    #expect(h.engine.status(at: h.now).lightDark?.users == 1, "the service still follows")
    h.handle(.sessionClosed(Self.service))
    let report = try #require(h.engine.status(at: h.now).lightDark)
    #expect(report.users == 0 && report.followers == 0 && report.overrides == 0)
    #expect(
      report.counters.requests == 2 && report.counters.overrides == 1 && report.counters.events == 1,
      "\(report.counters) \(Self.pushes(h, to: Self.service).map(\.why))")
    #expect(h.armed[.lightDark] == nil, "nobody follows: no timer")
  }
}

struct TestFailure: Error, CustomStringConvertible {
  var description: String
  init(_ d: String) { description = d }
}
