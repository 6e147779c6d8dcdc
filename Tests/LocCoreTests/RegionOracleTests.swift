import LocCore
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// 100,000 random regions and 10,000 random fixes (random accuracies, ticks, and regions
/// added and removed on the way): `RegionMonitor` reports exactly what the brute force
/// reports, fix by fix, and answers every state the same.
///
/// Fixes come as walks and jumps, and as stays of a few fixes near one region's boundary
/// (within three margins of it, long enough to confirm a crossing): an index that missed a
/// region whose circle holds a fix would show as a missing entry there.
@Suite struct RegionOracleTests {
  /// Places where regions crowd: the poles, both sides of the antimeridian, null island, a
  /// city; each with a spread in metres.
  static let hotspots: [(Double, Double, Double)] = [
    (90, 0, 200_000), (-89.9995, 45, 100_000), (10, 179.9995, 100_000), (-35, -180, 100_000),
    (0, 0, 50_000), (59.91, 10.75, 20_000),
  ]

  struct Scenario {
    var rng: SplitMix64
    var serial = 0
    /// A stay near a boundary in progress: the spot, its accuracy, fixes left.
    var stay: (spot: Coordinate, accuracy: Double, left: Int)?

    mutating func uniform(_ lo: Double, _ hi: Double) -> Double { Double.random(in: lo..<hi, using: &rng) }
    mutating func logUniform(_ lo: Double, _ hi: Double) -> Double { exp(uniform(log(lo), log(hi))) }

    /// A point uniform on the sphere, or near a hotspot.
    mutating func place(hotspotShare: Double) -> Coordinate {
      if uniform(0, 1) < hotspotShare {
        let h = RegionOracleTests.hotspots[Int.random(in: 0..<RegionOracleTests.hotspots.count, using: &rng)]
        let centre = Coordinate(lat: h.0, lon: h.1)!
        // Uniform over the disc (the pole and the antimeridian inside it).
        let distance = h.2 * uniform(0, 1).squareRoot()
        return centre.destination(distance: Meters(distance), bearing: Degrees(uniform(0, 360)))
      }
      let lat = asin(uniform(-1, 1)) * 180 / .pi
      return Coordinate(lat: lat, lon: uniform(-180, 180))!
    }

    mutating func region() -> (RegionOwner, CircularRegion) {
      serial += 1
      let owner = RegionOwner(UInt32.random(in: 0..<20, using: &rng))
      // Radii log-uniform over the whole range, but mostly small, as apps use them.
      let radius = uniform(0, 1) < 0.99 ? logUniform(10, 2_000) : logUniform(10, 100_000)
      let dwell: Duration? = uniform(0, 1) < 0.3 ? .seconds(Int.random(in: 1...600, using: &rng)) : nil
      let region = try! CircularRegion(
        id: RegionID("r\(serial)"), centre: place(hotspotShare: 0.5), radius: Meters(radius),
        notifyOnEntry: uniform(0, 1) < 0.8, notifyOnExit: uniform(0, 1) < 0.8, dwell: dwell)
      return (owner, region)
    }

    /// The next fix and the seconds to the one after: a stay's next fix, a new stay near a
    /// random live region's boundary, or a walk or jump.
    mutating func next(after last: Coordinate, _ reference: BruteForceRegions) -> (Coordinate, Double, Double)
    {
      if stay == nil, uniform(0, 1) < 0.1,
        let region = reference.regions[Int.random(in: 0..<reference.regions.count, using: &rng)]?.region
      {
        let accuracy = logUniform(1, 50)
        let m = max(accuracy, 5)
        let offset = max(0, region.radius.value + uniform(-3, 3) * m)
        let spot = region.centre.destination(distance: Meters(offset), bearing: Degrees(uniform(0, 360)))
        stay = (spot, accuracy, Int.random(in: 3...8, using: &rng))
      }
      if let (spot, accuracy, left) = stay {
        stay = left > 1 ? (spot, accuracy, left - 1) : nil
        let jitter = spot.destination(distance: Meters(uniform(0, 2)), bearing: Degrees(uniform(0, 360)))
        return (jitter, accuracy * uniform(0.7, 1.3), uniform(2, 15))
      }
      let (c, accuracy) = fix(after: last)
      return (c, accuracy, logUniform(0.5, 120))
    }

