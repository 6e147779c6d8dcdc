import LocCore
import Testing

/// The modems' serving cells in the engine's network lookups: sent only while `[Network]
/// Enable=yes`, with the Wi-Fi networks or alone, a new cell a new cache key, the answer of a
/// cells-only lookup a `cell` position. The service is the harness, as in NetworkEngineTests.
@Suite struct NetworkCellEngineTests {
  static let t0 = at("2026-06-21T10:00:00Z")
  static let answer = Array(#"{"location": {"lat": 59.9139, "lng": 10.7522}, "accuracy": 2000}"#.utf8)
  static let cellA = CellTower(
    radio: .lte, mobileCountryCode: 242, mobileNetworkCode: 1, areaCode: 161, cellId: 10)
  static let cellB = CellTower(
    radio: .lte, mobileCountryCode: 242, mobileNetworkCode: 1, areaCode: 161, cellId: 11)
  static let modem = SourceID(0)

  static func config(enabled: Bool = true) -> DaemonConfig {
    var c = NetworkEngineTests.config(enabled: enabled, ip: false)
    c.network.minInterval = .seconds(60)
    return c
  }

  static func lookups(_ h: EngineHarness) -> [GeolocateQuery] { NetworkEngineTests.lookups(h).map(\.1) }

  @Test func cellsAreNeverAskedWithWhileTheSwitchIsOff() throws {
    var h = EngineHarness(config: Self.config(enabled: false), at: Self.t0)
    h.handle(.cellsSeen([Self.cellA], source: Self.modem))
    h.handle(.wifiScanned([], problem: "no NetworkManager"))
    h.advance(to: Self.t0.adding(seconds: 3600))
    _ = h.request(.refresh)
    #expect(Self.lookups(h).isEmpty)
    // Turned on by a reload: the cell seen while off was not kept; only one seen since goes.
    h.handle(.configReloaded(.success(Self.config()), requestedBy: nil))
    h.handle(.wifiScanned([], problem: nil))
    #expect(Self.lookups(h).isEmpty)
    h.handle(.cellsSeen([Self.cellB], source: Self.modem))
    #expect(Self.lookups(h).last?.cellTowers == [Self.cellB])
  }

  @Test func aLookupWithCellsOnlyGivesACellPosition() throws {
    var h = EngineHarness(config: Self.config(), at: Self.t0)
    h.handle(.cellsSeen([Self.cellA], source: Self.modem))
    h.handle(.wifiScanned([], problem: "no NetworkManager"))
    let sent = try #require(Self.lookups(h).last)
    #expect(sent.accessPoints.isEmpty && sent.cellTowers == [Self.cellA] && !sent.considerIp)
    h.handle(.geolocateAnswered(.answered(status: 200, body: Self.answer)))
    let r = h.engine.resolve(at: h.now)
    #expect(r.provenance == .cell && r.tier == .fix && r.position?.accuracy == Meters(2000))
  }

  @Test func wifiAndCellsGoTogetherAndANewServingCellIsANewLookup() throws {
    var h = EngineHarness(config: Self.config(), at: Self.t0)
    let home = WifiAccessPoint(bssid: [0, 1, 2, 3, 4, 5], ssid: Array("home".utf8), signal: -50)
    h.handle(.cellsSeen([Self.cellA], source: Self.modem))
    h.handle(.wifiScanned([home], problem: nil))
    let first = try #require(Self.lookups(h).last)
    #expect(first.accessPoints == [home] && first.cellTowers == [Self.cellA] && first.origin == .wifi)
    h.handle(.geolocateAnswered(.answered(status: 200, body: Self.answer)))
    // Past MaxAge= (300 s): the same Wi-Fi and the same cell are answered from memory.
    h.advance(to: Self.t0.adding(seconds: 400))
    _ = h.request(.refresh)
    h.handle(.wifiScanned([home], problem: nil))
    #expect(Self.lookups(h).count == 1)
    // The modem moved to another cell: a new set of networks, sent.
    h.advance(to: Self.t0.adding(seconds: 800))
    h.handle(.cellsSeen([Self.cellB], source: Self.modem))
    _ = h.request(.refresh)
    h.handle(.wifiScanned([home], problem: nil))
    #expect(Self.lookups(h).count == 2 && Self.lookups(h).last?.cellTowers == [Self.cellB])
    // The modem unregistered (no cell): what is asked is the Wi-Fi alone.
    h.handle(.cellsSeen([], source: Self.modem))
    h.handle(.geolocateAnswered(.answered(status: 200, body: Self.answer)))
    h.advance(to: Self.t0.adding(seconds: 1300))
    _ = h.request(.refresh)
    h.handle(.wifiScanned([home], problem: nil))
    #expect(Self.lookups(h).count == 3 && Self.lookups(h).last?.cellTowers == [])
    #expect(try #require(h.engine.status(at: h.now).network).counts.requests == Self.lookups(h).count)
  }
}
