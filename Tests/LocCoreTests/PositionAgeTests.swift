import LocCore
import Testing

/// A position received "in the future" (the wall clock was set back since, or the state
/// file was written by a clock that ran ahead) has no age that can be told: it is never
/// fresh and never shows a negative age (issue 15).
@Suite struct PositionAgeTests {
  static let now = Instant(microsecondsSinceEpoch: 1_790_000_000_000_000)
  static let here = Coordinate(lat: 59.9139, lon: 10.7522)!

  func position(receivedSecondsAgo seconds: Double) -> Position {
    let t = Self.now.adding(seconds: -seconds)
    return Position(
      coordinate: Self.here, accuracy: 5, time: t, receivedAt: t, source: "gpsd://127.0.0.1:2947")
  }

  @Test func aFixFromThePastHasItsAge() {
    let r = PositionResolver.resolve(
      fix: position(receivedSecondsAgo: 2), lastKnown: nil, manual: nil, freshFor: .seconds(10),
      now: Self.now,
      sourceProblem: nil)
    #expect(r.tier == .fix)
    #expect(r.age == .seconds(2))
  }

  @Test func aFixReceivedAheadOfTheClockIsNeitherFreshNorOfNegativeAge() {
    // One hour ahead: before, its age was -3600 s, which is less than FreshFor, so it
    // counted as a fresh fix for an hour and showed "-1 h old".
    let ahead = position(receivedSecondsAgo: -3600)
    let r = PositionResolver.resolve(
      fix: ahead, lastKnown: nil, manual: nil, freshFor: .seconds(10), now: Self.now, sourceProblem: nil)
    #expect(r.tier == .cached)
    #expect(r.age == nil)
    let stored = PositionResolver.resolve(
      fix: nil, lastKnown: ahead, manual: nil, freshFor: .seconds(10), now: Self.now, sourceProblem: nil)
    #expect(stored.tier == .cached)
    #expect(stored.age == nil)
  }
}
