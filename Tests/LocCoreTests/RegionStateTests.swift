import LocCore
import Testing

/// The per-region state machine, step by step, with the numbers of docs/REGIONS.md: margin
/// m = max(3 × accuracy, 5 m), inside when d <= r - m, outside when d >= r + m, a known
/// state flips after 20 s on the other side. Region: 200 m around a point in Oslo.
@Suite struct RegionStateTests {
  static let centre = Coordinate(lat: 59.91, lon: 10.75)!
  static let t0 = Instant(secondsSinceEpoch: 1_780_000_000)
  let owner = RegionOwner(7)

  /// A point `d` metres east of the centre.
  func at(_ d: Double) -> Coordinate { Self.centre.destination(distance: Meters(d), bearing: 90) }

  func t(_ seconds: Double) -> Instant { Self.t0.adding(seconds: seconds) }

  func monitor(_ regions: CircularRegion...) -> RegionMonitor {
    var m = RegionMonitor()
    for r in regions { _ = m.handle(.register(owner, r), at: Self.t0) }
    return m
  }

  func region(
    _ id: String, radius: Double = 200, entry: Bool = true, exit: Bool = true, dwell: Duration? = nil
  ) throws -> CircularRegion {
    try CircularRegion(
      id: RegionID(id), centre: Self.centre, radius: Meters(radius), notifyOnEntry: entry, notifyOnExit: exit,
      dwell: dwell)
  }

  func transition(
    _ id: RegionID, _ from: RegionState, _ to: RegionState, at: Instant, firstSeen: Instant, notify: Bool
  )
    -> RegionOutput
  {
    .transition(
      RegionTransition(owner: owner, id: id, from: from, to: to, at: at, firstSeen: firstSeen, notify: notify)
    )
  }

