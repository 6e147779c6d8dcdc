import Testing

@testable import LocCore

/// The index's parts against plain references: the open-addressing tables against a
/// Dictionary under random insertions and removals (backward-shift deletion is easy to get
/// subtly wrong), and the cell geometry against direct computation.
@Suite struct RegionGridTests {
  @Test func cellTableMatchesADictionary() {
    var rng = SplitMix64(seed: 31)
    var table = CellTable(tagged: true)
    var reference: [UInt64: (Int32, UInt16)] = [:]
    // Keys from a small range, so runs collide and wrap around.
    func key() -> UInt64 { 1 << 63 | UInt64.random(in: 0..<5000, using: &rng) }
    for step in 0..<200_000 {
      let k = key()
      if Bool.random(using: &rng) || reference[k] == nil {
        let head = Int32.random(in: 0..<1_000_000, using: &rng)
        let tag = UInt16(1) << UInt16.random(in: 0..<16, using: &rng)
        table.setHead(k, head, addingTag: tag)
        reference[k] = (head, (reference[k]?.1 ?? 0) | tag)
      } else {
        table.setHead(k, -1)
        reference[k] = nil
      }
      if step % 10_000 == 0 || step == 199_999 {
        #expect(table.count == reference.count)
        for probe in 0..<UInt64(5000) {
          let k = 1 << 63 | probe
          #expect(table.head(k) == (reference[k]?.0 ?? -1))
          #expect(table.tag(k) == (reference[k]?.1 ?? 0))
        }
      }
    }
    // Emptied, it shrinks back.
    for k in reference.keys { table.setHead(k, -1) }
    #expect(table.count == 0)
    #expect(table.bytes < 1000)
  }

  @Test func idTableMatchesADictionary() {
    var rng = SplitMix64(seed: 32)
    var table = RegionIDTable()
    // Slots 0..<4000 with deliberately colliding hashes (only 512 distinct values).
    let hashes = (0..<4000).map { _ in UInt32.random(in: 0..<512, using: &rng) }
    var present = Set<Int32>()
    for _ in 0..<30_000 {
      let s = Int32.random(in: 0..<4000, using: &rng)
      if present.contains(s) {
        present.remove(s)
        table.remove(s, hash: hashes[Int(s)], count: present.count) { hashes[Int($0)] }
      } else {
        present.insert(s)
        table.insert(s, hash: hashes[Int(s)], count: present.count) { hashes[Int($0)] }
      }
    }
    for s in Int32(0)..<4000 {
      #expect(table.find(hash: hashes[Int(s)]) { $0 == s } == (present.contains(s) ? s : -1))
    }
  }

  @Test func levels() {
    // Edge at least twice the radius: 40 m cells hold up to 20 m, 80 m cells up to 40 m.
    #expect(RegionGrid.level(radius: 10) == 0)
    #expect(RegionGrid.level(radius: 20) == 0)
    #expect(RegionGrid.level(radius: 20.01) == 1)
    #expect(RegionGrid.level(radius: 100_000) == 13)
    #expect(RegionGrid.edge(13) / 2 >= 100_000)
    #expect(RegionGrid.edge(12) / 2 < 100_000)
  }

  @Test func everyPointWithinReachIsInAProbedCell() {
    var rng = SplitMix64(seed: 33)
    for _ in 0..<20_000 {
      let p = Coordinate(
        lat: Double.random(in: -90...90, using: &rng), lon: Double.random(in: -180...180, using: &rng))!
      let level = Int.random(in: 0..<RegionGrid.levels, using: &rng)
      let reach = RegionGrid.edge(level) / 2
      let q = p.destination(
        distance: Meters(Double.random(in: 0..<reach, using: &rng)),
        bearing: Degrees(Double.random(in: 0..<360, using: &rng)))
      var keys: [UInt64] = []
      RegionGrid.forEachCell(level: level, around: EarthPoint(p), reach: reach) { keys.append($0) }
      #expect(keys.contains(RegionGrid.key(level, EarthPoint(q))))
      #expect(keys.count <= 27)
      // The distance to q's cell is a lower bound of the distance to q.
      let bound = RegionGrid.chordDistance(from: EarthPoint(p), toCell: RegionGrid.key(level, EarthPoint(q)))
      #expect(bound <= p.distance(to: q).value + 1e-6)
    }
  }

  @Test func earthPointsRoundTrip() {
    for (lat, lon) in [(0.0, 0.0), (90, 0), (-90, 0), (45, 180), (-45, -180), (12.5, -77.25)] {
      let c = Coordinate(lat: lat, lon: lon)!
      let back = EarthPoint(c).coordinate!
      #expect(c.distance(to: back).value < 1e-6)
      // On the sphere of the mean radius.
      let p = EarthPoint(c)
      #expect(
        abs(p.chordSquared(EarthPoint(x: 0, y: 0, z: 0)).squareRoot() - Coordinate.meanEarthRadius.value)
          < 1e-6)
    }
  }
}
