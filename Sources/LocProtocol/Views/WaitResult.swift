import LocCore

/// The answer to `wait` (1.2): what happened, once. `what` is `rule` (with `occurrence`) or
/// `timezone-changed` (with `change`, the `timezone-changed` event data); the other member
/// is null.
public struct WaitResult: WireCodable {
  /// A rule's occurrence, like `timer-fired` without a timer.
  public struct Occurrence: WireCodable {
    /// The rule, canonical.
    public var rule: String
    /// The local date of the occurrence.
    public var date: CivilDate
    /// The deadline, to the millisecond.
    public var deadline: Instant
    /// The deadline on the local wall clock of `timezone`.
    public var deadlineLocal: LocalTimestamp
    /// The zone the deadline was planned in.
    public var timezone: String
    /// For solar rules: when the event itself happens, to the millisecond.
    public var event: Instant?
    /// How late the answer came after the deadline, to the millisecond.
    public var late: Duration
    /// How a wall time was read at a gap or fold, if it was.
    public var note: String?

    public init(json: JSON, path: WirePath) throws(WireDecodingError) {
      let o = try WireObject(json, path: path)
      rule = try o.string("rule")
      date = try o.date("date")
      deadline = try o.instant("deadline")
      deadlineLocal = try o.localTimestamp("deadlineLocal")
      timezone = try o.string("timezone")
      event = try o.optionalInstant("event")
      late = try o.seconds("late")
      note = try o.optionalString("note")
    }

    init(
      _ rule: TimerRule, _ o: TimerOccurrence, late: Duration, zone: String, local: LocalDateTime,
      offsetSeconds: Int
    ) {
      self.rule = rule.description
      date = o.date
      deadline = WireFormat.truncate(o.instant, 3)
      deadlineLocal = LocalTimestamp(local, offsetSeconds: offsetSeconds)
      timezone = zone
      event = o.eventInstant.map { WireFormat.truncate($0, 3) }
      self.late = WireFormat.seconds(late, 3)
      note = o.note
    }

    public var json: JSON {
      .object([
        "rule": .string(rule), "date": .string(date.description), "deadline": WireFormat.time(deadline, 3),
        "deadlineLocal": .string(deadlineLocal.description), "timezone": .string(timezone),
        "event": WireFormat.time(event, 3), "late": .number(late.seconds), "note": .optional(note),
      ])
    }
  }

  /// The rule's occurrence that answered it, or nil.
  public var occurrence: Occurrence?
  /// The zone change that answered it, or nil.
  public var change: TimezoneChangedEvent?

  /// The wire form of `outcome`.
  public init(_ outcome: WaitOutcome) {
    switch outcome {
    case .occurred(let rule, let o, let late, let zone, let local, let offset):
      occurrence = Occurrence(rule, o, late: late, zone: zone, local: local, offsetSeconds: offset)
    case .timezoneChanged(let c):
      change = TimezoneChangedEvent(c)
    }
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    switch try o.string("what") {
    case "rule": occurrence = try o.decode("occurrence")
    case "timezone-changed": change = try o.decode("change")
    case let other: throw o.error("what", "must be rule or timezone-changed, got \"\(other.prefix(64))\"")
    }
  }

  public var json: JSON {
    .object([
      "what": .string(occurrence != nil ? "rule" : "timezone-changed"),
      "occurrence": occurrence?.json ?? .null,
      "change": change?.json ?? .null,
    ])
  }
}
