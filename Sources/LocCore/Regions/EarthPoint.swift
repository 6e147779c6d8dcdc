/// A point of the mean sphere in Earth-centred Cartesian metres (x towards 0°N 0°E, z
/// towards the North Pole). The spatial index works here because it has no poles and no
/// antimeridian: a region is a ball around its centre, whatever its latitude.
///
/// The straight-line (chord) distance between two points never exceeds their great-circle
/// distance, so "chord > d" proves "great circle > d": the index may prune with chords and
/// still find every region the exact rule would pick.
struct EarthPoint: Hashable, Sendable {
  var x: Double
  var y: Double
  var z: Double

  /// The point of a coordinate, on the sphere of `Coordinate.meanEarthRadius`.
  init(_ c: Coordinate) {
    let phi = c.latitude.radians
    let lambda = c.longitude.radians
    let r = Coordinate.meanEarthRadius.value
    x = r * Maths.cos(phi) * Maths.cos(lambda)
    y = r * Maths.cos(phi) * Maths.sin(lambda)
    z = r * Maths.sin(phi)
  }

  /// A point from its parts.
  init(x: Double, y: Double, z: Double) {
    self.x = x
    self.y = y
    self.z = z
  }

  /// The squared chord distance to another point, in square metres.
  @inline(__always) func chordSquared(_ o: EarthPoint) -> Double {
    let dx = x - o.x
    let dy = y - o.y
    let dz = z - o.z
    return dx * dx + dy * dy + dz * dz
  }

  /// The coordinate of a point (at any distance from the centre; only its direction counts);
  /// `nil` for the origin.
  var coordinate: Coordinate? {
    let h = (x * x + y * y).squareRoot()
    guard h > 0 || z != 0 else { return nil }
    let lat = Maths.atan2(z, h) * 180 / .pi
    let lon = h > 0 ? Maths.atan2(y, x) * 180 / .pi : 0
    return Coordinate(lat: min(90, max(-90, lat)), lon: min(180, max(-180, lon)))
  }
}
