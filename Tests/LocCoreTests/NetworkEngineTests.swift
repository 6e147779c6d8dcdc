import LocCore
import Testing

/// Network positioning in the engine harness: the lookups the engine asks the shell for
/// (`Effect.geolocate`), and what it makes of the answers the shell hands back. The service
/// here is the harness: answers are written in each test as the geolocate API gives them.
@Suite struct NetworkEngineTests {
  static let t0 = at("2026-06-21T10:00:00Z")
  static let oslo = Array(#"{"location": {"lat": 59.9139, "lng": 10.7522}, "accuracy": 5000}"#.utf8)

  static func config(enabled: Bool = true, ip: Bool = true) -> DaemonConfig {
    var c = DaemonConfig()
    c.network.enabled = enabled
    c.network.ipLookup = ip
    c.network.minInterval = .seconds(60)
    c.network.freshFor = .seconds(300)
    // Acquisition wants a fix all along, so only the network's own rules hold lookups back.
    c.acquisition.mode = .continuous
    // The harness's watcher subscribes to locations, so the Wi-Fi scene is followed; its
    // quiet scans (NetworkFollowEngineTests) would add to the scans counted here.
    c.network.rescanAfter = .seconds(86_400)
    return c
  }

  /// A harness whose first Wi-Fi scan (asked for at start) found nothing: IP lookups follow.
  static func harness(_ config: DaemonConfig = Self.config()) -> EngineHarness {
    var h = EngineHarness(config: config, at: t0)
    h.handle(.wifiScanned([], problem: "no NetworkManager"))
    return h
  }

  static func scans(_ h: EngineHarness) -> Int {
    h.log.filter { if case .scanWifi = $0.effect { true } else { false } }.count
  }

  static func lookups(_ h: EngineHarness) -> [(Instant, GeolocateQuery)] {
    h.log.compactMap { if case .geolocate(let q, _, _) = $0.effect { return ($0.at, q) } else { return nil } }
  }

  static func network(_ h: EngineHarness) throws -> NetworkReport {
    try #require(h.engine.status(at: h.now).network)
  }

  @Test func nothingIsAskedWhileTheSwitchIsOff() throws {
    for config in [Self.config(enabled: false, ip: true), Self.config(enabled: false, ip: false)] {
      var h = EngineHarness(config: config, at: Self.t0)
      #expect(Self.scans(h) == 0)
      h.advance(to: Self.t0.adding(seconds: 7200))
      _ = h.request(.refresh)
      #expect(Self.lookups(h).isEmpty)
      #expect(try Self.network(h).enabled == false && Self.network(h).counts.requests == 0)
    }
    // On, but IP lookups not opted into and no Wi-Fi seen: nothing either.
    var h = Self.harness(Self.config(enabled: true, ip: false))
    h.advance(to: Self.t0.adding(seconds: 600))
    #expect(Self.lookups(h).isEmpty)
  }

  @Test func anIPAnswerBecomesTheCityLevelPositionAndIsCached() throws {
    var h = Self.harness()
    let asked = Self.lookups(h)
    #expect(asked.count == 1 && asked.first?.1 == .ipOnly)
    h.handle(.geolocateAnswered(.answered(status: 200, body: Self.oslo)))
    let r = h.engine.resolve(at: h.now)
    #expect(r.provenance == .ip && r.tier == .fix && r.position?.accuracy == Meters(5000))
    #expect(r.position?.source == "https://api.beacondb.net/v1/geolocate")
    // The zone follows the network position at once (no receiver's fixes to adopt one).
    #expect(h.engine.status(at: h.now).timeZone.id == "Europe/Oslo")
    #expect(
      h.notices.contains { if case .location(let l, _) = $0.notice { l.provenance == .ip } else { false } })
    // No coordinate in the log at the default level.
    #expect(!h.logLines.contains { $0.contains("59.9") })
    // After FreshFor (300 s) the same networks (the IP) are answered from memory: nothing sent.
    h.advance(to: Self.t0.adding(seconds: 301))
    h.handle(.clockStepped)
    // A scan first (MinInterval= has passed since the last); it finds nothing again.
    #expect(Self.scans(h) == 2)
    h.handle(.wifiScanned([], problem: nil))
    #expect(Self.lookups(h).count == 1)
    let n = try Self.network(h)
    #expect(n.counts.requests == 1 && n.counts.answers == 1 && n.counts.cacheHits >= 1)
  }

