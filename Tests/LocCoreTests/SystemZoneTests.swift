import LocCore
import Testing

/// `[TimeZone] SetSystemTimeZone=yes` through the engine: the call, how it ended, what status
/// says, and the call made again after a refusal (issue 41: polkit refused it and status said
/// locd would only set it with the option that was set).
struct SystemZoneTests {
  let lisbon = Coordinate(latitude: 38.7223, longitude: -9.1393)!
  let madrid = Coordinate(latitude: 40.4168, longitude: -3.7038)!
  let start = at("2026-12-07T16:00:00Z")

  func harness() -> EngineHarness {
    var config = DaemonConfig()
    config.setSystemTimeZone = true
    // Lisbon and Madrid from the test lookup's boxes are only near the border: widen it with
    // a lookup that names the two cities' zones.
    let environment = EngineEnvironment(
      systemZone: "UTC", zones: TestZones.catalog,
      zoneAt: { c in c.longitude.value < -7 ? "Europe/Lisbon" : "Europe/Madrid" })
    return EngineHarness(config: config, environment: environment, at: start)
  }

  /// The zones the engine asked the shell to make the system's, in order.
  func calls(_ h: EngineHarness) -> [String] {
    h.log.compactMap { if case .setSystemTimeZone(let z) = $0.effect { return z } else { return nil } }
  }

  @Test func aRefusalShowsInStatusAndTheCallIsMadeAgainLater() throws {
    var h = harness()
    _ = h.request(.setLocation(lisbon, name: nil, accuracy: nil))
    #expect(calls(h) == ["Europe/Lisbon"])
    var system = try #require(h.engine.status(at: h.now).systemZone)
    // Asked, not answered yet: the system still has UTC.
    #expect(system.zone == "UTC" && system.wanted == "Europe/Lisbon" && system.problem == nil)

    let refused =
      "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired: Interactive authentication required."
    h.advance(to: start.adding(.seconds(1)))
    h.handle(.systemZoneSet("Europe/Lisbon", problem: refused))
    system = try #require(h.engine.status(at: h.now).systemZone)
    #expect(system.zone == "UTC")
    #expect(system.wanted == "Europe/Lisbon")
    #expect(system.problem == refused)
    #expect(system.failingSince == start.adding(.seconds(1)))
    // Ten minutes later (SystemZoneSetting.retryInterval), once, not before.
    let retry = start.adding(.seconds(601))
    #expect(system.retryAt == retry)
    #expect(h.armed[.systemZone] == retry)
    h.advance(to: retry.adding(.seconds(-1)))
    #expect(calls(h) == ["Europe/Lisbon"])
    h.advance(to: retry)
    #expect(calls(h) == ["Europe/Lisbon", "Europe/Lisbon"])

    // The administrator fixed the rule: this call works; the failure is gone from status.
    h.handle(.systemZoneSet("Europe/Lisbon", problem: nil))
    system = try #require(h.engine.status(at: h.now).systemZone)
    #expect(system.zone == "Europe/Lisbon" && system.wanted == nil && system.problem == nil)
    #expect(system.failingSince == nil && system.retryAt == nil)
    #expect(system.setAt == retry)
    h.advance(to: retry.adding(.seconds(3600)))
    #expect(calls(h).count == 2)
  }

  @Test func aReloadAsksAgainAtOnceAndANewZoneReplacesTheRefusedOne() throws {
    var h = harness()
    _ = h.request(.setLocation(lisbon, name: nil, accuracy: nil))
    h.handle(.systemZoneSet("Europe/Lisbon", problem: "org.freedesktop.DBus.Error.AccessDenied: no"))
    var config = DaemonConfig()
    config.setSystemTimeZone = true
    h.handle(.configReloaded(.success(config), requestedBy: nil))
    #expect(calls(h) == ["Europe/Lisbon", "Europe/Lisbon"])
    // Still out when the machine reaches Madrid: Madrid is asked for, and the late answer
    // for Lisbon only says what the system had meanwhile.
    _ = h.request(.setLocation(madrid, name: nil, accuracy: nil))
    #expect(calls(h) == ["Europe/Lisbon", "Europe/Lisbon", "Europe/Madrid"])
    h.handle(.systemZoneSet("Europe/Lisbon", problem: nil))
    var system = try #require(h.engine.status(at: h.now).systemZone)
    #expect(system.zone == "Europe/Lisbon" && system.wanted == "Europe/Madrid")
    h.handle(.systemZoneSet("Europe/Madrid", problem: nil))
    system = try #require(h.engine.status(at: h.now).systemZone)
    #expect(system.zone == "Europe/Madrid" && system.wanted == nil)
    // Back in Lisbon: asked again, since the system now has Madrid.
    _ = h.request(.setLocation(lisbon, name: nil, accuracy: nil))
    #expect(calls(h).last == "Europe/Lisbon" && calls(h).count == 4)
  }

  @Test func withoutTheOptionThereIsNoCallAndNoStatusMember() {
    var h = EngineHarness(
      environment: EngineEnvironment(
        systemZone: "UTC", zones: TestZones.catalog, zoneAt: { _ in "Europe/Lisbon" }),
      at: start)
    _ = h.request(.setLocation(lisbon, name: nil, accuracy: nil))
    #expect(calls(h).isEmpty)
    #expect(h.engine.status(at: h.now).systemZone == nil)
  }
}
