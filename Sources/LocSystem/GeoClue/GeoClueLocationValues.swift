import LocCore

/// The properties of one org.freedesktop.GeoClue2.Location object, with GeoClue's values for
/// "unknown" (gclue-location.h: GCLUE_LOCATION_ALTITUDE_UNKNOWN is -G_MAXDOUBLE,
/// GCLUE_LOCATION_ACCURACY_UNKNOWN, GCLUE_LOCATION_SPEED_UNKNOWN and
/// GCLUE_LOCATION_HEADING_UNKNOWN are -1). Plain doubles because this is the bus's shape;
/// the typed position they come from stays in `coordinate` and `time`.
public struct GeoClueLocationValues: Sendable, Hashable {
  /// Where, typed (Latitude and Longitude on the bus).
  public var coordinate: Coordinate
  /// Accuracy radius in metres, or -1 when unknown.
  public var accuracy: Double
  /// Altitude in metres, or -Double.greatestFiniteMagnitude when unknown.
  public var altitude: Double
  /// Speed in m/s, or -1 when unknown.
  public var speed: Double
  /// Heading in degrees clockwise from north, or -1 when unknown.
  public var heading: Double
  /// A description: the manual location's name, else what the position came from
  /// (`gnss`, `wifi`, `ip`, `static`, `manual`, `cached`: protocol's `provenance`).
  public var description: String
  /// When the position was measured (Timestamp: seconds and microseconds since the epoch).
  public var time: Instant

  /// GeoClue's unknown altitude.
  public static let unknownAltitude = -Double.greatestFiniteMagnitude
  /// GeoClue's unknown accuracy, speed and heading.
  public static let unknown = -1.0

  /// The values for a resolved position, or nil when there is none (degraded mode: nothing
  /// is signalled). Speed and heading come from `fix` only when it is the fix the position
  /// was made from.
  public init?(_ resolved: ResolvedPosition, fix: Fix?) {
    guard let position = resolved.position else { return nil }
    coordinate = position.coordinate
    accuracy = position.accuracy?.value ?? Self.unknown
    altitude = position.altitude?.value ?? Self.unknownAltitude
    time = position.time
    let sameFix = resolved.tier == .fix && fix?.time == position.time ? fix : nil
    speed = sameFix?.speed.map(\.value) ?? Self.unknown
    heading = sameFix?.course.map(\.value) ?? Self.unknown
    description = position.name ?? resolved.provenance?.rawValue ?? ""
  }

  /// Below this speed (m/s) the device is still: its course over ground is noise.
  public static let stillSpeed = 0.5

  /// These values with Heading from the compass (`degrees` from magnetic north; nil: none)
  /// where the course says nothing: unknown, or the device still (speed known and below
  /// `stillSpeed`), as geoclue does with iio-sensor-proxy's compass. A moving device keeps
  /// its course over ground.
  public func withCompass(_ degrees: Double?) -> GeoClueLocationValues {
    guard let degrees else { return self }
    let still = speed != Self.unknown && speed < Self.stillSpeed
    guard heading == Self.unknown || still else { return self }
    var v = self
    v.heading = degrees
    return v
  }

  /// Timestamp's two halves: whole seconds and the microseconds past them (GeoClue itself
  /// sends 0 microseconds; locd sends what it knows).
  public var timestamp: (seconds: UInt64, microseconds: UInt64) {
    let us = max(0, time.microsecondsSinceEpoch)
    return (UInt64(us / 1_000_000), UInt64(us % 1_000_000))
  }
}
