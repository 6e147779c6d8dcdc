import LocCore
import LocHost
import LocProtocol

/// The one zone every time on a screen is shown in (the zone in effect in locd for `status`,
/// `timers` and `watch`; the place's zone for `sun`), each time with the zone's abbreviation
/// then (`21:22 CEST`). Without the zone's rules on this machine, the offset locd reported.
struct ScreenZone {
  /// The IANA name.
  var name: String
  /// Its rules, if this machine's tzdata has them.
  var rules: ZoneRules?
  /// The offset to use without rules, seconds east.
  var fallbackOffset: Int

  /// Whether every screen shows UTC instead (`--utc`).
  nonisolated(unsafe) static var utc = false

  /// The zone `name`, with `offset` for when its rules cannot be read; UTC with `--utc`.
  init(_ name: String, fallbackOffset: Int = 0) {
    self.name = ScreenZone.utc ? "UTC" : name
    rules = try? ZoneDatabase().rules(named: self.name)
    self.fallbackOffset = ScreenZone.utc ? 0 : fallbackOffset
  }

  /// The wall time at `t`.
  func local(_ t: Instant) -> LocalDateTime {
    if let rules { return rules.localDateTime(at: t) }
    return LocalDateTime(
      microsecondsSinceLocalEpoch: t.microsecondsSinceEpoch + Int64(fallbackOffset) * 1_000_000)
  }

  /// The abbreviation at `t` (`CEST`), or the offset (`UTC+02:00`) without rules.
  func abbreviation(_ t: Instant) -> String {
    rules?.abbreviation(at: t) ?? "UTC" + TimeFormat.utcOffset(seconds: fallbackOffset)
  }

  /// `21:22 CEST` (with seconds: `21:22:03 CEST`).
  func clock(_ t: Instant, seconds: Bool = false) -> String {
    let l = local(t)
    return TimeFormat.clock(secondOfDay: l.hour * 3600 + l.minute * 60 + l.second, seconds: seconds) + " "
      + abbreviation(t)
  }

  /// `2026-06-21 21:22:03 CEST`.
  func dateTime(_ t: Instant) -> String {
    let l = local(t)
    return "\(l.date) "
      + TimeFormat.clock(secondOfDay: l.hour * 3600 + l.minute * 60 + l.second, seconds: true)
      + " " + abbreviation(t)
  }

  /// `21:22 CEST` when `t` is on the same local date as `now`, else `Mon 21:22 CEST` within a
  /// week, else `2026-06-28 21:22 CEST`.
  func near(_ t: Instant, now: Instant) -> String {
    let day = local(t).date
    let today = local(now).date
    if day == today { return clock(t) }
    let days = day.daysSinceEpoch - today.daysSinceEpoch
    if days > 0, days < 7 { return Weekdays.names[day.weekday] + " " + clock(t) }
    return "\(day) " + clock(t)
  }

  /// The zone in effect in locd, for an app's session that prints events (`regions watch`,
  /// `app --updates`): an app's session may not read the status, so a session of locctl's
  /// own asks for it; this machine's zone when the user may not read it either (no read
  /// group), UTC without that.
  static func inEffect(socketPath: String) -> ScreenZone {
    if let client = try? ControlClient(path: socketPath, client: "locctl"),
      let status = try? client.call(.status)
    {
      return ScreenZone(status.timezone.zone.id, fallbackOffset: status.timezone.zone.offset ?? 0)
    }
    return ScreenZone(ZoneDatabase.systemZoneName() ?? "UTC")
  }

  /// This machine's wall clock now (clock_gettime(2)); the core never reads it, the CLI does
  /// only where locd's clock is not to be had (offline commands, a daemon before protocol 1.6).
  static func now() -> Instant {
    Instant(microsecondsSinceEpoch: Clocks.microseconds(.realtime))
  }

  /// The now to show locd's answers against: the daemon's clock as it reported it (the
  /// simulated one under `locd --clock replay`), this machine's only from a daemon that does
  /// not report one (before protocol 1.6), so one screen never mixes two clocks.
  static func now(daemon reported: Instant?) -> Instant {
    reported ?? now()
  }
}