    /// A fix: mostly a step from the last one (metres to tens of km), sometimes a jump.
    mutating func fix(after last: Coordinate) -> (Coordinate, Double) {
      let c: Coordinate
      if uniform(0, 1) < 0.8 {
        c = last.destination(distance: Meters(logUniform(0.5, 50_000)), bearing: Degrees(uniform(0, 360)))
      } else {
        c = place(hotspotShare: 0.8)
      }
      let roll = uniform(0, 1)
      let accuracy: Double
      if roll < 0.01 {
        accuracy = [0, .nan, -1, .infinity, 1e7][Int.random(in: 0..<5, using: &rng)]
      } else {
        accuracy = logUniform(1, 5_000)
      }
      return (c, accuracy)
    }
  }

  /// What the brute force reported, by kind.
  struct Tally {
    var determined = 0
    var entries = 0
    var exits = 0
    var dwells = 0

    mutating func count(_ output: RegionOutput) {
      switch output {
      case .transition(let t) where t.from == .unknown: determined += 1
      case .transition(let t) where t.to == .inside: entries += 1
      case .transition: exits += 1
      case .dwelled: dwells += 1
      default: break
      }
    }
  }

  @Test func matchesBruteForce() throws {
    var scenario = Scenario(rng: SplitMix64(seed: 12))
    var monitor = RegionMonitor()
    var reference = BruteForceRegions()
    var keys: [(RegionOwner, RegionID)] = []
    var now = Instant(secondsSinceEpoch: 1_780_000_000)
    for _ in 0..<100_000 {
      let (owner, region) = scenario.region()
      let out = monitor.handle(.register(owner, region), at: now)
      try #require(out == [.registered(owner, region.id)])
      reference.add(owner, region)
      keys.append((owner, region.id))
    }
    #expect(monitor.count == 100_000)

    var position = Coordinate(lat: 59.91, lon: 10.75)!
    var tally = Tally()
    var mismatches = 0
    var step = 1.0
    for k in 0..<10_000 {
      now = now.adding(seconds: step)
      let (c, accuracy, next) = scenario.next(after: position, reference)
      step = next
      position = c
      // The monitor answers in no particular order; the brute force sorts.
      let got = monitor.handle(.fix(c, accuracy: Meters(accuracy)), at: now).sorted(by: RegionOutput.inOrder)
      let want = reference.fix(c, accuracy: accuracy, at: now)
      if got != want {
        mismatches += 1
        if mismatches <= 3 { Issue.record("fix \(k): monitor \(got), brute force \(want)") }
      }
      for output in want { tally.count(output) }
      if k % 100 == 99 {
        // Churn: 50 regions go, 50 new ones come.
        for _ in 0..<50 {
          let i = Int.random(in: 0..<keys.count, using: &scenario.rng)
          guard reference.state(i) != nil else { continue }
          let (owner, id) = keys[i]
          #expect(monitor.handle(.unregister(owner, id), at: now) == [.unregistered(owner, id)])
          reference.remove(i)
          let (newOwner, region) = scenario.region()
          #expect(monitor.handle(.register(newOwner, region), at: now) == [.registered(newOwner, region.id)])
          reference.add(newOwner, region)
          keys.append((newOwner, region.id))
        }
      }
      if k % 7 == 0 {
        // A tick before the next fix.
        let t = now.adding(seconds: scenario.uniform(0, step))
        let want = reference.tick(at: t)
        #expect(monitor.handle(.tick, at: t).sorted(by: RegionOutput.inOrder) == want)
        for output in want { tally.count(output) }
      }
    }
    #expect(mismatches == 0)
    var stateMismatches = 0
    for i in keys.indices where monitor.state(of: keys[i].1, for: keys[i].0) != reference.state(i) {
      stateMismatches += 1
    }
    #expect(stateMismatches == 0)
    // Not expectations of the outcome (the brute force is that) but of the scenario: it
    // must make every kind of output often, or agreement would mean little.
    #expect(tally.determined > 50_000)
    #expect(tally.entries > 1_000)
    #expect(tally.exits > 1_000)
    #expect(tally.dwells > 100)
    #expect(monitor.counters.clockWentBack == 0)
    print("oracle: \(tally), \(monitor.counters)")
  }
}
