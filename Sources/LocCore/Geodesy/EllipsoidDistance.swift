extension Coordinate {
  /// WGS84's semi-major axis, metres, and its flattening (NIMA TR8350.2, 3.2).
  static let wgs84SemiMajor = 6_378_137.0
  static let wgs84Flattening = 1 / 298.257223563

  /// The distance to `other` along the WGS84 ellipsoid, by Vincenty's inverse formula (T.
  /// Vincenty, "Direct and inverse solutions of geodesics on the ellipsoid", Survey Review
  /// XXIII, 176, 1975), iterated until λ moves less than 1e-12: millimetres where `distance`
  /// (a sphere) is off by up to 0.5 %. The gpsd face needs it because gpsd measures so (a speed
  /// from two positions, the track error). Nil where the iteration does not settle (nearly
  /// antipodal points); 0 for the same point.
  public func ellipsoidDistance(to other: Coordinate) -> Meters? {
    let a = Coordinate.wgs84SemiMajor
    let f = Coordinate.wgs84Flattening
    let b = a * (1 - f)
    let radians = Double.pi / 180
    let l = (other.longitude.value - longitude.value) * radians
    let u1 = Maths.atan((1 - f) * Maths.tan(latitude.value * radians))
    let u2 = Maths.atan((1 - f) * Maths.tan(other.latitude.value * radians))
    let (sinU1, cosU1, sinU2, cosU2) = (Maths.sin(u1), Maths.cos(u1), Maths.sin(u2), Maths.cos(u2))
    var lambda = l
    var sinSigma = 0.0
    var cosSigma = 0.0
    var sigma = 0.0
    var cosSquaredAlpha = 0.0
    var cos2SigmaM = 0.0
    for _ in 0..<100 {
      let sinLambda = Maths.sin(lambda)
      let cosLambda = Maths.cos(lambda)
      let p = cosU2 * sinLambda
      let q = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda
      sinSigma = (p * p + q * q).squareRoot()
      guard sinSigma != 0 else { return Meters(0) }
      cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
      sigma = Maths.atan2(sinSigma, cosSigma)
      let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
      cosSquaredAlpha = 1 - sinAlpha * sinAlpha
      // On the equator cos²α is 0 and the term is not defined: it is 0.
      cos2SigmaM = cosSquaredAlpha == 0 ? 0 : cosSigma - 2 * sinU1 * sinU2 / cosSquaredAlpha
      let c = f / 16 * cosSquaredAlpha * (4 + f * (4 - 3 * cosSquaredAlpha))
      let previous = lambda
      lambda =
        l + (1 - c) * f * sinAlpha
        * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (2 * cos2SigmaM * cos2SigmaM - 1)))
      if abs(lambda - previous) <= 1e-12 {
        let uSquared = cosSquaredAlpha * (a * a - b * b) / (b * b)
        let bigA = 1 + uSquared / 16384 * (4096 + uSquared * (-768 + uSquared * (320 - 175 * uSquared)))
        let bigB = uSquared / 1024 * (256 + uSquared * (-128 + uSquared * (74 - 47 * uSquared)))
        let deltaSigma =
          bigB * sinSigma
          * (cos2SigmaM + bigB / 4
            * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM) - bigB / 6 * cos2SigmaM
              * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
        return Meters(b * bigA * (sigma - deltaSigma))
      }
    }
    return nil
  }
}
