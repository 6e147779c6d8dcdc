/// What a time zone's clocks show during one period: the offset from UTC, whether it counts as
/// daylight-saving time, and the abbreviation (TZif "local time type", RFC 8536 §3.2).
public struct LocalTimeType: Hashable, Sendable {
  /// Seconds to add to UTC to get the local wall time (east positive: CET is +3600).
  public var utcOffsetSeconds: Int
  /// Whether this is daylight-saving time.
  public var isDaylightSaving: Bool
  /// The abbreviation, e.g. "CEST" or "+0545".
  public var abbreviation: String

  /// A local time type.
  public init(utcOffsetSeconds: Int, isDaylightSaving: Bool, abbreviation: String) {
    self.utcOffsetSeconds = utcOffsetSeconds
    self.isDaylightSaving = isDaylightSaving
    self.abbreviation = abbreviation
  }
}
