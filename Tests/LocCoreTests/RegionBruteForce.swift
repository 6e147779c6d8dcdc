import LocCore

#if canImport(Glibc)
  import Glibc
#endif

/// The reference for `RegionMonitor`: every region examined on every fix, the rule written
/// out plainly from docs/REGIONS.md, no index. Only a cheap first test is added, so that
/// 10^9 region-fix pairs run in seconds, and it is exact by this reasoning: a region can
/// change on a fix only if it is not idle-outside, or if the fix is inside it by the margin
/// (d <= r - m); the straight chord between two points of the sphere is never longer than
/// the arc (chord = 2R sin(d / 2R) <= d), so a chord longer than r - m (plus 1 cm for the
/// rounding of three products) proves d > r - m.
struct BruteForceRegions {
  struct Region {
    var owner: RegionOwner
    var region: CircularRegion
    var state = RegionState.unknown
    var pendingSince: Instant?
    var insideSince: Instant?
    var dwellDone = false
  }

  var regions: [Region?] = []
  /// Four numbers a region for the cheap test: the centre's Earth-centred x, y, z (metres,
  /// mean sphere) and the radius while the region is idle (outside, no crossing being
  /// confirmed), or infinity when it is not. A flat array read through a pointer in a
  /// `while` loop: this runs 10^9 times in a debug build.
  var flat: [Double] = []

  /// The margin is max(3 × accuracy, 5 m) (docs/REGIONS.md).
  let floor = 5.0
  let confirmation = Duration.seconds(20)

  static func point(_ c: Coordinate) -> (Double, Double, Double) {
    let phi = c.latitude.value * .pi / 180
    let lambda = c.longitude.value * .pi / 180
    let r = Coordinate.meanEarthRadius.value
    return (r * cos(phi) * cos(lambda), r * cos(phi) * sin(lambda), r * sin(phi))
  }

  mutating func add(_ owner: RegionOwner, _ region: CircularRegion) {
    regions.append(Region(owner: owner, region: region))
    let p = Self.point(region.centre)
    flat.append(p.0)
    flat.append(p.1)
    flat.append(p.2)
    flat.append(.infinity)
  }

  mutating func remove(_ index: Int) {
    regions[index] = nil
    // Removed: idle with no radius, never touched again.
    flat[4 * index + 3] = -1
  }

  func state(_ index: Int) -> RegionState? { regions[index]?.state }

  mutating func fix(_ c: Coordinate, accuracy: Double, at t: Instant) -> [RegionOutput] {
    guard accuracy.isFinite, accuracy >= 0 else { return [] }
    let m = max(3 * accuracy, floor)
    let p = Self.point(c)
    var touched: [Int] = []
    let infinity = Double.infinity
    flat.withUnsafeBufferPointer { buffer in
      var q = buffer.baseAddress!
      let end = q + buffer.count
      var i = 0
      while q < end {
        let idleRadius = q.advanced(by: 3).pointee
        if idleRadius == infinity {
          touched.append(i)
        } else {
          let inner = idleRadius - m + 0.01
          if inner > 0 {
            let dx = q.pointee - p.0
            let dy = q.advanced(by: 1).pointee - p.1
            let dz = q.advanced(by: 2).pointee - p.2
            if dx * dx + dy * dy + dz * dz <= inner * inner { touched.append(i) }
          }
        }
        q = q.advanced(by: 4)
        i &+= 1
      }
    }
    var out: [RegionOutput] = []
    for i in touched where regions[i] != nil { step(i, c, m, t, &out) }
    return out.sorted(by: RegionOutput.inOrder)
  }

  mutating func tick(at t: Instant) -> [RegionOutput] {
    var out: [RegionOutput] = []
    // Only regions that are not idle can be inside.
    var busy: [Int] = []
    let infinity = Double.infinity
    flat.withUnsafeBufferPointer { buffer in
      var q = buffer.baseAddress!.advanced(by: 3)
      let end = buffer.baseAddress! + buffer.count
      var i = 0
      while q < end {
        if q.pointee == infinity { busy.append(i) }
        q = q.advanced(by: 4)
        i &+= 1
      }
    }
    for i in busy where regions[i]?.state == .inside { dwell(i, t, &out) }
    return out.sorted(by: RegionOutput.inOrder)
  }

  /// One region, one fix: docs/REGIONS.md's rule as written there.
  private mutating func step(
    _ i: Int, _ c: Coordinate, _ m: Double, _ t: Instant, _ out: inout [RegionOutput]
  ) {
    var r = regions[i]!
    let d = c.distance(to: r.region.centre).value
    let radius = r.region.radius.value
    let inside = d <= radius - m
    let outside = d >= radius + m
    func transition(_ to: RegionState, firstSeen: Instant) {
      let notify =
        to == .inside ? r.region.notifyOnEntry : (r.state == .inside ? r.region.notifyOnExit : false)
      out.append(
        .transition(
          RegionTransition(
            owner: r.owner, id: r.region.id, from: r.state, to: to, at: t, firstSeen: firstSeen,
            notify: notify)))
      r.state = to
    }
    switch r.state {
    case .unknown:
      if inside {
        transition(.inside, firstSeen: t)
        r.insideSince = t
        r.dwellDone = false
      } else if outside {
        transition(.outside, firstSeen: t)
      }
    case .inside:
      if outside {
        let since = r.pendingSince ?? t
        r.pendingSince = since
        if t.duration(since: since) >= confirmation {
          transition(.outside, firstSeen: since)
          r.pendingSince = nil
          r.insideSince = nil
        }
      } else {
        r.pendingSince = nil
      }
    case .outside:
      if inside {
        let since = r.pendingSince ?? t
        r.pendingSince = since
        if t.duration(since: since) >= confirmation {
          transition(.inside, firstSeen: since)
          r.pendingSince = nil
          r.insideSince = since
          r.dwellDone = false
        }
      } else {
        r.pendingSince = nil
      }
    }
    regions[i] = r
    flat[4 * i + 3] = r.state == .outside && r.pendingSince == nil ? r.region.radius.value : .infinity
    if r.state == .inside { dwell(i, t, &out) }
  }

  /// The dwell event: inside, no exit being confirmed, once per stay, `dwell` after the
  /// stay began.
  private mutating func dwell(_ i: Int, _ t: Instant, _ out: inout [RegionOutput]) {
    guard var r = regions[i], let dwell = r.region.dwell, let since = r.insideSince, !r.dwellDone,
      r.pendingSince == nil, t >= since.adding(dwell)
    else { return }
    r.dwellDone = true
    regions[i] = r
    out.append(.dwelled(r.owner, r.region.id, since: since))
  }
}
