import LocCore
import Testing

/// Following the Wi-Fi scene while a client follows the position (issue 43, item 1; decision
/// 0066): the engine reads what the devices publish (`wifiPublished`), looks up again when
/// the scene moved (`WifiScene.moveThreshold`), sends nothing while it is the same, and scans
/// itself only when nothing was published for `RescanAfter=`. The harness's watcher
/// subscribes to locations, so it holds acquisition open as a GeoClue client does.
@Suite struct NetworkFollowEngineTests {
  static let t0 = at("2026-06-21T10:00:00Z")
  static let answer = Array(#"{"location": {"lat": 59.9139, "lng": 10.7522}, "accuracy": 40}"#.utf8)
  static let elsewhere = Array(#"{"location": {"lat": 60.3913, "lng": 5.3221}, "accuracy": 40}"#.utf8)

  static func config() -> DaemonConfig {
    var c = DaemonConfig()
    c.network.enabled = true
    c.network.minInterval = .seconds(60)
    c.network.freshFor = .seconds(600)
    c.network.rescanAfter = .seconds(120)
    c.acquisition.mode = .onDemand
    return c
  }

  /// Access point `n` of a scene, mappable, at `signal` dBm.
  static func ap(_ n: UInt8, _ signal: Int = -60) -> WifiAccessPoint {
    WifiAccessPoint(bssid: [0, 0x11, 0x22, 0x33, 0x44, n], ssid: Array("net\(n)".utf8), signal: signal)
  }

  static let home = [ap(1), ap(2), ap(3)]
  static let office = [ap(11), ap(12), ap(13)]

  static func scans(_ h: EngineHarness) -> Int {
    h.log.filter { if case .scanWifi = $0.effect { true } else { false } }.count
  }

  static func lookups(_ h: EngineHarness) -> [GeolocateQuery] {
    h.log.compactMap { if case .geolocate(let q, _, _) = $0.effect { return q } else { return nil } }
  }

  static func follows(_ h: EngineHarness) -> [Bool] {
    h.log.compactMap { if case .followWifi(let on) = $0.effect { return on } else { return nil } }
  }

  static func counts(_ h: EngineHarness) throws -> NetworkReport.Counts {
    try #require(h.engine.status(at: h.now).network).counts
  }

  /// A harness at home: the first scan answered and looked up.
  static func atHome() -> EngineHarness {
    var h = EngineHarness(config: config(), at: t0)
    h.handle(.wifiScanned(home, problem: nil))
    h.handle(.geolocateAnswered(.answered(status: 200, body: answer)))
    return h
  }

  @Test func aMovedSceneIsLookedUpAtOnceNotAtMaxAge() throws {
    var h = Self.atHome()
    #expect(Self.follows(h) == [true])
    #expect(Self.lookups(h).count == 1)
    // 100 s later the devices publish other networks: the laptop moved. MaxAge= (600 s) is
    // far off; the lookup goes now, with the new networks.
    h.advance(to: Self.t0.adding(seconds: 100))
    h.handle(.wifiPublished(Self.office))
    let sent = Self.lookups(h)
    #expect(sent.count == 2)
    #expect(Set(sent.last?.accessPoints.map(\.bssid) ?? []) == Set(Self.office.map(\.bssid)))
    h.handle(.geolocateAnswered(.answered(status: 200, body: Self.elsewhere)))
    #expect(h.engine.resolve(at: h.now).position?.coordinate.latitude.value == 60.3913)
    let c = try Self.counts(h)
    #expect(c.published == 1 && c.moves == 1)
  }

  @Test func theSameSceneWithWanderingSignalsOrOneMoreNetworkSendsNothing() throws {
    var h = Self.atHome()
    for (i, seconds) in [30, 60, 90, 120, 150].enumerated() {
      h.advance(to: Self.t0.adding(seconds: Double(seconds)))
      // Signals 5 dBm up and down; from the third on a fourth network appears (a change of
      // 1/4, below a third).
      var scene = Self.home.map { Self.ap($0.bssid[5], i % 2 == 0 ? -55 : -65) }
      if i >= 2 { scene.append(Self.ap(4)) }
      h.handle(.wifiPublished(scene))
    }
    #expect(Self.lookups(h).count == 1)
    let c = try Self.counts(h)
    #expect(c.published == 5 && c.moves == 0 && c.requests == 1)
    // Published all along: no scan of locd's own after the first.
    #expect(Self.scans(h) == 1)
  }

  @Test func aSceneSeenBeforeIsAnsweredFromMemory() throws {
    var h = Self.atHome()
    h.advance(to: Self.t0.adding(seconds: 100))
    h.handle(.wifiPublished(Self.office))
    h.handle(.geolocateAnswered(.answered(status: 200, body: Self.elsewhere)))
    // Back home within CacheFor= (1 h), before a quiet scan (RescanAfter= after 100 s): the
    // home answer from memory, nothing sent.
    h.advance(to: Self.t0.adding(seconds: 200))
    h.handle(.wifiPublished(Self.home))
    #expect(Self.lookups(h).count == 2)
    #expect(h.engine.resolve(at: h.now).position?.coordinate.latitude.value == 59.9139)
    #expect(try Self.counts(h).cacheHits == 1)
  }

  @Test func locdScansItselfOnlyWhenNothingWasPublishedForRescanAfter() throws {
    var h = Self.atHome()
    #expect(Self.scans(h) == 1)
    // Nothing published: a scan at 120 s after the last scene (the first scan's), and its
    // answer (the same networks) sends nothing.
    h.advance(to: Self.t0.adding(seconds: 119))
    #expect(Self.scans(h) == 1)
    h.advance(to: Self.t0.adding(seconds: 121))
    #expect(Self.scans(h) == 2)
    h.handle(.wifiScanned(Self.home, problem: nil))
    #expect(Self.lookups(h).count == 1)
    // A scene published every 100 s from then on: no scan of locd's own.
    for k in 1...5 {
      h.advance(to: Self.t0.adding(seconds: 121 + Double(k) * 100))
      h.handle(.wifiPublished(Self.home))
    }
    #expect(Self.scans(h) == 2)
    // A quiet scan that finds the laptop elsewhere is a move like a published one.
    h.advance(to: h.now.adding(seconds: 121))
    #expect(Self.scans(h) == 3)
    h.handle(.wifiScanned(Self.office, problem: nil))
    #expect(Self.lookups(h).count == 2)
  }

  @Test func nothingIsFollowedWithoutASubscriberNorWithTheSwitchOff() throws {
    var h = EngineHarness(
      config: Self.config(), at: Self.t0, watching: Set(EventKind.allCases).subtracting([.location]))
    h.handle(.wifiScanned(Self.home, problem: nil))
    h.handle(.geolocateAnswered(.answered(status: 200, body: Self.answer)))
    #expect(Self.follows(h).isEmpty)
    // A scene published anyway (a follow being stopped) is not kept and sends nothing.
    h.handle(.wifiPublished(Self.office))
    let published = try Self.counts(h).published
    #expect(Self.lookups(h).count == 1 && published == 0)
    var off = Self.config()
    off.network.enabled = false
    let h2 = EngineHarness(config: off, at: Self.t0)
    #expect(Self.follows(h2).isEmpty)
  }

  @Test func theFollowStopsWhenTheLastSubscriberLeaves() throws {
    var h = Self.atHome()
    _ = h.request(.unsubscribe([.location]))
    #expect(Self.follows(h) == [true, false])
  }

  @Test func sceneChangeIsTheShareOfNetworksNotInBoth() {
    let a = WifiScene(Self.home)
    #expect(a.change(from: a) == 0)
    #expect(WifiScene(Self.office).change(from: a) == 1)
    #expect(WifiScene(Self.home + [Self.ap(4)]).change(from: a) == 0.25)
    #expect(!WifiScene(Self.home + [Self.ap(4)]).moved(from: a))
    // One of three gone: 1/3, a move.
    #expect(WifiScene(Array(Self.home.prefix(2))).moved(from: a))
    // A network never sent (opted out) is no part of the scene.
    let optOut = WifiAccessPoint(bssid: [0, 1, 2, 3, 4, 9], ssid: Array("x_nomap".utf8), signal: -40)
    #expect(WifiScene(Self.home + [optOut]) == a)
  }
}
