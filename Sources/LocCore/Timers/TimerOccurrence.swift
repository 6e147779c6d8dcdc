/// One occurrence of a timer rule: the local date it belongs to and the instant it fires.
/// A timer fires at most once per (timer, date): that is what makes a move or a clock step
/// back unable to fire it twice.
public struct TimerOccurrence: Hashable, Sendable {
  /// The local date of the occurrence (for solar rules, of the event before its offset).
  public var date: CivilDate
  /// When it fires.
  public var instant: Instant
  /// For solar rules, when the event itself happens (before the offset).
  public var eventInstant: Instant?
  /// How a wall time was read when the clocks change that night (gap or fold), if they do.
  public var note: String?

  /// An occurrence.
  public init(date: CivilDate, instant: Instant, eventInstant: Instant? = nil, note: String? = nil) {
    self.date = date
    self.instant = instant
    self.eventInstant = eventInstant
    self.note = note
  }
}

/// The next occurrence of a timer, or why there is none, with the reason in words.
public struct TimerPlan: Hashable, Sendable {
  /// The next occurrence, if there is one within the search horizon.
  public var next: TimerOccurrence?
  /// Why it is then (or why there is none): "sunset on 2026-06-21 at 21:52:10 CEST, 30m
  /// earlier", "no sunrise 2026-11-28..2027-01-15 (polar night); ...".
  public var reason: String

  /// A plan.
  public init(next: TimerOccurrence?, reason: String) {
    self.next = next
    self.reason = reason
  }
}
