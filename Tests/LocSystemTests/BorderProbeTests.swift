import LocCore
import LocSystem
import Testing

/// Distance to the nearest zone border, probed on the real boundary data.
@Suite struct BorderProbeTests {
  let file = try! ZoneBoundaryFile.open()

  func distance(_ lat: Double, _ lon: Double, limit: Meters = 10_000) -> Meters? {
    BorderProbe.distance(from: Coordinate(lat: lat, lon: lon)!, limit: limit) { try? file.zoneName(at: $0) }
  }

  @Test func pointsNearTheSpainPortugalBorderKnowHowFarItIs() throws {
    // Badajoz lies about 6 km east of the Portuguese border (Caia river); Elvas about
    // 8 km west of it. The probe must agree with a bisection between the two towns.
    let badajoz = Coordinate(lat: 38.8794, lon: -6.9707)!
    let elvas = Coordinate(lat: 38.8810, lon: -7.1630)!
    #expect(try file.zoneName(at: badajoz) == "Europe/Madrid")
    #expect(try file.zoneName(at: elvas) == "Europe/Lisbon")
    let d = try #require(distance(38.8794, -6.9707))
    // The straight line Badajoz-Elvas crosses the border; the nearest border point can only be nearer.
    var low = 0.0
    var high = 1.0
    for _ in 0..<40 {
      let mid = (low + high) / 2
      let lon = badajoz.longitude.value + (elvas.longitude.value - badajoz.longitude.value) * mid
      let lat = badajoz.latitude.value + (elvas.latitude.value - badajoz.latitude.value) * mid
      if try file.zoneName(at: Coordinate(lat: lat, lon: lon)!) == "Europe/Madrid" {
        low = mid
      } else {
        high = mid
      }
    }
    let alongLine = badajoz.distance(to: elvas).value * low
    #expect(d.value <= alongLine + 5)
    #expect(d.value > 1000 && d.value < 10_000, "\(d)")
  }

  @Test func farFromAnyBorderThereIsNoAnswer() {
    #expect(distance(50.0, 10.0, limit: 5000) == nil)  // central Germany, > 5 km from borders
    #expect(distance(-40.0, -105.0, limit: 5000) == nil)  // South Pacific, mid-sector of Etc/GMT+7
  }

  @Test func referenceBorderPointsAreFoundNearTheirBorder() throws {
    // Tests/Fixtures/tz/points.csv: border points come in pairs, 100 m either side of a border
    // along the pair's bearing (so the perpendicular distance is at most 100 m).
    let csv = try String(
      contentsOfFile: #filePath.replacingOccurrences(
        of: "LocSystemTests/BorderProbeTests.swift", with: "Fixtures/tz/points.csv"),
      encoding: .utf8)
    let border = csv.split(separator: "\n").filter { $0.hasSuffix(",border") }.prefix(200)
    var found = 0
    for row in border {
      let f = row.split(separator: ",")
      let p = Coordinate(lat: Double(f[0])!, lon: Double(f[1])!)!
      guard let d = BorderProbe.distance(from: p, limit: 1000, zoneAt: { try? file.zoneName(at: $0) }) else {
        continue
      }
      #expect(d.value <= 1000)
      if d.value <= 110 { found += 1 }
      // What the probe reports is real: just past it, on some bearing, the zone differs.
      let home = try file.zoneName(at: p)
      let beyond = (0..<32).contains { k in
        let q = p.destination(distance: Meters(d.value + 2), bearing: Degrees(Double(k) * 360 / 32))
        return (try? file.zoneName(at: q)) != home
      }
      #expect(beyond, "\(row): \(d)")
    }
    print("border points with a border found within 110 m: \(found)/\(border.count)")
    #expect(found * 100 >= border.count * 90)
  }
}
