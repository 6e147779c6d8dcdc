import LocCore

/// `location` event data: the resolved position in full precision and the fix behind it
/// (null when the event is a change of tier without a fix).
public struct LocationEvent: WireCodable {
  /// The resolver's answer.
  public var position: ResolvedPositionView
  /// The fix, if the event comes from one.
  public var fix: FixView?

  /// The wire form.
  public init(_ resolved: ResolvedPosition, fix: Fix?) {
    position = ResolvedPositionView(resolved, rounded: false)
    self.fix = fix.map(FixView.init)
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    position = try o.decode("position")
    fix = try o.optionalDecode("fix")
  }

  public var json: JSON { writtenJSON }
}

extension LocationEvent: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("position", position)
    s.member("fix", fix)
    s.closeObject()
  }
}

/// `significant-change` event data: from where to where, and how far (to 0.1 m).
public struct SignificantChangeEvent: WireCodable {
  /// The previous regeneration point, if there was one.
  public var from: PositionView?
  /// The new one.
  public var to: PositionView
  /// The distance between them.
  public var distance: Meters?

  /// The wire form.
  public init(from: Position?, to: Position, distance: Meters?) {
    self.from = from.map { PositionView($0, rounded: false) }
    self.to = PositionView(to, rounded: false)
    self.distance = distance.map(WireFormat.tenths)
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    from = try o.optionalDecode("from")
    to = try o.decode("to")
    distance = try o.optionalMeters("distance")
  }

  public var json: JSON {
    .object(["from": from?.json ?? .null, "to": to.json, "distance": WireFormat.meters(distance)])
  }
}

/// `timezone-changed` event data.
public struct TimezoneChangedEvent: WireCodable {
  /// The zone before (nil at the first decision).
  public var from: ZoneView?
  /// The zone now.
  public var to: ZoneView
  /// Why (`position`, `utc-offset`, `manual-location`, ...).
  public var reason: OpenEnum<RegenerationReason>

  /// The wire form of `c`.
  public init(_ c: ZoneChange) {
    from = c.from.map(ZoneView.init)
    to = ZoneView(c.to)
    reason = .known(c.reason)
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    from = try o.optionalDecode("from")
    to = try o.decode("to")
    reason = try o.open("reason")
  }

  public var json: JSON {
    .object(["from": from?.json ?? .null, "to": to.json, "reason": .string(reason.word)])
  }
}

/// `solar-regenerated` event data: today and tomorrow before and after.
public struct SolarRegeneratedEvent: WireCodable {
  /// Why the days were recomputed.
  public var reason: OpenEnum<RegenerationReason>
  /// The zone whose local days these are.
  public var timezone: String
  /// Before (empty when there was no position).
  public var before: [SolarDayView]
  /// Now (empty without a position).
  public var after: [SolarDayView]

  /// The wire form of `r`.
  public init(_ r: SolarRegeneration) {
    reason = .known(r.reason)
    timezone = r.zone
    before = r.before.map(SolarDayView.init)
    after = r.after.map(SolarDayView.init)
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    reason = try o.open("reason")
    timezone = try o.string("timezone")
    before = try o.array("before")
    after = try o.array("after")
  }

  public var json: JSON {
    .object([
      "reason": .string(reason.word), "timezone": .string(timezone), "before": .array(before.map(\.json)),
      "after": .array(after.map(\.json)),
    ])
  }
}

/// `timer-fired` event data (docs/TIMERS.md).
public struct TimerFiredEvent: WireCodable {
  /// The timer's name.
  public var name: String
  /// Its rule, as written.
  public var rule: String
  /// What it does.
  public var action: TimerActionView
  /// The local date of the occurrence.
  public var date: CivilDate
  /// The deadline, to the millisecond.
  public var deadline: Instant
  /// The deadline on the local wall clock of `timezone`.
  public var deadlineLocal: LocalTimestamp
  /// The zone the deadline was planned in.
  public var timezone: String
  /// For solar rules: when the event itself happened, to the millisecond.
  public var event: Instant?
  /// How late it fired, to the millisecond.
  public var late: Duration
  /// 0 on time; else the missed occurrences this firing stands for.
  public var missed: Int
  /// How a wall time was read at a gap or fold, if it was.
  public var note: String?

