import LocCore

#if canImport(Glibc)
  import Glibc
#endif

/// Deterministic GPS-like noise for the region and visit tests: a slow wander (first-order
/// Gauss-Markov, the usual model of a receiver's correlated error) plus white noise, per
/// axis, from a seeded generator, so every run sees the same trace.
struct GPSNoise {
  var rng: SplitMix64
  /// Standard deviation of the wander, per axis, metres.
  var sigma: Double
  /// Correlation time of the wander, seconds.
  var tau: Double
  /// Standard deviation of the white noise, per axis, metres.
  var white: Double
  private var east = 0.0
  private var north = 0.0

  init(seed: UInt64, sigma: Double, tau: Double, white: Double) {
    rng = SplitMix64(seed: seed)
    self.sigma = sigma
    self.tau = tau
    self.white = white
  }

  /// A standard normal deviate (Box-Muller).
  mutating func gaussian() -> Double {
    let u = Double.random(in: Double.ulpOfOne..<1, using: &rng)
    let v = Double.random(in: 0..<1, using: &rng)
    return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
  }

  /// The error after `dt` seconds more: (east, north) in metres.
  mutating func step(_ dt: Double) -> (Double, Double) {
    let a = exp(-dt / tau)
    let b = sigma * (1 - a * a).squareRoot()
    east = a * east + b * gaussian()
    north = a * north + b * gaussian()
    return (east + white * gaussian(), north + white * gaussian())
  }

  /// The 68% radius of this noise (what `Fix.horizontalAccuracy` means) for a circular
  /// two-dimensional normal error: 1.51 sigma per axis, sqrt(-2 ln 0.32) (the Rayleigh
  /// distribution's quantile).
  var accuracy68: Double { 1.51 * (sigma * sigma + white * white).squareRoot() }

  /// `c` moved by an (east, north) offset in metres.
  static func offset(_ c: Coordinate, _ e: (Double, Double)) -> Coordinate {
    let d = (e.0 * e.0 + e.1 * e.1).squareRoot()
    return c.destination(distance: Meters(d), bearing: Degrees(radians: atan2(e.0, e.1)))
  }
}
