/// The dates of epochs: the GPS week rollover and the day a time of day falls on when the
/// stream gave no date (the rules are in `EpochAssembler`'s documentation).
extension EpochAssembler {
  /// 1024 GPS weeks in microseconds: the period of the 10-bit week number (IS-GPS-200, 20.3.3.3.1.1).
  public static let weekRolloverPeriodMicroseconds: Int64 = 1024 * 7 * 86_400 * 1_000_000
  /// How far after the reference a corrected date may land: a day, for a clock a little
  /// behind (a machine without a real-time clock that booted with the time it last saved).
  public static let rolloverSlackMicroseconds: Int64 = 86_400 * 1_000_000

  /// What the week-rollover rule does with a fix's time.
  enum Rollover: Equatable {
    /// Left as it is: no reference, or not more than 512 weeks behind it.
    case none
    /// Moved forward by whole 1024-week periods to the one nearest the reference.
    case corrected(Instant)
    /// More than 512 weeks behind, but the move would land it past the reference's slack
    /// (an old log, not a buggy receiver): kept as it came.
    case refused
  }

  /// The week-rollover rule for `time` against the caller's clock.
  static func rollover(_ time: Instant, reference: Instant?) -> Rollover {
    guard let reference else { return .none }
    let behind = reference.microsecondsSinceEpoch - time.microsecondsSinceEpoch
    let period = weekRolloverPeriodMicroseconds
    guard behind > period / 2 else { return .none }
    let moved = time.adding(microseconds: (behind + period / 2) / period * period)
    guard moved.microsecondsSinceEpoch - reference.microsecondsSinceEpoch <= rolloverSlackMicroseconds else {
      return .refused
    }
    return .corrected(moved)
  }

  /// The day (the reference's, the one before or after) that puts `timeOfDay` nearest the
  /// reference.
  static func date(of timeOfDay: TimeOfDay, nearest reference: Instant) -> CivilDate {
    let referenceDay = reference.utcDate
    var best = referenceDay
    var bestDistance = Int64.max
    for offset in -1...1 {
      let candidate = referenceDay.adding(days: offset)
      let distance = abs(
        timeOfDay.instant(on: candidate).microsecondsSinceEpoch - reference.microsecondsSinceEpoch)
      if distance < bestDistance {
        best = candidate
        bestDistance = distance
      }
    }
    return best
  }
}
