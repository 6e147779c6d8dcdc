import LocCore
import Testing

/// Issue 43, item 5: labels that said something else than what was there.
@Suite struct HonestLabelTests {
  static let t0 = at("2026-12-07T14:50:00Z")

  /// A reduced Wi-Fi position reached GeoClue clients with Description `gnss`: the reduced
  /// grid's snapped position lost its provenance (Position's default origin is gnss).
  @Test func aSnappedPositionKeepsItsProvenance() {
    for origin in [PositionProvenance.wifi, .cell, .ip, .staticFile, .manual] {
      let p = Position(
        coordinate: Coordinate(lat: 59.9139, lon: 10.7522)!, accuracy: Meters(40), time: Self.t0,
        receivedAt: Self.t0, source: "https://example.net/v1/geolocate", origin: origin)
      #expect(ReducedGrid.snapped(p).origin == origin)
      #expect(ReducedGrid().snapped(p).origin == origin)
    }
  }

  /// The zone's reason said "at the manual location" for the static file's place.
  @Test func theZoneAtTheStaticFileSaysStaticLocation() {
    var h = EngineHarness(at: Self.t0)
    h.handle(
      .staticFileRead(path: "/etc/geolocation", contents: "38.8794\n-6.9707\n180\n100\n", problem: nil))
    let status = h.engine.status(at: h.now)
    #expect(status.position.provenance == .staticFile)
    #expect(status.timeZone.reason == "Europe/Madrid at the static location", "\(status.timeZone)")
    // The manual location still says manual.
    var m = EngineHarness(at: Self.t0)
    _ = m.request(.setLocation(Coordinate(lat: 38.8794, lon: -6.9707)!, name: nil, accuracy: nil))
    #expect(m.engine.status(at: m.now).timeZone.reason == "Europe/Madrid at the manual location")
  }
}
