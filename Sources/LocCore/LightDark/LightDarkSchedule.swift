/// A user's light/dark schedule at the place locd gives it (the `LightDarkPlace` cell, never
/// the position): the mode now, since when, the next transitions, the rules and the manual
/// override. What `light-dark` and `set-mode` answer and `light-dark` events carry
/// (docs/PROTOCOL.md, "Light and dark").
public struct LightDarkSchedule: Sendable, Hashable {
  /// The mode in effect: the override's while one holds, else the schedule's; nil while it
  /// is unknown (no position, or neither rule happens here within a year) and not overridden.
  public var mode: LightDarkMode?
  /// The mode the Sun and the rules give now; nil while unknown.
  public var scheduled: LightDarkMode?
  /// When the scheduled mode began (the last transition), if it did within a year.
  public var since: Instant?
  /// The next transitions of the schedule, soonest first (at most two): the first one also
  /// ends an override.
  public var transitions: [LightDarkTransition]
  /// The rules the schedule follows.
  public var rules: LightDarkRules
  /// The manual override, while one holds.
  public var override: LightDarkOverride?
  /// Why the mode is unknown or a transition is far off, in words ("no position ...",
  /// "no sunrise 2026-11-28..2027-01-14 (polar night ...)"); nil otherwise.
  public var note: String?
  /// The zone in effect, whose local days the rules are planned in (and which a client shows
  /// the times in).
  public var zone: String

  /// A schedule.
  public init(
    mode: LightDarkMode?, scheduled: LightDarkMode?, since: Instant?, transitions: [LightDarkTransition],
    rules: LightDarkRules, override: LightDarkOverride?, note: String?, zone: String
  ) {
    self.zone = zone
    self.mode = mode
    self.scheduled = scheduled
    self.since = since
    self.transitions = transitions
    self.rules = rules
    self.override = override
    self.note = note
  }
}

/// One coming change of the scheduled mode.
public struct LightDarkTransition: Sendable, Hashable {
  /// The mode from then on.
  public var mode: LightDarkMode
  /// When: the event at the schedule's place, rounded up to the whole second.
  public var at: Instant

  /// A transition.
  public init(mode: LightDarkMode, at: Instant) {
    self.mode = mode
    self.at = at
  }
}

/// A mode set by hand (`locctl mode dark`, darkman's Mode written), held until the next
/// transition of the schedule.
public struct LightDarkOverride: Sendable, Hashable {
  /// The mode set.
  public var mode: LightDarkMode
  /// When it ends: the schedule's first transition after it was set; nil while the schedule
  /// has none (no position): it then ends at the first transition once there is one, or with
  /// `auto`.
  public var until: Instant?

  /// An override.
  public init(mode: LightDarkMode, until: Instant?) {
    self.mode = mode
    self.until = until
  }
}

/// Why a `light-dark` event was sent. An open enumeration on the wire.
public enum LightDarkReason: Sendable, Hashable, RawRepresentable {
  /// A transition of the schedule came (or an override ended with it).
  case transition
  /// The user set the mode by hand, or went back to the schedule (`auto`).
  case override
  /// The user's rules changed.
  case rules
  /// The schedule was worked out again, for this reason (the place's cell or the zone
  /// changed, the clock was stepped, the machine resumed, the zone data changed, ...).
  case regenerated(RegenerationReason)

  /// `transition`, `override`, `rules`, or the regeneration's reason (`resume`, `clock-step`, ...).
  public var rawValue: String {
    switch self {
    case .transition: return "transition"
    case .override: return "override"
    case .rules: return "rules"
    case .regenerated(let r): return r.rawValue
    }
  }

  /// The reason named `rawValue`; nil for a name this build does not know.
  public init?(rawValue: String) {
    switch rawValue {
    case "transition": self = .transition
    case "override": self = .override
    case "rules": self = .rules
    default:
      guard let r = RegenerationReason(rawValue: rawValue) else { return nil }
      self = .regenerated(r)
    }
  }
}
