import LocCore

/// A user's light/dark schedule (1.10, decision 0065): the result of `light-dark` and
/// `set-mode`, and the data of `light-dark` events with their `reason`. Times are whole
/// seconds; every time is worked out for the 25 km cell of the position, never the position
/// (docs/PRIVACY.md), and nothing here is a coordinate.
public struct LightDarkView: WireCodable {
  /// One coming transition.
  public struct Transition: WireCodable {
    /// The mode from then on.
    public var mode: LightDarkMode
    /// When.
    public var at: Instant

    /// The wire form of `t`.
    public init(_ t: LightDarkTransition) {
      mode = t.mode
      at = t.at
    }

    public init(json: JSON, path: WirePath) throws(WireDecodingError) {
      let o = try WireObject(json, path: path)
      mode = try o.word("mode")
      at = try o.instant("at")
    }

    public var json: JSON { .object(["mode": .string(mode.rawValue), "at": WireFormat.time(at, 0)]) }
  }

  /// The override, while one holds.
  public struct Override: WireCodable {
    /// The mode set by hand.
    public var mode: LightDarkMode
    /// When it ends (null: at the schedule's first transition once there is one).
    public var until: Instant?

    /// The wire form of `o`.
    public init(_ o: LightDarkOverride) {
      mode = o.mode
      until = o.until
    }

    public init(json: JSON, path: WirePath) throws(WireDecodingError) {
      let o = try WireObject(json, path: path)
      mode = try o.word("mode")
      until = try o.optionalInstant("until")
    }

    public var json: JSON { .object(["mode": .string(mode.rawValue), "until": WireFormat.time(until, 0)]) }
  }

  /// The mode in effect; nil (null) while unknown and not overridden.
  public var mode: LightDarkMode?
  /// The mode the rules give now; nil while unknown.
  public var scheduled: LightDarkMode?
  /// When the scheduled mode began, if within a year.
  public var since: Instant?
  /// The next transitions, soonest first (at most two).
  public var transitions: [Transition]
  /// The dark rule (TIMERS.md's grammar).
  public var dark: String
  /// The light rule.
  public var light: String
  /// The override, while one holds.
  public var override: Override?
  /// Why the mode is unknown or the next transition far off, in words.
  public var note: String?
  /// The zone in effect, whose local days the rules are planned in.
  public var timezone: String

  /// The wire form of `s`.
  public init(_ s: LightDarkSchedule) {
    mode = s.mode
    scheduled = s.scheduled
    since = s.since
    transitions = s.transitions.map(Transition.init)
    dark = s.rules.dark.description
    light = s.rules.light.description
    override = s.override.map(Override.init)
    note = s.note
    timezone = s.zone
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    mode = try o.optionalWord("mode")
    scheduled = try o.optionalWord("scheduled")
    since = try o.optionalInstant("since")
    transitions = try o.array("transitions")
    let rules = try o.object("rules")
    dark = try rules.string("dark")
    light = try rules.string("light")
    override = try o.optionalDecode("override")
    note = try o.optionalString("note")
    timezone = try o.string("timezone")
  }

  /// The members, for the result and the event alike.
  var members: JSONObject {
    [
      "mode": mode.map { .string($0.rawValue) } ?? .null,
      "scheduled": scheduled.map { .string($0.rawValue) } ?? .null,
      "since": WireFormat.time(since, 0), "transitions": .array(transitions.map(\.json)),
      "rules": .object(["dark": .string(dark), "light": .string(light)]),
      "override": override?.json ?? .null, "note": note.map { .string($0) } ?? .null,
      "timezone": .string(timezone),
    ]
  }

  public var json: JSON { .object(members) }
}

/// `light-dark` event data (1.10): the follower's schedule now, as `light-dark` answers it,
/// and why it was sent (`reason`, an open enumeration: `transition`, `override`, `rules`, or
/// a regeneration's reason such as `resume`, `clock-step`, `significant-change`).
public struct LightDarkEvent: WireCodable {
  /// The schedule.
  public var schedule: LightDarkView
  /// Why it was sent.
  public var reason: OpenEnum<LightDarkReason>

  /// The wire form of a push.
  public init(_ schedule: LightDarkSchedule, reason: LightDarkReason) {
    self.schedule = LightDarkView(schedule)
    self.reason = .known(reason)
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    schedule = try LightDarkView(json: json, path: path)
    reason = try WireObject(json, path: path).open("reason")
  }

  public var json: JSON {
    var members = schedule.members
    members["reason"] = .string(reason.word)
    return .object(members)
  }
}

/// The `lightDark` member of `status` (1.10; present once a user asked for a schedule): how
/// many users have one, the sessions following them, the overrides holding now, and the
/// counters. No time and no place.
public struct LightDarkStatusView: WireCodable {
  /// Users with a schedule.
  public var users: Int
  /// Sessions following one.
  public var followers: Int
  /// Overrides holding now.
  public var overrides: Int
  /// Named counters in the daemon's order (`requests`, `overrides`, `events`).
  public var counters: [Counter]

  /// The wire form of `r`.
  public init(_ r: LightDarkReport) {
    users = r.users
    followers = r.followers
    overrides = r.overrides
    counters = r.counterList
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    users = try o.int("users")
    followers = try o.int("followers")
    overrides = try o.int("overrides")
    counters = try o.counters("counters")
  }

  public var json: JSON {
    .object([
      "users": .int(users), "followers": .int(followers), "overrides": .int(overrides),
      "counters": WireFormat.counters(counters),
    ])
  }
}
