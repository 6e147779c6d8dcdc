import LocCore
import Testing

@testable import LocSystem

/// The parts of a replay, on plain numbers: the pacing (due times at a speed, holds moving
/// the start), the rounds (the day shift, counters carried), the grouping into cycles.
@Suite struct ReplayPartsTests {
  @Test func aCycleIsDueItsOffsetDividedByTheSpeedAfterTheStart() {
    var pace = ReplayPace(speed: .factor(4))
    pace.start(at: 1_000_000)
    #expect(pace.due(offset: 8_000_000) == 3_000_000)
    #expect(pace.after(500) == 1_000_500)
    // speed=max: nothing waits for a time.
    #expect(ReplayPace(speed: .max).due(offset: 8_000_000) == nil)
  }

  @Test func aHoldMovesTheStartByTheTimeHeld() {
    var pace = ReplayPace(speed: .factor(1))
    pace.start(at: 0)
    let held = pace.hold(at: 2_000_000)
    let heldAgain = pace.hold(at: 3_000_000)
    #expect(held && !heldAgain && pace.isHeld)
    let missed = pace.release(at: 5_000_000)
    // Held from 2 s to 5 s: the cycle at 4 s is due at 7 s; no tick came meanwhile.
    #expect(!missed && !pace.isHeld)
    #expect(pace.due(offset: 4_000_000) == 7_000_000)
    let notHeld = pace.release(at: 6_000_000)
    #expect(!notHeld)
    #expect(pace.due(offset: 4_000_000) == 7_000_000)
  }

  @Test func aTickMissedWhileHeldIsMadeUpOnce() {
    var pace = ReplayPace(speed: .max)
    _ = pace.hold(at: 0)
    pace.missed()
    let first = pace.release(at: 10)
    _ = pace.hold(at: 20)
    let second = pace.release(at: 30)
    #expect(first && !second)
  }

  @Test func roundsAfterTheFirstMoveByWholeDaysAndCarryTheirCounters() {
    var rounds = ReplayRounds(loops: true)
    rounds.shiftPerRound = 2 * ReplaySource.day
    var fix = Fix(time: Instant(microsecondsSinceEpoch: 1_000), coordinate: nil, mode: .noFix)
    rounds.begin(after: NMEACounters())
    #expect(rounds.shifted(fix).time == fix.time)
    var ended = NMEACounters()
    ended.sentences = 5
    rounds.begin(after: ended)
    #expect(rounds.count == 2)
    // Round 2 plays two days later.
    #expect(rounds.shifted(fix).time.microsecondsSinceEpoch == 1_000 + 2 * ReplaySource.day)
    var current = NMEACounters()
    current.sentences = 3
    #expect(rounds.total(with: current).sentences == 8)
    fix.time = Instant(microsecondsSinceEpoch: 0)
    #expect(rounds.shifted(fix).time.microsecondsSinceEpoch == 2 * ReplaySource.day)
  }

  @Test func cyclesGroupLinesByTimeAndBoundTheirSteps() {
    // Times of day per line (nil: untimed, joins the cycle before). Steps: +1 s, a 20 s gap
    // (over maxGap: 1 s), back 5 s (1 s), a jump of almost a day ahead (1 s), and 23:59:58
    // to 00:00:00 past midnight (+2 s).
    let day = TimeOfDay.microsecondsPerDay
    let times: [Int64?] = [10_000_000, nil, 11_000_000, 31_000_000, 26_000_000, day - 2_000_000, 0]
    let cycles = ReplayTape.cycles(of: times.count) { times[$0] }
    #expect(cycles.map(\.lines) == [0..<2, 2..<3, 3..<4, 4..<5, 5..<6, 6..<7])
    #expect(cycles.map(\.offset) == [0, 1_000_000, 2_000_000, 3_000_000, 4_000_000, 6_000_000])
  }
}
