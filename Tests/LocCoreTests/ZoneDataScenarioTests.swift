import Testing

@testable import LocCore

/// Zone rules as the engine gets them: TZif bytes handed in by the shell, parsed on demand,
/// failures said once, and new data as an event.
@Suite struct ZoneRulesCacheTests {
  @Test func parsesOnceAndKeepsFailuresAsFailures() {
    var cache = ZoneRulesCache(
      catalog: ZoneCatalog([
        "Europe/Oslo": .tzif(tzif("Europe/Oslo")), "Bad/Bytes": .tzif(Array("not a zone".utf8)),
        "Gone/Away": .unreadable("unknown time zone 'Gone/Away'"),
      ]))
    let oslo = try? cache.rules("Europe/Oslo").get()
    #expect(oslo?.utcOffsetSeconds(at: at("2026-01-15T12:00:00Z")) == 3600)
    #expect(cache.rules("Bad/Bytes") == .failure(.malformed("Bad/Bytes", .notTZif)))
    #expect(
      "\(ZoneProblem.malformed("Bad/Bytes", .notTZif))"
        == "time zone 'Bad/Bytes': not valid TZif data (notTZif)")
    #expect(cache.rules("Gone/Away") == .failure(.unreadable("Gone/Away", "unknown time zone 'Gone/Away'")))
    #expect(
      "\(ZoneProblem.unreadable("Gone/Away", "unknown time zone 'Gone/Away'"))"
        == "unknown time zone 'Gone/Away'")
    #expect(cache.rules("Mars/Olympus") == .failure(.notLoaded("Mars/Olympus")))
    // UTC is built in even when the catalog lacks it.
    #expect((try? cache.rules("UTC").get())?.utcOffsetSeconds(at: at("2026-01-15T12:00:00Z")) == 0)
  }
}

extension Result where Success == ZoneRules, Failure == ZoneProblem {
  static func == (a: Self, b: Self) -> Bool {
    switch (a, b) {
    case (.failure(let x), .failure(let y)): return x == y
    case (.success(let x), .success(let y)): return x.name == y.name
    default: return false
    }
  }
}

@Suite struct ZoneDataScenarioTests {
  static let t0 = at("2026-01-15T06:00:00Z")

  func timer(_ name: String, _ rule: String) throws -> TimerDefinition {
    TimerDefinition(name: name, rule: try TimerRule(parsing: rule), origin: .file("/t/\(name).timer"))
  }

  func harness(zone: String, catalog: ZoneCatalog, timers: [TimerDefinition] = []) -> EngineHarness {
    var config = DaemonConfig()
    config.timeZone = zone
    return EngineHarness(
      config: config, environment: EngineEnvironment(systemZone: "UTC", zones: catalog), at: Self.t0,
      timers: timers)
  }

  func warnings(_ h: EngineHarness) -> [String] {
    h.log.compactMap { if case .log(.warning, let m) = $0.effect { return m } else { return nil } }
  }

  func status(_ h: inout EngineHarness) throws -> StatusReport {
    let reply = h.request(.status)
    guard case .success(.status(let s))? = reply else {
      throw HarnessFailure("no status: \(String(describing: reply))")
    }
    return s
  }

  @Test func aZoneThatFailsToLoadSaysWhyOnceAndPlansInUTC() throws {
    let catalog = ZoneCatalog(["Europe/Nowhere": .unreadable("unknown time zone 'Europe/Nowhere'")])
    var h = harness(zone: "Europe/Nowhere", catalog: catalog, timers: [try timer("wake", "07:30")])
    #expect(warnings(h) == ["unknown time zone 'Europe/Nowhere'; planning in UTC"])
    // Regenerations that follow (a manual location, a reload) do not say it again.
    _ = h.request(.setLocation(Coordinate(lat: 10, lon: 10)!, name: nil, accuracy: nil))
    var config = DaemonConfig()
    config.timeZone = "Europe/Nowhere"
    h.handle(.configReloaded(.success(config), requestedBy: nil))
    #expect(warnings(h).count == 1)
    // The status shows why, and the timer is planned on UTC's wall clock.
    let s = try status(&h)
    #expect(s.timeZone.id == "Europe/Nowhere" && s.timeZone.offsetSeconds == nil)
    #expect(s.timeZone.reason == "unknown time zone 'Europe/Nowhere'; planning in UTC")
    let wakeStatus = h.timer("wake")
    let wake = try #require(wakeStatus)
    #expect(wake.zone == "UTC" && wake.next?.instant == at("2026-01-15T07:30:00Z"))
  }

