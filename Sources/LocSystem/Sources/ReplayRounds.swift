import LocCore

/// The rounds of a `ReplaySource`: whether it loops, how many have begun, how far each
/// round's fix times move past the round before (whole days, `roundShift`), and the decoder
/// counters of the rounds before this one (counters only grow, SOURCES.md).
struct ReplayRounds {
  /// Whether a finished round starts over.
  let loops: Bool
  /// Rounds begun so far.
  private(set) var count = 0
  /// How far each round's fix times move past the round before (whole days).
  var shiftPerRound: Int64 = ReplaySource.day
  /// The decoder counters of the rounds before this one.
  private var earlier = NMEACounters()

  /// Rounds of a replay that `loops` or not.
  init(loops: Bool) { self.loops = loops }

  /// A round begins; the round before ended with `counters`.
  mutating func begin(after counters: NMEACounters) {
    earlier.add(counters)
    count += 1
  }

  /// Every round's counters, the current one's being `current`.
  func total(with current: NMEACounters) -> NMEACounters {
    var t = earlier
    t.add(current)
    return t
  }

  /// `fix` moved to this round's day (round 1 plays the recording's own days).
  func shifted(_ fix: Fix) -> Fix {
    guard count > 1 else { return fix }
    var fix = fix
    fix.time = Instant(
      microsecondsSinceEpoch: fix.time.microsecondsSinceEpoch + Int64(count - 1) * shiftPerRound)
    return fix
  }
}