  /// The wire form of a firing whose deadline is `local` on the wall clock of `zone`.
  public init(_ f: TimerFiring, zone: String, local: LocalDateTime) {
    name = f.name
    rule = f.rule.description
    action = TimerActionView(f.action)
    date = f.occurrence.date
    deadline = WireFormat.truncate(f.occurrence.instant, 3)
    let offset = Int(
      (local.microsecondsSinceLocalEpoch - f.occurrence.instant.microsecondsSinceEpoch) / 1_000_000)
    deadlineLocal = LocalTimestamp(local, offsetSeconds: offset)
    timezone = zone
    event = f.occurrence.eventInstant.map { WireFormat.truncate($0, 3) }
    late = WireFormat.seconds(f.late, 3)
    missed = f.missed
    note = f.occurrence.note
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    name = try o.string("name")
    rule = try o.string("rule")
    action = try o.decode("action")
    date = try o.date("date")
    deadline = try o.instant("deadline")
    deadlineLocal = try o.localTimestamp("deadlineLocal")
    timezone = try o.string("timezone")
    event = try o.optionalInstant("event")
    late = try o.seconds("late")
    missed = try o.int("missed")
    note = try o.optionalString("note")
  }

  public var json: JSON {
    .object([
      "name": .string(name), "rule": .string(rule), "action": action.json, "date": .string(date.description),
      "deadline": WireFormat.time(deadline, 3), "deadlineLocal": .string(deadlineLocal.description),
      "timezone": .string(timezone), "event": WireFormat.time(event, 3), "late": .number(late.seconds),
      "missed": .int(missed), "note": .optional(note),
    ])
  }
}

/// `acquisition` event data: a change of phase, why, and the state after it.
public struct AcquisitionEvent: WireCodable {
  /// The stage left; newer minor versions may add stages.
  public var from: OpenEnum<Acquisition.Stage>
  /// The stage entered.
  public var to: OpenEnum<Acquisition.Stage>
  /// Why: a trigger name or a sentence.
  public var reason: String
  /// The acquisition object after the change.
  public var acquisition: AcquisitionView

  /// The wire form of `c`.
  public init(_ c: AcquisitionChange) {
    from = .known(c.transition.from)
    to = .known(c.transition.to)
    reason = c.transition.reason.description
    acquisition = AcquisitionView(c.report)
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    from = try o.open("from")
    to = try o.open("to")
    reason = try o.string("reason")
    acquisition = try o.decode("acquisition")
  }

  public var json: JSON {
    .object([
      "from": .string(from.word), "to": .string(to.word), "reason": .string(reason),
      "acquisition": acquisition.json,
    ])
  }
}

/// `access-changed` event data: the receiving session's access changed (a reload changed
/// the groups), with the subscriptions it lost and those it keeps.
public struct AccessChangedEvent: WireCodable {
  /// The access before.
  public var from: AccessLevel
  /// The access now.
  public var to: AccessLevel
  /// Why (`configuration-reloaded`); newer minor versions may add reasons.
  public var reason: OpenEnum<AccessChangeReason>
  /// Subscriptions removed because the new access does not allow them.
  public var unsubscribed: Set<EventKind>
  /// The session's subscriptions now (kinds this build does not know are left out).
  public var events: Set<EventKind>

  /// The wire form of `c`.
  public init(_ c: AccessChange) {
    from = c.from
    to = c.to
    reason = .known(c.reason)
    unsubscribed = c.unsubscribed
    events = c.subscriptions
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    from = try o.word("from", AccessLevel.Name.self).level
    to = try o.word("to", AccessLevel.Name.self).level
    reason = try o.open("reason")
    unsubscribed = Set(try o.strings("unsubscribed").compactMap(EventKind.init(rawValue:)))
    events = Set(try o.strings("events").compactMap(EventKind.init(rawValue:)))
  }

  public var json: JSON {
    func kinds(_ set: Set<EventKind>) -> JSON { .array(set.sorted().map { .string($0.rawValue) }) }
    return .object([
      "from": .string(AccessLevel.Name(from).rawValue), "to": .string(AccessLevel.Name(to).rawValue),
      "reason": .string(reason.word), "unsubscribed": kinds(unsubscribed), "events": kinds(events),
    ])
  }
}