  @Test func malformedBytesAreAProblemOfTheirOwn() throws {
    let h = harness(zone: "Europe/Oslo", catalog: ZoneCatalog(["Europe/Oslo": .tzif([0x54, 0x5A])]))
    #expect(warnings(h) == ["time zone 'Europe/Oslo': not valid TZif data (notTZif); planning in UTC"])
  }

  @Test func newTimeZoneDataReplansEverything() throws {
    let oslo = ZoneCatalog(["Europe/Oslo": .tzif(tzif("Europe/Oslo"))])
    var h = harness(zone: "Europe/Oslo", catalog: oslo, timers: [try timer("wake", "07:30")])
    // 07:30 in Oslo in January is 06:30Z (CET, +1 h).
    #expect(h.timer("wake")?.next?.instant == at("2026-01-15T06:30:00Z"))
    // The tzdata update changes Oslo's rules (here: to Tokyo's, +9 h all year).
    let changed = ZoneCatalog(["Europe/Oslo": .tzif(tzif("Asia/Tokyo"))])
    h.handle(.timeZoneDataChanged(changed))
    #expect(h.logLines.contains("time-zone data read again (1 zones, 0 unreadable); re-planning"))
    let change = try #require(h.zoneChanges.last)
    #expect(change.from?.offsetSeconds == 3600 && change.to.offsetSeconds == 32_400)
    #expect(change.to.id == "Europe/Oslo" && change.reason == .utcOffset)
    // 07:30 at +9 h is 22:30Z the day before: passed; the next is tomorrow's.
    #expect(h.timer("wake")?.next?.instant == at("2026-01-15T22:30:00Z"))
    #expect(h.engine.zoneCatalog == changed)
  }

  @Test func aZoneThatComesBackIsUsedAndAFailureIsSaidAgain() throws {
    var h = harness(zone: "Europe/Oslo", catalog: ZoneCatalog())
    #expect(warnings(h) == ["time zone 'Europe/Oslo' is not in the loaded time-zone data; planning in UTC"])
    h.handle(.timeZoneDataChanged(ZoneCatalog(["Europe/Oslo": .tzif(tzif("Europe/Oslo"))])))
    #expect(try status(&h).timeZone.offsetSeconds == 3600)
    #expect(h.zoneChanges.last?.to.offsetSeconds == 3600)
    // Broken again by a later update: said again, once.
    h.handle(
      .timeZoneDataChanged(ZoneCatalog(["Europe/Oslo": .unreadable("time zone 'Europe/Oslo': EACCES")])))
    h.handle(.resumed(sleptFor: nil))
    #expect(warnings(h).count == 2)
    #expect(warnings(h).last == "time zone 'Europe/Oslo': EACCES; planning in UTC")
  }
}

/// A test harness failure with a message.
struct HarnessFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// The zone in effect: when it drifts, what adopting a new one announces.
@Suite struct ZoneMachineTests {
  @Test func driftAndAdoption() {
    var m = ZoneMachine(
      environment: EngineEnvironment(systemZone: "UTC", zones: TestZones.catalog), settings: .init())
    let madrid = ZoneReport(id: "Europe/Madrid", origin: .position, offsetSeconds: 3600)
    #expect(m.drift(madrid) == nil, "nothing in effect yet")
    let first = m.adopt(madrid, reason: .start, setSystemZone: true)
    #expect(first.change == nil && first.setSystemZone == "Europe/Madrid")
    var summer = madrid
    summer.offsetSeconds = 7200
    #expect(m.drift(summer) == .utcOffset)
    let lisbon = ZoneReport(id: "Europe/Lisbon", origin: .position, offsetSeconds: 0)
    #expect(m.drift(lisbon) == .timezone)
    let moved = m.adopt(lisbon, reason: .significantChange, setSystemZone: true)
    #expect(moved.change == ZoneChange(from: madrid, to: lisbon, reason: .significantChange))
    #expect(moved.setSystemZone == "Europe/Lisbon")
    // The same zone at another offset is a UTC-offset change whatever caused the regeneration.
    let dst = m.adopt(
      ZoneReport(id: "Europe/Lisbon", origin: .position, offsetSeconds: 3600), reason: .localMidnight,
      setSystemZone: true)
    #expect(dst.change?.reason == .utcOffset && dst.setSystemZone == nil)
    // Only a zone from the position is made the system's.
    let configured = m.adopt(
      ZoneReport(id: "Asia/Tokyo", origin: .configured, offsetSeconds: 32_400), reason: .configuration,
      setSystemZone: true)
    #expect(configured.change?.to.id == "Asia/Tokyo" && configured.setSystemZone == nil)
    #expect(m.drift(ZoneReport(id: "Asia/Tokyo", origin: .configured, offsetSeconds: 32_400)) == nil)
  }
}
