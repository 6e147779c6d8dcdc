import LocCore
import Testing

/// Issue 43, item 4: "To fix" said "connect a GPS receiver … or run 'locctl set-location'"
/// whatever the machine had: never the network switch, IPLookup or the static file, even
/// when the geolocation service failed, and "connect a GPS receiver" while one was connected
/// and its fixes were dropped. The remedy now follows what the machine has.
@Suite struct FallbackAdviceTests {
  static let t0 = at("2026-12-07T14:50:00Z")

  static func remedy(_ h: EngineHarness) -> String { h.engine.resolve(at: h.now).remedy ?? "" }

  @Test func withTheSwitchOffTheRemedyNamesTheSwitchAndTheStaticFile() {
    let h = EngineHarness(at: Self.t0)
    #expect(h.engine.resolve(at: h.now).tier == .none)
    let r = Self.remedy(h)
    #expect(r.contains("[Network] Enable=yes"), "\(r)")
    #expect(r.contains("write /etc/geolocation"), "\(r)")
    #expect(r.contains("locctl set-location"), "\(r)")
    // The harness's source is connected: a receiver is there.
    #expect(!r.contains("connect a GPS receiver"), "\(r)")
  }

  @Test func withNoWifiToLookUpAndIPLookupsOffTheRemedyNamesIPLookup() {
    var c = DaemonConfig()
    c.network.enabled = true
    c.network.ipLookup = false
    var h = EngineHarness(config: c, at: Self.t0)
    h.handle(.wifiScanned([], problem: "neither NetworkManager nor wpa_supplicant is on the bus"))
    let r = Self.remedy(h)
    #expect(r.contains("IPLookup=yes") && r.contains("neither NetworkManager nor wpa_supplicant"), "\(r)")
    #expect(
      h.engine.status(at: h.now).network?.scanProblem
        == "neither NetworkManager nor wpa_supplicant is on the bus")
  }

  /// Decision 0068: with the one switch on and IPLookup= left alone, no Wi-Fi to look up is
  /// not a dead end: the engine asks an IP-only lookup (the last network tier) at once.
  @Test func withNoWifiToLookUpTheOneSwitchMakesAnIPLookup() {
    var c = DaemonConfig()
    c.network.enabled = true
    var h = EngineHarness(config: c, at: Self.t0)
    let effects = h.handle(
      .wifiScanned([], problem: "neither NetworkManager nor wpa_supplicant is on the bus"))
    let asked = effects.compactMap { effect -> GeolocateQuery? in
      if case .geolocate(let q, _, _) = effect { return q }
      return nil
    }
    #expect(asked == [.ipOnly], "\(effects)")
    #expect(!Self.remedy(h).contains("IPLookup=yes"), "\(Self.remedy(h))")
  }

  @Test func whenTheServiceFailsTheRemedyNamesWhatIsLeft() {
    var c = DaemonConfig()
    c.network.enabled = true
    c.network.ipLookup = true
    var h = EngineHarness(config: c, at: Self.t0)
    h.handle(.wifiScanned([], problem: nil))
    h.handle(.geolocateAnswered(.answered(status: 500, body: Array("busy".utf8))))
    let r = Self.remedy(h)
    #expect(r.contains("the geolocation service gave no position") && r.contains("/etc/geolocation"), "\(r)")
  }

  @Test func aConnectedReceiverWhoseFixesAreDroppedIsNotToldToConnectOne() {
    var h = EngineHarness(at: Self.t0)
    h.handle(
      .sourceUpdated(
        SourceSnapshot(id: h.source, uri: "serial:/dev/pts/3", state: .connected), restarted: true))
    // What the 2014 recording in a pty became before (item 3): every fix dated 7.7 years
    // ahead, so every one dropped while the receiver's port is open and delivering.
    for k in 0..<5 {
      let t = at("2034-08-20T10:20:30Z").adding(seconds: Double(k))
      h.handle(
        .fixDecoded(
          Fix(
            time: t, coordinate: Coordinate(lat: 38.88, lon: -6.97)!, mode: .threeD, quality: .gps,
            horizontalAccuracy: Meters(5), satellitesUsed: 9), source: h.source))
    }
    let resolved = h.engine.resolve(at: h.now)
    let r = Self.remedy(h)
    #expect(resolved.tier == .none)
    #expect(r.contains("the receiver is connected but its fixes are dropped"), "\(r) \(resolved)")
    #expect(!r.contains("connect a GPS receiver"), "\(r)")
  }
}
