/// Why locd recomputed what depends on the place and the time zone.
public enum RegenerationReason: String, Sendable, Hashable {
  /// The daemon started.
  case start
  /// A significant move.
  case significantChange = "significant-change"
  /// The time zone in effect changed.
  case timezone
  /// The zone's UTC offset changed (a daylight-saving transition).
  case utcOffset = "utc-offset"
  /// A new local day began.
  case localMidnight = "local-midnight"
  /// The wall clock was stepped.
  case clockStep = "clock-step"
  /// The machine resumed from suspend.
  case resume
  /// The manual location was set or cleared.
  case manualLocation = "manual-location"
  /// The static file gave another position, or none any more.
  case staticLocation = "static-location"
  /// The configuration was reloaded.
  case configuration
  /// The time-zone data changed (a tzdata update).
  case timeZoneData = "tzdata"
}

/// One local day's solar events at the regeneration point.
public struct SolarDaySummary: Sendable, Hashable {
  /// The local date.
  public var date: CivilDate
  /// Each standard event with when it happens or why not, in the order of a day.
  public var events: [Entry]

  /// One event of the day.
  public struct Entry: Sendable, Hashable {
    /// The event.
    public var event: SolarEvent
    /// When, or why not.
    public var occurrence: SolarDay.Occurrence
  }

  /// The summary of a computed day, for `events` (those it was computed for, by default).
  public init(_ day: SolarDay, events wanted: [SolarEvent]? = nil) {
    date = day.date
    let wanted = wanted ?? day.events
    events = wanted.compactMap { e in day[e].map { Entry(event: e, occurrence: $0) } }
  }
}

/// The solar days before and after a regeneration (the `solar-regenerated` event).
public struct SolarRegeneration: Sendable, Hashable {
  /// Why.
  public var reason: RegenerationReason
  /// The zone whose local days these are.
  public var zone: String
  /// Today and tomorrow before (empty when there was no position).
  public var before: [SolarDaySummary]
  /// Today and tomorrow now (empty without a position).
  public var after: [SolarDaySummary]
}

/// A change of the time zone in effect or of its UTC offset (the `timezone-changed` event).
public struct ZoneChange: Sendable, Hashable {
  /// Before (nil at the first decision).
  public var from: ZoneReport?
  /// Now.
  public var to: ZoneReport
  /// Why: "position", "utc-offset" (a daylight-saving transition), "manual-location",
  /// "configuration", ...
  public var reason: RegenerationReason
}
