/// A WGS84 latitude/longitude pair, north and east positive.
public struct Coordinate: Hashable, Sendable {
  /// Latitude, -90...90.
  public var latitude: Degrees
  /// Longitude, -180...180.
  public var longitude: Degrees

  /// A coordinate; `nil` when the latitude is outside -90...90, the longitude outside
  /// -180...180, or either is not finite. Input is never wrapped or clamped.
  public init?(latitude: Degrees, longitude: Degrees) {
    guard latitude.value.isFinite, longitude.value.isFinite,
      (-90.0...90.0).contains(latitude.value), (-180.0...180.0).contains(longitude.value)
    else { return nil }
    self.latitude = latitude
    self.longitude = longitude
  }

  /// A coordinate from plain degrees; `nil` when out of range.
  public init?(lat: Double, lon: Double) {
    self.init(latitude: Degrees(lat), longitude: Degrees(lon))
  }

  /// Mean Earth radius (IUGG R1 = (2a + b) / 3 for WGS84), used for great-circle distances.
  public static let meanEarthRadius = Meters(6_371_008.8)

  /// Great-circle distance (haversine on the mean sphere; within 0.5% of the ellipsoid).
  public func distance(to other: Coordinate) -> Meters {
    let phi1 = latitude.radians
    let phi2 = other.latitude.radians
    let dPhi = phi2 - phi1
    let dLambda = (other.longitude.value - longitude.value) * .pi / 180
    let a =
      Maths.sin(dPhi / 2) * Maths.sin(dPhi / 2) + Maths.cos(phi1) * Maths.cos(phi2) * Maths.sin(dLambda / 2)
      * Maths.sin(dLambda / 2)
    let c = 2 * Maths.atan2(a.squareRoot(), (1 - a).squareRoot())
    return Meters(Coordinate.meanEarthRadius.value * c)
  }

  /// The point reached by going `distance` along the great circle with initial `bearing`
  /// (clockwise from north).
  public func destination(distance: Meters, bearing: Degrees) -> Coordinate {
    let delta = distance.value / Coordinate.meanEarthRadius.value
    let theta = bearing.radians
    let phi1 = latitude.radians
    let lambda1 = longitude.radians
    let phi2 = Maths.asin(
      Maths.sin(phi1) * Maths.cos(delta) + Maths.cos(phi1) * Maths.sin(delta) * Maths.cos(theta))
    let lambda2 =
      lambda1
      + Maths.atan2(
        Maths.sin(theta) * Maths.sin(delta) * Maths.cos(phi1),
        Maths.cos(delta) - Maths.sin(phi1) * Maths.sin(phi2))
    var lon = lambda2 * 180 / .pi
    lon = (lon + 540).truncatingRemainder(dividingBy: 360) - 180
    return Coordinate(latitude: Degrees(min(90, max(-90, phi2 * 180 / .pi))), longitude: Degrees(lon))!
  }
}
