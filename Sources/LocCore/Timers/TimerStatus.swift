/// One timer as `locctl timers` shows it: its definition, its next deadline in UTC and in local
/// time, and why that is the deadline.
public struct TimerStatus: Sendable, Hashable {
  /// The definition.
  public var definition: TimerDefinition
  /// The next occurrence, if any.
  public var next: TimerOccurrence?
  /// The deadline on the local wall clock of the zone in effect.
  public var nextLocal: LocalDateTime?
  /// The UTC offset at the deadline, seconds east.
  public var nextOffsetSeconds: Int?
  /// The zone's abbreviation at the deadline.
  public var nextAbbreviation: String?
  /// Why that is the deadline, or why there is none.
  public var reason: String
  /// When it last fired.
  public var lastFiredAt: Instant?
  /// The zone the deadline was planned in.
  public var zone: String
  /// How its action ended the last time it ran (since locd started), if it ran.
  public var lastOutcome: TimerActionOutcome? = nil
}
