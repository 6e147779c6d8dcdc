/// The time zone in effect and where it came from.
public struct ZoneReport: Sendable, Hashable {
  /// IANA zone name, e.g. "Europe/Oslo".
  public var id: String
  /// How it was chosen: "position", "configured" or "system".
  public var origin: String
  /// UTC offset now, in seconds east, if the zone's rules are known.
  public var offsetSeconds: Int?
  /// Abbreviation now, e.g. "CET", if known.
  public var abbreviation: String?
  /// Why this zone, in words (hysteresis state near a border), if there is more to say.
  public var reason: String? = nil
  /// The boundary data's estimate of the distance to the nearest zone border, when it is
  /// close (under 10 km) and the data can tell.
  public var borderDistance: Meters? = nil
}

/// Today's sunrise and sunset at the resolved position, local day of the zone in effect.
public struct SunReport: Sendable, Hashable {
  /// The local date these belong to.
  public var date: CivilDate
  /// Sunrise, or nil (see `note`).
  public var sunrise: Instant?
  /// Sunset, or nil (see `note`).
  public var sunset: Instant?
  /// Why one is missing (polar day, polar night, ...).
  public var note: String?
}

/// The latest fix's quality.
public struct FixSummary: Sendable, Hashable {
  /// Fix dimension.
  public var mode: FixMode
  /// How it was obtained.
  public var quality: FixQuality?
  /// Satellites used.
  public var satellitesUsed: Int?
  /// Satellites in view.
  public var satellitesInView: Int?
  /// Horizontal accuracy estimate.
  public var accuracy: Meters?
  /// Horizontal dilution of precision.
  public var hdop: Double?
  /// Receiver time of the fix.
  public var time: Instant
}

/// Everything `locctl status` shows.
public struct StatusReport: Sendable, Hashable {
  /// The resolver's answer.
  public var position: ResolvedPosition
  /// The latest accepted fix's quality, if any fix came in this run.
  public var fix: FixSummary?
  /// Every source with its state and counters.
  public var sources: [SourceSnapshot]
  /// The time zone in effect.
  public var timeZone: ZoneReport
  /// Today's sun, when a position and the solar engine are available.
  public var sun: SunReport?
  /// Socket server counters.
  public var server: ServerCounters
  /// Clients connected (after hello).
  public var sessions: Int
  /// When the daemon started.
  public var startedAt: Instant
  /// A problem with the state file found at start, if any.
  public var stateProblem: String?
  /// The one-line summary also sent as systemd STATUS=.
  public var summary: String
  /// Timers defined.
  public var timers: Int = 0
  /// The timer that fires next, if any.
  public var nextTimer: TimerStatus? = nil
  /// Fixes dropped by acceptance, by reason (no-fix, old, implausible-jump, inside-accuracy).
  public var rejectedFixes: [Counter] = []
  /// When fixes are wanted: phase, reasons, last outcome, next refresh.
  public var acquisition: AcquisitionReport? = nil
}
