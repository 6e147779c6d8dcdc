/// Data the engine looks things up in, loaded by the shell: the zone at a coordinate (the
/// boundary data), the zone rules (TZif bytes per zone) and the system's zone.
/// Deterministic; no clocks, no I/O of their own.
public struct EngineEnvironment: Sendable {
  /// The zone at a coordinate, if boundary data is loaded.
  public var zoneAt: @Sendable (Coordinate) -> String?
  /// The zones' TZif data as the shell read it (replaced by `EngineEvent.timeZoneDataChanged`).
  public var zones: ZoneCatalog
  /// The zone of the system, used when no position-derived or configured zone exists.
  public var systemZone: String
  /// An estimate of the distance from a coordinate to the nearest zone border, if the
  /// boundary data can give one (nil: it cannot, or not here).
  public var borderDistance: (@Sendable (Coordinate) -> Meters?)? = nil

  /// An environment; by default without boundary data and with only UTC's rules (built in).
  public init(
    systemZone: String = "UTC", zones: ZoneCatalog = ZoneCatalog(),
    zoneAt: @escaping @Sendable (Coordinate) -> String? = { _ in nil }
  ) {
    self.systemZone = systemZone
    self.zones = zones
    self.zoneAt = zoneAt
  }
}
