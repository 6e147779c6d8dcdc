import LocCore

/// The advertisements of a `BeaconReplaySource`'s capture as it plays them: the one to
/// play next and where it sits in the capture (its offset from the first), the rounds begun,
/// the advertisements played over all rounds, and the pause between two rounds. Pure: the
/// source paces it (`ReplayPace`) and hands on what it takes.
struct BeaconTape {
  /// The capture's advertisements, in the order recorded.
  private(set) var advertisements: [BeaconAdvertisement] = []
  /// The advertisement to play next.
  private(set) var next = 0
  /// Advertisements played over all rounds.
  private(set) var played = 0
  /// Rounds begun so far.
  private(set) var rounds = 0
  /// A round finished and the pause before the next one is on its way.
  private(set) var betweenRounds = false

  /// The capture's advertisements from now on (the counts and the place go on).
  mutating func load(_ advertisements: [BeaconAdvertisement]) {
    self.advertisements = advertisements
  }

  /// Microseconds from the first advertisement to advertisement `n` (never negative: a step
  /// backwards, as between concatenated captures, counts as none).
  func offset(_ n: Int) -> Int64 {
    max(0, advertisements[n].time.microsecondsSinceEpoch - advertisements[0].time.microsecondsSinceEpoch)
  }

  /// The offset of the advertisement to play next; nil when the round has played them all.
  var nextOffset: Int64? {
    roundPlayed ? nil : offset(next)
  }

  /// Whether the round has played every advertisement.
  var roundPlayed: Bool { next >= advertisements.count }

  /// A round begins at the first advertisement.
  mutating func beginRound() {
    next = 0
    rounds += 1
    betweenRounds = false
  }

  /// The advertisement to play next, now played.
  mutating func take() -> BeaconAdvertisement {
    defer {
      next += 1
      played += 1
    }
    return advertisements[next]
  }

  /// The round played them all; the next begins after a pause.
  mutating func pause() {
    betweenRounds = true
  }
}
