import LocCore
import Testing

/// The visit rule step by step (docs/REGIONS.md, "Visits"): a place is 100 m (or the fix's
/// accuracy) around the mean of its fixes; out of it means beyond that plus max(accuracy,
/// 25 m); a stay of 5 min is a visit; leaving takes 60 s and two fixes out.
@Suite struct VisitMonitorTests {
  static let cafe = Coordinate(lat: 41.3851, lon: 2.1734)!
  static let t0 = Instant(secondsSinceEpoch: 1_780_000_000)

  func at(_ d: Double, _ bearing: Double = 0) -> Coordinate {
    Self.cafe.destination(distance: Meters(d), bearing: Degrees(bearing))
  }

  func t(_ s: Double) -> Instant { Self.t0.adding(seconds: s) }

  /// Fixes at the café every 30 s from `from` to `to` seconds, alternating 0 and 20 m off.
  func stay(_ m: inout VisitMonitor, from: Double, to: Double) -> [VisitEvent] {
    var out: [VisitEvent] = []
    for s in stride(from: from, through: to, by: 30) {
      out += m.handle(fix: at(Int(s / 30) % 2 == 0 ? 0 : 20), accuracy: 8, at: t(s))
    }
    return out
  }

  @Test func fiveMinutesMakeAVisitFourAndAHalfDoNot() throws {
    var m = VisitMonitor()
    #expect(stay(&m, from: 0, to: 270).isEmpty)
    let out = stay(&m, from: 300, to: 300)
    let visit = try #require(m.current)
    #expect(out == [.arrived(visit)])
    #expect(visit.arrival == t(0))
    #expect(visit.departure == nil)
    // The mean of 0 m and 20 m north fixes: about 10 m north of the café.
    #expect(visit.coordinate.distance(to: Self.cafe).value < 15)
    #expect(visit.accuracy == 8)
  }

  @Test func leavingTakesAMinuteAndTwoFixes() throws {
    var m = VisitMonitor()
    _ = stay(&m, from: 0, to: 600)
    let visit = try #require(m.current)
    // 500 m away with accuracy 8: out (beyond 100 + 25 m).
    #expect(m.handle(fix: at(500), accuracy: 8, at: t(630)).isEmpty)
    #expect(m.handle(fix: at(900), accuracy: 8, at: t(660)).isEmpty)  // two fixes, 30 s
    var left = visit
    left.departure = t(600)  // the last fix at the café
    #expect(m.handle(fix: at(1300), accuracy: 8, at: t(690)) == [.departed(left)])
    #expect(m.current == nil)
  }

  @Test func oneStrayFixIsForgiven() throws {
    var m = VisitMonitor()
    _ = stay(&m, from: 0, to: 600)
    #expect(m.handle(fix: at(300, 90), accuracy: 8, at: t(601)).isEmpty)
    _ = stay(&m, from: 630, to: 1200)
    #expect(m.current != nil)
    #expect(m.counters.strays == 1)
    #expect(m.counters.departures == 0)
  }

  @Test func aFixOnTheEdgeRestartsTheLeaving() throws {
    var m = VisitMonitor()
    _ = stay(&m, from: 0, to: 600)
    _ = m.handle(fix: at(500), accuracy: 8, at: t(630))
    _ = m.handle(fix: at(500), accuracy: 8, at: t(660))
    // 110 m: beyond the 100 m radius, within radius + 25 m margin: neither in nor out.
    _ = m.handle(fix: at(110), accuracy: 8, at: t(670))
    #expect(m.handle(fix: at(500), accuracy: 8, at: t(700)).isEmpty)
    #expect(m.handle(fix: at(500), accuracy: 8, at: t(730)).isEmpty)
    #expect(m.handle(fix: at(500), accuracy: 8, at: t(760)).count == 1)
  }

  @Test func aPoorFixWidensThePlace() throws {
    var m = VisitMonitor()
    _ = stay(&m, from: 0, to: 300)
    // 180 m off but with 200 m accuracy: within max(100 m, accuracy) of the place.
    for s in stride(from: 330.0, through: 600, by: 30) {
      #expect(m.handle(fix: at(180), accuracy: 200, at: t(s)).isEmpty)
    }
    #expect(m.current != nil)
    #expect(m.counters.departures == 0)
  }

  @Test func theNextPlaceKeepsItsFirstFix() throws {
    var m = VisitMonitor()
    _ = stay(&m, from: 0, to: 600)
    // Straight to a shop 2 km away, and stay there.
    let shop = Self.cafe.destination(distance: 2000, bearing: 45)
    var events: [VisitEvent] = []
    for s in stride(from: 630.0, through: 1_000, by: 30) {
      events += m.handle(fix: shop, accuracy: 8, at: t(s))
    }
    let arrival = try #require(m.current)
    #expect(arrival.arrival == t(630))
    #expect(arrival.coordinate.distance(to: shop).value < 1)
    #expect(events.count == 2)  // departed from the café, arrived at the shop
  }

  @Test func badAccuracyIsIgnored() {
    var m = VisitMonitor()
    #expect(m.handle(fix: Self.cafe, accuracy: Meters(.nan), at: t(0)).isEmpty)
    #expect(m.handle(fix: Self.cafe, accuracy: -1, at: t(0)).isEmpty)
    #expect(m.counters.ignoredFixes == 2)
    #expect(m.lastFixAt == nil)
  }

  @Test func cadenceHint() {
    var m = VisitMonitor()
    #expect(m.acquisitionHint(at: t(5)) == FixHint(due: t(5), reason: .noPosition))
    _ = m.handle(fix: Self.cafe, accuracy: 8, at: t(10))
    #expect(m.acquisitionHint(at: t(10)) == FixHint(due: t(70), reason: .visitCadence(.seconds(60))))
    #expect(m.acquisitionHint(at: t(100)).due == t(100))
  }

  @Test func resetForgetsEverything() throws {
    var m = VisitMonitor()
    _ = stay(&m, from: 0, to: 600)
    #expect(m.current != nil)
    m.reset()
    #expect(m.current == nil)
    // A new place from scratch: five more minutes before a visit.
    #expect(stay(&m, from: 630, to: 900).isEmpty)
    #expect(stay(&m, from: 930, to: 930).count == 1)
  }
}
