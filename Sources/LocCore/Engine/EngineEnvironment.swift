/// Data the engine looks things up in: pure functions over loaded data (time-zone
/// boundaries, zone rules). Deterministic; no clocks, no I/O of their own.
public struct EngineEnvironment: Sendable {
  /// The zone at a coordinate, if boundary data is loaded.
  public var zoneAt: @Sendable (Coordinate) -> String?
  /// The rules of a zone by IANA name, if known.
  public var rules: @Sendable (String) -> ZoneRules?
  /// The zone of the system, used when no position-derived or configured zone exists.
  public var systemZone: String
  /// An estimate of the distance from a coordinate to the nearest zone border, if the
  /// boundary data can give one (nil: it cannot, or not here).
  public var borderDistance: (@Sendable (Coordinate) -> Meters?)? = nil

  /// An environment; by default without boundary data and with only UTC's rules.
  public init(
    systemZone: String = "UTC",
    zoneAt: @escaping @Sendable (Coordinate) -> String? = { _ in nil },
    rules: @escaping @Sendable (String) -> ZoneRules? = { $0 == "UTC" ? ZoneRules.utc : nil }
  ) {
    self.systemZone = systemZone
    self.zoneAt = zoneAt
    self.rules = rules
  }
}
