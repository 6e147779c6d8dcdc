import LocCore

/// A timer action on the wire: `{"type":"event"}`, `{"type":"unit","unit":...}`,
/// `{"type":"command","path":...,"user":...}`. A command's arguments are not shown.
public enum TimerActionView: WireCodable {
  /// Only the `timer-fired` event.
  case event
  /// Start this systemd unit.
  case unit(String)
  /// Run the program at `path`, as `user` (nil: the configured default user).
  case command(path: String, user: String?)

  /// The wire form of `a`.
  public init(_ a: TimerAction) {
    switch a {
    case .event: self = .event
    case .startUnit(let unit): self = .unit(unit)
    case .command(let argv, let user): self = .command(path: argv.first ?? "", user: user)
    }
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    switch try o.string("type") {
    case "event": self = .event
    case "unit": self = .unit(try o.string("unit"))
    case "command": self = .command(path: try o.string("path"), user: try o.optionalString("user"))
    case let other: throw o.error("type", "must be event, unit or command, got \"\(other.prefix(64))\"")
    }
  }

  public var json: JSON {
    switch self {
    case .event: return .object(["type": .string("event")])
    case .unit(let unit): return .object(["type": .string("unit"), "unit": .string(unit)])
    case .command(let path, let user):
      return .object(["type": .string("command"), "path": .string(path), "user": .optional(user)])
    }
  }
}

/// The timer object (docs/TIMERS.md): a timer with its next deadline in UTC and local time
/// and why that is the deadline.
public struct TimerView: WireCodable {
  /// The timer's name.
  public var name: String
  /// Its rule, as written (`sunset-30m Mon-Fri`).
  public var rule: String
  /// What it does.
  public var action: TimerActionView
  /// What it does about missed occurrences.
  public var missed: MissedEventPolicy
  /// The timer file that defines it; nil for a runtime timer (`origin` `runtime`).
  public var file: String?
  /// The next deadline, to the second.
  public var next: Instant?
  /// The next deadline on the local wall clock, with its offset.
  public var nextLocal: LocalTimestamp?
  /// The zone's abbreviation at the deadline.
  public var abbreviation: String?
  /// The local date of the next occurrence.
  public var date: CivilDate?
  /// For solar rules: when the event itself happens, to the second.
  public var event: Instant?
  /// Why that is the deadline, or why there is none.
  public var reason: String
  /// When it last fired, to the millisecond.
  public var lastFired: Instant?
  /// The zone the deadline was planned in.
  public var timezone: String
  /// How its action (command or unit) ended the last time it ran since locd started; nil
  /// when it has not run (or from a 1.1 daemon).
  public var lastResult: TimerResultView?

  /// The wire form of `t`.
  public init(_ t: TimerStatus) {
    let d = t.definition
    name = d.name
    rule = d.rule.description
    action = TimerActionView(d.action)
    missed = d.missed
    if case .file(let path) = d.origin { file = path }
    next = t.next.map { WireFormat.truncate($0.instant, 0) }
    if let local = t.nextLocal, let offset = t.nextOffsetSeconds {
      nextLocal = LocalTimestamp(local, offsetSeconds: offset)
    }
    abbreviation = t.nextAbbreviation
    date = t.next?.date
    event = t.next?.eventInstant.map { WireFormat.truncate($0, 0) }
    reason = t.reason
    lastFired = t.lastFiredAt.map { WireFormat.truncate($0, 3) }
    timezone = t.zone
    lastResult = t.lastOutcome.map(TimerResultView.init)
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    name = try o.string("name")
    rule = try o.string("rule")
    action = try o.decode("action")
    missed = try o.word("missed")
    switch try o.string("origin") {
    case "runtime": file = nil
    case "file": file = try o.string("file")
    case let other: throw o.error("origin", "must be runtime or file, got \"\(other.prefix(64))\"")
    }
    next = try o.optionalInstant("next")
    nextLocal = try o.optionalLocalTimestamp("nextLocal")
    abbreviation = try o.optionalString("abbreviation")
    date = try o.optionalDate("date")
    event = try o.optionalInstant("event")
    reason = try o.string("reason")
    lastFired = try o.optionalInstant("lastFired")
    timezone = try o.string("timezone")
    lastResult = try o.optionalDecode("lastResult")
  }

  public var json: JSON {
    .object([
      "name": .string(name), "rule": .string(rule), "action": action.json, "missed": .string(missed.rawValue),
      "origin": .string(file == nil ? "runtime" : "file"), "file": .optional(file),
      "next": WireFormat.time(next, 0), "nextLocal": .optional(nextLocal?.description),
      "abbreviation": .optional(abbreviation), "date": .optional(date?.description),
      "event": WireFormat.time(event, 0), "reason": .string(reason),
      "lastFired": WireFormat.time(lastFired, 3),
      "timezone": .string(timezone), "lastResult": lastResult?.json ?? .null,
    ])
  }
}

/// How a timer's action ended (`lastResult`, 1.2): `result` `ok` or `failed`, `at` (UTC, to
/// the second) and `detail` in words ("exited with status 3").
public struct TimerResultView: WireCodable {
  /// Whether it worked.
  public var succeeded: Bool
  /// When locd learned how it ended, to the second.
  public var at: Instant
  /// How it ended, in words.
  public var detail: String

  /// The wire form of `o`.
  public init(_ o: TimerActionOutcome) {
    succeeded = o.succeeded
    at = WireFormat.truncate(o.at, 0)
    detail = o.detail
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    switch try o.string("result") {
    case "ok": succeeded = true
    case "failed": succeeded = false
    case let other: throw o.error("result", "must be ok or failed, got \"\(other.prefix(64))\"")
    }
    at = try o.instant("at")
    detail = try o.string("detail")
  }

  public var json: JSON {
    .object([
      "result": .string(succeeded ? "ok" : "failed"), "at": WireFormat.time(at, 0), "detail": .string(detail),
    ])
  }
}
