/// Data the engine looks things up in. Pure functions over loaded data (time-zone
/// boundaries, zone rules, solar model): deterministic, no clocks, no I/O.
public struct EngineEnvironment: Sendable {
  /// The zone at a coordinate, if boundary data is loaded.
  public var zoneAt: @Sendable (Coordinate) -> String?
  /// The zone of the system, used when no position-derived or configured zone exists.
  public var systemZone: String
  /// UTC offset (seconds east) and abbreviation of a zone at an instant, if its rules are known.
  public var zoneOffset: @Sendable (String, Instant) -> (seconds: Int, abbreviation: String)?
  /// Today's sunrise and sunset at a coordinate for the local day (in `zone`) containing
  /// the instant.
  public var sunToday: @Sendable (Coordinate, String, Instant) -> SunReport?

  /// An environment; by default without boundary data, rules or solar model.
  public init(
    systemZone: String = "UTC",
    zoneAt: @escaping @Sendable (Coordinate) -> String? = { _ in nil },
    zoneOffset: @escaping @Sendable (String, Instant) -> (seconds: Int, abbreviation: String)? = { _, _ in nil },
    sunToday: @escaping @Sendable (Coordinate, String, Instant) -> SunReport? = { _, _, _ in nil }
  ) {
    self.systemZone = systemZone
    self.zoneAt = zoneAt
    self.zoneOffset = zoneOffset
    self.sunToday = sunToday
  }
}
