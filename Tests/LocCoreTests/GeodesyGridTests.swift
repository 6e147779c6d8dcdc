import Foundation
import LocCore
import Testing

/// The geoid and declination grids (data/geodesy, PROVENANCE.md there) and their reading.
@Suite struct GeodesyGridTests {
  /// Reference values from python3-gps 3.22 (Debian 12), gps/clienthelpers.py, which holds the
  /// same two grids as gpsd 3.22 and reads them the same way: `wgs84_separation(lat, lon)` and
  /// `mag_var(lat, lon)`, printed with repr() (GpsdSideBySideTests holds the daemon's TPVs
  /// against gpsd itself).
  static let reference: [(lat: Double, lon: Double, separation: Double, declination: Double)] = [
    (-37.784788, 175.3148966, 23.73995389854306, 20.541996587236675),
    (59.9501, 11.0107, 38.535776000320006, 3.6740641099759994),
    (-45.8776, 170.5001, 5.123650820703994, 25.746738224479998),
    (55.6866, 37.6215, 13.602616287920002, 11.346123981639998),
    (90, 180, 14.9, -178.25),
    (-90, -180, -30.15, 149.2),
    (0, 0, 17.23, -4.84),
    (47.5, -122.25, -19.1975, 15.3405),
  ]

  @Test func readsAsGpsdReadsIt() throws {
    for r in Self.reference {
      let separation = try #require(GeodesyGrid.geoid.value(latitude: r.lat, longitude: r.lon))
      let declination = try #require(GeodesyGrid.declination.value(latitude: r.lat, longitude: r.lon))
      #expect(abs(separation - r.separation) < 1e-9, "\(r)")
      #expect(abs(declination - r.declination) < 1e-9, "\(r)")
    }
  }

  @Test func offTheGlobeIsNothing() {
    #expect(GeodesyGrid.geoid.value(latitude: 90.5, longitude: 0) == nil)
    #expect(GeodesyGrid.geoid.value(latitude: 0, longitude: -180.1) == nil)
    #expect(GeodesyGrid.geoid.value(latitude: .nan, longitude: 0) == nil)
  }

  /// The code's grids are the text files' (scripts/geodesy-grids.sh wrote one from the other).
  @Test func theCodeHoldsTheDataFiles() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    for (file, grid) in [
      ("geoid-egm2008-5deg.txt", GeodesyGrid.geoid),
      ("declination-wmm2015-5deg.txt", GeodesyGrid.declination),
    ] {
      let text = try String(contentsOf: root.appendingPathComponent("data/geodesy/" + file), encoding: .utf8)
      let rows = text.split(separator: "\n")
      #expect(rows.count == 37)
      for (i, row) in rows.enumerated() {
        let words = row.split(separator: " ")
        #expect(Int(words[0]) == -90 + 5 * i, "\(file) row \(i)")
        for (j, word) in words.dropFirst().enumerated() {
          let lat = Double(-90 + 5 * i)
          let lon = Double(-180 + 5 * j)
          let v = try #require(grid.value(latitude: lat, longitude: lon))
          #expect(abs(v - Double(Int(word)!) / 100) < 1e-9, "\(file) \(lat) \(lon)")
        }
      }
    }
  }

  /// Vincenty's inverse on the classic geodetic example (Geoscience Australia's worked example
  /// of Vincenty's formulae, on GRS80 whose flattening differs from WGS84's by 1e-10):
  /// Flinders Peak (-37°57'03.72030", 144°25'29.52440") to Buninyong (-37°39'10.15610",
  /// 143°55'35.38390") is 54,972.271 m. The sphere's haversine is off by about 0.2 % there.
  @Test func ellipsoidDistance() throws {
    func degrees(_ d: Double, _ m: Double, _ s: Double) -> Double { -(d + m / 60 + s / 3600) }
    let flinders = Coordinate(
      latitude: Degrees(degrees(37, 57, 3.72030)), longitude: Degrees(-degrees(144, 25, 29.52440)))!
    let buninyong = Coordinate(
      latitude: Degrees(degrees(37, 39, 10.15610)), longitude: Degrees(-degrees(143, 55, 35.38390)))!
    let d = try #require(flinders.ellipsoidDistance(to: buninyong)).value
    #expect(abs(d - 54_972.271) < 0.01, "\(d)")
    #expect(flinders.ellipsoidDistance(to: flinders)?.value == 0)
  }
}