  /// A scan first, only when a fix is wanted; what may be sent of it is the query; the same
  /// networks again are answered from memory.
  @Test func aWifiScanIsAskedForAndItsNetworksAreLookedUp() throws {
    var config = Self.config(ip: false)
    config.acquisition.mode = .onDemand
    var h = EngineHarness(config: config, at: Self.t0)
    #expect(Self.scans(h) == 1)
    let home = WifiAccessPoint(bssid: [0, 1, 2, 3, 4, 5], ssid: Array("home".utf8), signal: -50)
    let nomap = WifiAccessPoint(bssid: [0, 1, 2, 3, 4, 6], ssid: Array("x_nomap".utf8), signal: -40)
    let next = WifiAccessPoint(bssid: [0, 1, 2, 3, 4, 7], ssid: Array("next".utf8), signal: -70)
    h.handle(.wifiScanned([home, nomap, next], problem: nil))
    let sent = try #require(Self.lookups(h).last?.1)
    #expect(sent.accessPoints == [home, next] && !sent.considerIp)
    let wifi = Array(#"{"location": {"lat": 59.9139, "lng": 10.7522}, "accuracy": 40}"#.utf8)
    h.handle(.geolocateAnswered(.answered(status: 200, body: wifi)))
    let r = h.engine.resolve(at: h.now)
    #expect(r.provenance == .wifi && r.tier == .fix && r.position?.accuracy == Meters(40))
    // Past MaxAge= (300 s) a refresh wants a fix again: a scan (the engine may have asked
    // for one at an acquisition retry already), the same networks, answered from memory.
    h.advance(to: Self.t0.adding(seconds: 400))
    _ = h.request(.refresh)
    #expect(Self.scans(h) >= 2)
    h.handle(.wifiScanned([next, home], problem: nil))
    #expect(Self.lookups(h).count == 1)
    #expect(try Self.network(h).counts.cacheHits >= 1)
  }

  @Test func aServerErrorBacksOffDoublingUpToAnHour() throws {
    var h = Self.harness()
    var waits: [Duration] = []
    for round in 0..<8 {
      #expect(Self.lookups(h).count == round + 1, "round \(round)")
      let sent = try #require(Self.lookups(h).last?.0)
      h.handle(.geolocateAnswered(.answered(status: 500, body: Array("busy".utf8))))
      let retry = try #require(Self.network(h).retryAt)
      waits.append(retry.duration(since: sent))
      // Nothing goes out before the retry instant, however many events come.
      h.advance(to: retry.adding(seconds: -1))
      h.handle(.clockStepped)
      #expect(Self.lookups(h).count == round + 1)
      h.advance(to: retry)
      // MinInterval= has passed: the engine scans again before the lookup.
      if Self.scans(h) > round + 1 { h.handle(.wifiScanned([], problem: nil)) }
    }
    // MinInterval= 60 s doubled per failure: 120, 240, 480, 960, 1920, then capped at 3600.
    #expect(waits == [120, 240, 480, 960, 1920, 3600, 3600, 3600].map { Duration.seconds($0) })
    let n = try Self.network(h)
    #expect(n.counts.failed[.httpStatus] == 8 && n.lastProblem == "HTTP status 500")
    #expect(h.engine.resolve(at: h.now).tier == .none)
  }

  @Test func aNotFoundIsCachedAndCountedNotRetried() throws {
    var h = Self.harness()
    h.handle(.geolocateAnswered(.answered(status: 404, body: Array("{}".utf8))))
    h.advance(to: Self.t0.adding(seconds: 1800))
    h.handle(.clockStepped)
    #expect(Self.lookups(h).count == 1)
    let n = try Self.network(h)
    #expect(n.counts.failed[.notFound] == 1 && n.retryAt == nil)
    // Issue 43, item 10: the remembered 404 answers nothing, so it is no lookup "from
    // memory" (the counter climbed with every event after a 404).
    #expect(n.counts.cacheHits == 0)
  }

  @Test func aSkippedLookupIsNotCountedAsSent() throws {
    var h = Self.harness()
    h.handle(.geolocateAnswered(.skipped("the default route goes through wg0, a VPN: no IP lookup")))
    let n = try Self.network(h)
    #expect(n.counts.requests == 0 && n.counts.skipped == 1)
    #expect(n.lastProblem == "the default route goes through wg0, a VPN: no IP lookup")
    #expect(h.engine.resolve(at: h.now).tier == .none)
  }

  @Test func ipNeverBeatsTheManualLocation() throws {
    var h = Self.harness()
    _ = h.request(.setLocation(Coordinate(lat: 38.88, lon: -7.0)!, name: "Elvas", accuracy: nil))
    h.handle(.geolocateAnswered(.answered(status: 200, body: Self.oslo)))
    let r = h.engine.resolve(at: h.now)
    #expect(r.provenance == .manual && r.position?.name == "Elvas")
  }

  @Test func anAnswerFromBeforeAReloadIsIgnored() throws {
    var h = Self.harness()
    h.handle(.geolocateAnswered(.answered(status: 200, body: Self.oslo)))
    // A second answer with no lookup under way changes nothing.
    h.handle(.geolocateAnswered(.answered(status: 500, body: [])))
    #expect(try Self.network(h).counts.failed[.httpStatus] == nil)
  }

  /// Turned off by a reload while a lookup is under way: its answer is not used.
  @Test func anAnswerAfterTheSwitchWentOffIsDropped() throws {
    var h = Self.harness()
    #expect(Self.lookups(h).count == 1)
    h.handle(.configReloaded(.success(Self.config(enabled: false)), requestedBy: nil))
    h.handle(.geolocateAnswered(.answered(status: 200, body: Self.oslo)))
    #expect(h.engine.resolve(at: h.now).tier == .none)
  }
}
