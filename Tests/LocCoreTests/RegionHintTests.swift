import LocCore
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// When region monitoring next needs a fix: from the nearest boundary and a top speed,
/// between a floor and a ceiling (defaults: 40 m/s, 30 s, 15 min).
@Suite struct RegionHintTests {
  static let here = Coordinate(lat: 52.52, lon: 13.405)!
  static let t0 = Instant(secondsSinceEpoch: 1_780_000_000)
  let owner = RegionOwner(3)
  let policy = FixHintPolicy()

  /// A region whose nearest boundary point is `gap` metres north of `here` (outside).
  func fence(_ id: String, gap: Double, radius: Double = 500) throws -> CircularRegion {
    try CircularRegion(
      id: RegionID(id), centre: Self.here.destination(distance: Meters(gap + radius), bearing: 0),
      radius: Meters(radius))
  }

  /// The parts of a `.boundary` reason, nil for any other reason.
  func boundary(_ reason: FixHint.Reason) -> (key: RegionKey?, distance: Meters, speed: MetersPerSecond)? {
    if case .boundary(let key, let distance, let speed) = reason { return (key, distance, speed) }
    return nil
  }

  func monitor(_ regions: [CircularRegion]) -> RegionMonitor {
    var m = RegionMonitor()
    for r in regions { _ = m.handle(.register(owner, r), at: Self.t0) }
    return m
  }

  @Test func nothingToMonitorAsksNothing() {
    #expect(RegionMonitor().acquisitionHint(at: Self.t0, policy: policy) == nil)
  }

  @Test func noPositionYetMeansNow() throws {
    let m = monitor([try fence("f", gap: 1000)])
    #expect(m.acquisitionHint(at: Self.t0, policy: policy) == FixHint(due: Self.t0, reason: .noPosition))
  }

  /// The issue's example: a car 20 km from the nearest fence does not keep the GPS on.
  @Test func aCarTwentyKilometresFromTheNearestFence() throws {
    var m = monitor([try fence("depot", gap: 20_000), try fence("far", gap: 30_000)])
    _ = m.handle(.fix(Self.here, accuracy: 10), at: Self.t0)
    let hint = try #require(m.acquisitionHint(at: Self.t0, policy: policy))
    // (20,000 m - 10 m of accuracy) / 40 m/s = 499.75 s.
    #expect(abs(hint.due.seconds(since: Self.t0) - 499.75) < 0.5)
    let (key, distance, speed) = try #require(boundary(hint.reason))
    #expect(key == RegionKey(owner, try RegionID("depot")))
    #expect(abs(distance.value - 20_000) < 1)
    #expect(speed == 40)
    #expect(hint.bound == nil)
    #expect(hint.because == "region boundary 20.0 km away at 40 m/s (region \"depot\")")
  }

