/// A circular region an app monitors (CLCircularRegion, Android's Geofence): a centre, a
/// radius, and which events the app wants. Valid by construction.
public struct CircularRegion: Hashable, Sendable {
  /// The smallest radius accepted. Smaller circles are inside one fix's accuracy.
  public static let minRadius = Meters(10)
  /// The largest radius accepted (100 km, the bound; the spatial index's top level
  /// is sized for it).
  public static let maxRadius = Meters(100_000)
  /// The shortest dwell time accepted.
  public static let minDwell = Duration.seconds(1)
  /// The longest dwell time accepted.
  public static let maxDwell = Duration.seconds(24 * 3600)

  /// The app's name for it.
  public let id: RegionID
  /// The centre.
  public let centre: Coordinate
  /// The radius, great-circle metres on the mean sphere (`Coordinate.distance`).
  public let radius: Meters
  /// Deliver an event when the device enters.
  public let notifyOnEntry: Bool
  /// Deliver an event when the device leaves.
  public let notifyOnExit: Bool
  /// Deliver an event once the device has stayed inside this long (nil: no dwell event).
  public let dwell: Duration?

  /// A region from checked parts; throws when the radius or the dwell time is out of range.
  public init(
    id: RegionID, centre: Coordinate, radius: Meters, notifyOnEntry: Bool = true,
    notifyOnExit: Bool = true, dwell: Duration? = nil
  ) throws(RegionError) {
    try CircularRegion.check(radius: radius)
    if let dwell {
      guard dwell >= CircularRegion.minDwell, dwell <= CircularRegion.maxDwell else {
        throw .invalidDwell("a dwell time must be within 1 s and 24 h")
      }
    }
    self.id = id
    self.centre = centre
    self.radius = radius
    self.notifyOnEntry = notifyOnEntry
    self.notifyOnExit = notifyOnExit
    self.dwell = dwell
  }

  /// A region from raw request values: the id, the centre in degrees and the radius are
  /// all checked, each with its own error.
  public init(
    id: String, latitude: Double, longitude: Double, radius: Double, notifyOnEntry: Bool = true,
    notifyOnExit: Bool = true, dwell: Duration? = nil
  ) throws(RegionError) {
    let regionID = try RegionID(id)
    guard latitude.isFinite, (-90.0...90.0).contains(latitude) else {
      throw .invalidCentre("a region centre's latitude must be a number within -90...90")
    }
    guard longitude.isFinite, (-180.0...180.0).contains(longitude) else {
      throw .invalidCentre("a region centre's longitude must be a number within -180...180")
    }
    try self.init(
      id: regionID, centre: Coordinate(lat: latitude, lon: longitude)!, radius: Meters(radius),
      notifyOnEntry: notifyOnEntry, notifyOnExit: notifyOnExit, dwell: dwell)
  }

  /// A dwell time given in seconds (a request's or a stored region's number), checked
  /// before it becomes a `Duration`: `Duration.seconds(Double)` traps on values beyond
  /// about 1.7e20 s, so the range comes first.
  public static func dwell(seconds: Double) throws(RegionError) -> Duration {
    let lo = Double(minDwell.components.seconds)
    let hi = Double(maxDwell.components.seconds)
    guard seconds.isFinite, seconds >= lo, seconds <= hi else {
      throw .invalidDwell("a dwell time must be within 1 s and 24 h")
    }
    return .seconds(seconds)
  }

  /// Throws unless `radius` is a finite number within `minRadius...maxRadius`.
  static func check(radius: Meters) throws(RegionError) {
    let r = radius.value
    guard !r.isNaN else { throw .invalidRadius("a region radius must be a number, not NaN") }
    guard r.isFinite else { throw .invalidRadius("a region radius must be finite") }
    guard r >= minRadius.value else {
      throw .invalidRadius("a region radius of \(r) m is below the minimum of 10 m")
    }
    guard r <= maxRadius.value else {
      throw .invalidRadius("a region radius of \(r) m is above the maximum of 100 km")
    }
  }
}
