/// One firing of a timer: which occurrence, how late, and how many missed occurrences it
/// stands for.
public struct TimerFiring: Sendable, Hashable {
  /// The timer's name.
  public var name: String
  /// Its rule.
  public var rule: TimerRule
  /// What it does.
  public var action: TimerAction
  /// The occurrence that fired.
  public var occurrence: TimerOccurrence
  /// When it fired.
  public var firedAt: Instant
  /// 0 when it fired on time; else the number of missed occurrences it stands for (policy
  /// `once`: all of them; `all`: 1 each).
  public var missed: Int

  /// A firing.
  public init(
    name: String, rule: TimerRule, action: TimerAction, occurrence: TimerOccurrence, firedAt: Instant,
    missed: Int
  ) {
    self.name = name
    self.rule = rule
    self.action = action
    self.occurrence = occurrence
    self.firedAt = firedAt
    self.missed = missed
  }

  /// How late it fired.
  public var late: Duration { firedAt.duration(since: occurrence.instant) }
}