  @Test func nothingWithinReachWaitsForTheRefresh() throws {
    var m = monitor([try fence("far", gap: 50_000)])
    _ = m.handle(.fix(Self.here, accuracy: 10), at: Self.t0)
    // 15 min at 40 m/s is 36 km: nothing nearer, so the ceiling.
    #expect(
      m.acquisitionHint(at: Self.t0, policy: policy)
        == FixHint(due: Self.t0.adding(seconds: 900), reason: .noBoundaryWithin(36_000)))
  }

  @Test func aNearBoundaryIsHeldToTheFloor() throws {
    var m = monitor([try fence("near", gap: 500)])
    _ = m.handle(.fix(Self.here, accuracy: 10), at: Self.t0)
    let hint = try #require(m.acquisitionHint(at: Self.t0, policy: policy))
    // 490 m at 40 m/s is 12 s: never sooner than 30 s after the last fix.
    #expect(hint.due == Self.t0.adding(seconds: 30))
    #expect(hint.bound == .floor)
    #expect(hint.because.hasSuffix(", not sooner than the floor"))
    // Asked later than that, the answer is now.
    #expect(
      m.acquisitionHint(at: Self.t0.adding(seconds: 100), policy: policy)?.due == Self.t0.adding(seconds: 100)
    )
  }

  @Test func insideTheWayOutCounts() throws {
    let home = try CircularRegion(id: RegionID("home"), centre: Self.here, radius: 5000)
    var m = monitor([home])
    _ = m.handle(.fix(Self.here, accuracy: 10), at: Self.t0)
    let hint = try #require(m.acquisitionHint(at: Self.t0, policy: policy))
    // 5 km to the edge: (5000 - 10) / 40 = 124.75 s.
    #expect(abs(hint.due.seconds(since: Self.t0) - 124.75) < 0.5)
  }

  @Test func undeterminedRegionsWantTheNextFixSoon() throws {
    var m = monitor([try fence("line", gap: 0)])
    // 5 m off the boundary with accuracy 10 m (margin 30 m): the state stays unknown.
    _ = m.handle(.fix(Self.here.destination(distance: 5, bearing: 180), accuracy: 10), at: Self.t0)
    // As soon as allowed: the floor after the last fix.
    #expect(
      m.acquisitionHint(at: Self.t0, policy: policy)
        == FixHint(due: Self.t0.adding(seconds: 30), reason: .undetermined(regions: 1), bound: .floor))
  }

  @Test func aCrossingBeingConfirmed() throws {
    let home = try CircularRegion(id: RegionID("home"), centre: Self.here, radius: 200)
    var m = monitor([home])
    _ = m.handle(.fix(Self.here, accuracy: 5), at: Self.t0)
    let out = Self.here.destination(distance: 300, bearing: 90)
    _ = m.handle(.fix(out, accuracy: 5), at: Self.t0.adding(seconds: 60))
    let hint = try #require(m.acquisitionHint(at: Self.t0.adding(seconds: 60), policy: policy))
    // Confirmation due 20 s after the first fix outside; the floor makes it 30 s.
    #expect(hint.reason == .confirming(RegionKey(owner, home.id), since: Self.t0.adding(seconds: 60)))
    #expect(hint.due == Self.t0.adding(seconds: 90))
    #expect(hint.bound == .floor)
  }

  /// The nearest boundary from the index equals the brute force's (every region's
  /// |distance - radius| from the last fix, unknown regions left out) on random layouts.
  @Test func nearestBoundaryMatchesBruteForce() throws {
    var rng = SplitMix64(seed: 21)
    var regions: [CircularRegion] = []
    for k in 0..<1000 {
      let centre = Self.here.destination(
        distance: Meters(Double.random(in: 0..<80_000, using: &rng)),
        bearing: Degrees(Double.random(in: 0..<360, using: &rng)))
      let radius = exp(Double.random(in: log(10.0)..<log(2_000.0), using: &rng))
      regions.append(try CircularRegion(id: RegionID("r\(k)"), centre: centre, radius: Meters(radius)))
    }
    var m = monitor(regions)
    var now = Self.t0
    var compared = 0
    for _ in 0..<200 {
      now = now.adding(seconds: 60)
      let p = Self.here.destination(
        distance: Meters(Double.random(in: 0..<100_000, using: &rng)),
        bearing: Degrees(Double.random(in: 0..<360, using: &rng)))
      _ = m.handle(.fix(p, accuracy: 5), at: now)
      // Only distances beyond the floor's reach (30 s × 40 m/s + 5 m) are searched to the end.
      var want: Double?
      for r in regions where m.state(of: r.id, for: owner) != .unknown {
        let gap = abs(p.distance(to: r.centre).value - r.radius.value)
        if gap < 36_000, want.map({ gap < $0 }) ?? true { want = gap }
      }
      let hint = try #require(m.acquisitionHint(at: now, policy: policy))
      switch hint.reason {
      case .boundary(_, let distance, _):
        let truth = try #require(want)
        if truth > 1205 {
          #expect(abs(distance.value - truth) < 1e-6)
          compared += 1
        } else {
          #expect(distance.value <= 1205)
        }
      case .noBoundaryWithin: #expect(want == nil)
      case .undetermined, .confirming: break
      default: Issue.record("unexpected reason \(hint.reason)")
      }
    }
    #expect(compared > 50)
  }

  /// A crowd just beyond the floor's reach: the search stops after its work bound and
  /// answers with a lower bound, never later than the truth.
  @Test func aCrowdIsBoundedAndConservative() throws {
    var regions: [CircularRegion] = []
    let crowd = Self.here.destination(distance: 5000, bearing: 45)
    for k in 0..<6000 {
      let centre = crowd.destination(distance: Meters(Double(k % 100) * 3), bearing: Degrees(Double(k % 360)))
      regions.append(try CircularRegion(id: RegionID("c\(k)"), centre: centre, radius: 50))
    }
    var m = monitor(regions)
    _ = m.handle(.fix(Self.here, accuracy: 5), at: Self.t0)
    let truth = regions.map { Self.here.distance(to: $0.centre).value - 50 }.min()!
    let hint = try #require(m.acquisitionHint(at: Self.t0, policy: policy))
    let (key, distance, _) = try #require(boundary(hint.reason))
    #expect(distance.value <= truth)
    #expect(hint.due <= Self.t0.adding(seconds: (truth - 5) / 40))
    #expect(key == nil || abs(distance.value - truth) < 1e-6)
  }
}