  @Test func firstDeterminationIsImmediate() throws {
    let near = try region("near")
    let far = try CircularRegion(
      id: RegionID("far"), centre: Self.centre.destination(distance: 5000, bearing: 0), radius: 200)
    var m = monitor(near, far)
    // 100 m from the centre, accuracy 10 m: margin 30 m, 100 <= 200 - 30: inside "near";
    // about 5 km from "far": outside by far more than the margin.
    let out = m.handle(.fix(at(100), accuracy: 10), at: t(0)).sorted(by: RegionOutput.inOrder)
    #expect(
      out == [
        transition(far.id, .unknown, .outside, at: t(0), firstSeen: t(0), notify: false),
        transition(near.id, .unknown, .inside, at: t(0), firstSeen: t(0), notify: true),
      ])
    #expect(m.state(of: near.id, for: owner) == .inside)
    #expect(m.state(of: far.id, for: owner) == .outside)
    #expect(m.undetermined == 0)
  }

  @Test func straddlingFixesMoveNothing() throws {
    let r = try region("r")
    var m = monitor(r)
    // Accuracy 10 m, margin 30 m: anything from 170 m to 230 m straddles.
    for (k, d) in [181.0, 199, 200, 219, 185].enumerated() {
      #expect(m.handle(.fix(at(d), accuracy: 10), at: t(Double(k))).isEmpty)
    }
    #expect(m.state(of: r.id, for: owner) == .unknown)
    _ = m.handle(.fix(at(150), accuracy: 10), at: t(10))
    #expect(m.state(of: r.id, for: owner) == .inside)
    // Known inside now: an hour of straddling fixes, on both sides of the line, changes nothing.
    for k in 0..<3600 {
      let d = k % 2 == 0 ? 219.9 : 180.1
      #expect(m.handle(.fix(at(d), accuracy: 10), at: t(Double(11 + k))).isEmpty)
    }
    #expect(m.state(of: r.id, for: owner) == .inside)
  }

  @Test func marginNeverBelowFiveMetres() throws {
    let r = try region("r")
    var m = monitor(r)
    // Accuracy 0 (an over-confident receiver): the margin is still 5 m.
    #expect(m.handle(.fix(at(196), accuracy: 0), at: t(0)).isEmpty)
    #expect(m.handle(.fix(at(194.9), accuracy: 0), at: t(1)).count == 1)
    #expect(m.state(of: r.id, for: owner) == .inside)
  }

  @Test func exitNeedsTwentySecondsOutside() throws {
    let r = try region("r")
    var m = monitor(r)
    _ = m.handle(.fix(at(0), accuracy: 5), at: t(0))
    // 300 m out with accuracy 10 m: outside by the margin (300 >= 230).
    #expect(m.handle(.fix(at(300), accuracy: 10), at: t(100)).isEmpty)
    #expect(m.handle(.fix(at(320), accuracy: 10), at: t(110)).isEmpty)
    #expect(m.state(of: r.id, for: owner) == .inside)
    #expect(
      m.handle(.fix(at(350), accuracy: 10), at: t(120)) == [
        transition(r.id, .inside, .outside, at: t(120), firstSeen: t(100), notify: true)
      ])
    #expect(m.state(of: r.id, for: owner) == .outside)
  }

  @Test func aFixBackOnTheLineRestartsTheWait() throws {
    let r = try region("r")
    var m = monitor(r)
    _ = m.handle(.fix(at(0), accuracy: 5), at: t(0))
    _ = m.handle(.fix(at(300), accuracy: 10), at: t(100))
    _ = m.handle(.fix(at(205), accuracy: 10), at: t(110))  // straddles: the exit waits anew
    #expect(m.handle(.fix(at(300), accuracy: 10), at: t(120)).isEmpty)
    #expect(m.handle(.fix(at(300), accuracy: 10), at: t(139)).isEmpty)
    #expect(
      m.handle(.fix(at(300), accuracy: 10), at: t(140)) == [
        transition(r.id, .inside, .outside, at: t(140), firstSeen: t(120), notify: true)
      ])
  }

  @Test func entryAndDwell() throws {
    let r = try region("r", dwell: .seconds(60))
    var m = monitor(r)
    _ = m.handle(.fix(at(1000), accuracy: 5), at: t(0))
    #expect(m.state(of: r.id, for: owner) == .outside)
    #expect(m.handle(.fix(at(100), accuracy: 5), at: t(10)).isEmpty)
    #expect(m.nextDeadline == nil)  // not inside yet: no dwell to wait for
    #expect(
      m.handle(.fix(at(90), accuracy: 5), at: t(30)) == [
        transition(r.id, .outside, .inside, at: t(30), firstSeen: t(10), notify: true)
      ])
    // Inside since the first fix inside (t 10): the dwell is due at t 70.
    #expect(m.nextDeadline == t(70))
    #expect(m.handle(.tick, at: t(69)).isEmpty)
    #expect(m.handle(.tick, at: t(70)) == [.dwelled(owner, r.id, since: t(10))])
    #expect(m.handle(.tick, at: t(500)).isEmpty)
    #expect(m.nextDeadline == nil)
    // Leave and come back: a new stay, a new dwell.
    _ = m.handle(.fix(at(1000), accuracy: 5), at: t(600))
    _ = m.handle(.fix(at(1000), accuracy: 5), at: t(620))
    _ = m.handle(.fix(at(0), accuracy: 5), at: t(700))
    #expect(m.handle(.fix(at(0), accuracy: 5), at: t(720)).count == 1)
    #expect(m.nextDeadline == t(760))
    #expect(m.handle(.fix(at(0), accuracy: 5), at: t(761)) == [.dwelled(owner, r.id, since: t(700))])
  }

  @Test func dwellWaitsWhileAnExitIsBeingConfirmed() throws {
    let r = try region("r", dwell: .seconds(60))
    var m = monitor(r)
    _ = m.handle(.fix(at(0), accuracy: 5), at: t(0))  // unknown to inside at once, since t 0
    _ = m.handle(.fix(at(400), accuracy: 5), at: t(50))  // an exit starts being confirmed
    #expect(m.nextDeadline == nil)
    #expect(m.handle(.tick, at: t(65)).isEmpty)
    // Back inside before the exit is confirmed: the stay goes on and the dwell is overdue.
    #expect(m.handle(.fix(at(10), accuracy: 5), at: t(66)) == [.dwelled(owner, r.id, since: t(0))])
  }

  @Test func eventsTheAppDidNotAskFor() throws {
    let r = try region("quiet", entry: false, exit: false)
    var m = monitor(r)
    #expect(
      m.handle(.fix(at(0), accuracy: 5), at: t(0)) == [
        transition(r.id, .unknown, .inside, at: t(0), firstSeen: t(0), notify: false)
      ])
    _ = m.handle(.fix(at(900), accuracy: 5), at: t(10))
    #expect(
      m.handle(.fix(at(900), accuracy: 5), at: t(30)) == [
        transition(r.id, .inside, .outside, at: t(30), firstSeen: t(10), notify: false)
      ])
  }

  @Test func clockSetBackDoesNotStallAConfirmation() throws {
    let r = try region("r")
    var m = monitor(r)
    _ = m.handle(.fix(at(0), accuracy: 5), at: t(1000))
    _ = m.handle(.fix(at(900), accuracy: 5), at: t(1010))
    // The wall clock goes back an hour: the crossing seen "at 1010" is taken as seen now.
    #expect(m.handle(.fix(at(900), accuracy: 5), at: t(-2600)).isEmpty)
    #expect(m.counters.clockWentBack == 1)
    #expect(
      m.handle(.fix(at(900), accuracy: 5), at: t(-2580)) == [
        transition(r.id, .inside, .outside, at: t(-2580), firstSeen: t(-2600), notify: true)
      ])
  }

  @Test func unregisteredRegionsFallSilent() throws {
    let r = try region("r", dwell: .seconds(30))
    var m = monitor(r)
    _ = m.handle(.fix(at(0), accuracy: 5), at: t(0))
    #expect(m.nextDeadline == t(30))
    _ = m.handle(.unregister(owner, r.id), at: t(1))
    #expect(m.nextDeadline == nil)
    #expect(m.handle(.tick, at: t(40)).isEmpty)
    #expect(m.handle(.fix(at(900), accuracy: 5), at: t(50)).isEmpty)
    #expect(m.activeCount == 0)
  }

  /// Regions near the poles and across the antimeridian behave as anywhere else: the index
  /// has no seams there.
  @Test(arguments: [(90.0, 0.0), (-90, 0), (89.9999, 135), (0, 180), (0, -180), (-45, 179.9999)])
  func polesAndAntimeridian(lat: Double, lon: Double) throws {
    let centre = Coordinate(lat: lat, lon: lon)!
    let r = try CircularRegion(id: RegionID("edge"), centre: centre, radius: 500)
    var m = RegionMonitor()
    _ = m.handle(.register(owner, r), at: Self.t0)
    // From every direction: 400 m from the centre is inside (margin 15 m), 700 m outside.
    for (k, bearing) in stride(from: 0.0, to: 360, by: 30).enumerated() {
      let base = Double(k) * 100
      let inside = centre.destination(distance: 400, bearing: Degrees(bearing))
      let outside = centre.destination(distance: 700, bearing: Degrees(bearing))
      _ = m.handle(.fix(inside, accuracy: 5), at: t(base))
      _ = m.handle(.fix(inside, accuracy: 5), at: t(base + 20))
      #expect(m.state(of: r.id, for: owner) == .inside, "bearing \(bearing)")
      _ = m.handle(.fix(outside, accuracy: 5), at: t(base + 40))
      _ = m.handle(.fix(outside, accuracy: 5), at: t(base + 60))
      #expect(m.state(of: r.id, for: owner) == .outside, "bearing \(bearing)")
    }
  }
}
