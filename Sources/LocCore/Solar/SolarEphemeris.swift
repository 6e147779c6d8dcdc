/// The Sun's apparent geocentric place (true equator and equinox of date) at an instant of TT,
/// after J. Meeus, "Astronomical Algorithms", 2nd ed. (1998): chapter 25 "higher accuracy"
/// (VSOP87 Earth, FK5 correction, aberration), chapter 22 (nutation, IAU 1980 theory, its 13
/// largest terms) and formula 22.2 (obliquity).
enum SolarEphemeris {
  /// Apparent right ascension and declination, distance and the equation of the equinoxes.
  struct Place {
    /// Apparent right ascension, radians in (-pi, pi].
    var rightAscension: Double
    /// Apparent declination, radians.
    var declination: Double
    /// Its sine and cosine (computed anyway on the way).
    var sinDeclination: Double
    var cosDeclination: Double
    /// Earth-Sun distance, au.
    var distance: Double
    /// Nutation in right ascension (Delta psi cos epsilon), radians: GAST - GMST.
    var equationOfEquinoxes: Double
  }

  static let arcsecond = Double.pi / 648_000
  static let degree = Double.pi / 180

  /// The Sun's place at `julianCenturiesTT` (Julian centuries of TT since J2000.0).
  static func place(julianCenturiesTT t: Double) -> Place {
    place(julianCenturiesTT: t, nutation: nutation(julianCenturiesTT: t))
  }

  /// The Sun's place with a given nutation (in longitude, in obliquity; radians), which changes
  /// by under 0.1" a day, so that one evaluation serves a day.
  static func place(julianCenturiesTT t: Double, nutation: (longitude: Double, obliquity: Double)) -> Place {
    place(
      julianCenturiesTT: t, heliocentric: VSOP87Earth.heliocentric(millenniaTT: t / 10), nutation: nutation)
  }

  /// The places 13 hours before `t`, at `t` and 13 hours after (`VSOP87Earth.tripleHalfSpan`),
  /// with the nutation at `t`.
  static func triple(julianCenturiesTT t: Double) -> (Place, Place, Place) {
    let nutation = nutation(julianCenturiesTT: t)
    let helio = VSOP87Earth.heliocentricTriple(millenniaTT: t / 10)
    let h = VSOP87Earth.tripleHalfSpan * 10
    return (
      place(julianCenturiesTT: t - h, heliocentric: helio.minus, nutation: nutation),
      place(julianCenturiesTT: t, heliocentric: helio.middle, nutation: nutation),
      place(julianCenturiesTT: t + h, heliocentric: helio.plus, nutation: nutation)
    )
  }

  /// The apparent place from the Earth's heliocentric coordinates at `t`.
  static func place(
    julianCenturiesTT t: Double, heliocentric helio: (longitude: Double, latitude: Double, distance: Double),
    nutation: (longitude: Double, obliquity: Double)
  ) -> Place {
    // Geocentric: the opposite direction.
    let longitude = helio.longitude + .pi - 0.090_33 * arcsecond
    let (deltaPsi, deltaEpsilon) = nutation
    // Meeus 22.2 (IAU 1980 mean obliquity), seconds of arc.
    let epsilon0 = (84_381.448 + t * (-46.8150 + t * (-0.000_59 + t * 0.001_813))) * arcsecond
    let epsilon = epsilon0 + deltaEpsilon
    // Meeus 25.10: annual aberration, -20.4898"/R (includes light time).
    let apparentLongitude = longitude + deltaPsi - 20.4898 * arcsecond / helio.distance
    let sinL = Maths.sin(apparentLongitude)
    let cosL = Maths.cos(apparentLongitude)
    // Meeus 25.9: from the VSOP87 dynamical frame to FK5, with lambda' = lambda - 1.397 T deg.
    // lambda' is formed from the apparent longitude (20" off the geometric one: an error of
    // 1e-5 of a 0.039" correction), and the latitude (under 1.2") is small enough that its
    // tangent, sine and cosine are beta, beta and 1 to 1e-16.
    let shift = (1.397 * t + 0.000_31 * t * t) * degree
    let cosShift = 1 - shift * shift / 2
    let cosLambdaPrime = cosL * cosShift + sinL * shift
    let sinLambdaPrime = sinL * cosShift - cosL * shift
    let latitude = -helio.latitude + 0.039_16 * arcsecond * (cosLambdaPrime - sinLambdaPrime)
    let sinE = Maths.sin(epsilon)
    let cosE = Maths.cos(epsilon)
    let ra = Maths.atan2(sinL * cosE - latitude * sinE, cosL)
    let sinDec = latitude * cosE + sinE * sinL
    // |declination| < 24 degrees: the cosine is the positive root.
    let cosDec = (1 - sinDec * sinDec).squareRoot()
    return Place(
      rightAscension: ra, declination: Maths.asin(sinDec), sinDeclination: sinDec, cosDeclination: cosDec,
      distance: helio.distance, equationOfEquinoxes: deltaPsi * cosE)
  }

  /// Nutation in longitude and obliquity (radians), IAU 1980 theory (Meeus table 22.A): the 13
  /// terms of 0.01" or more; the other 93 add up to under 0.1" at worst.
  static func nutation(julianCenturiesTT t: Double) -> (longitude: Double, obliquity: Double) {
    // Meeus 22: fundamental arguments, degrees.
    let t2 = t * t
    let t3 = t2 * t
    let d = (297.850_36 + 445_267.111_480 * t - 0.001_914_2 * t2 + t3 / 189_474) * degree
    let m = (357.527_72 + 35_999.050_340 * t - 0.000_160_3 * t2 - t3 / 300_000) * degree
    let mp = (134.962_98 + 477_198.867_398 * t + 0.008_697_2 * t2 + t3 / 56_250) * degree
    let f = (93.271_91 + 483_202.017_538 * t - 0.003_682_5 * t2 + t3 / 327_270) * degree
    let omega = (125.044_52 - 1_934.136_261 * t + 0.002_070_8 * t2 + t3 / 450_000) * degree
    var psi = 0.0
    var eps = 0.0
    var i = 0
    let terms = nutationTerms
    while i < terms.count {
      var arg = terms[i] * d + terms[i + 1] * m + terms[i + 2] * mp + terms[i + 3] * f + terms[i + 4] * omega
      // One libm call per term: the cosine from the sine, its sign from the reduced argument.
      arg -= 2 * .pi * SolarTrack.roundedToInteger(arg / (2 * .pi))
      let sinArg = Maths.sin(arg)
      let cosMagnitude = (1 - sinArg * sinArg).squareRoot()
      let cosArg = abs(arg) <= .pi / 2 ? cosMagnitude : -cosMagnitude
      psi += (terms[i + 5] + terms[i + 6] * t) * sinArg
      eps += (terms[i + 7] + terms[i + 8] * t) * cosArg
      i += 9
    }
    // Units of 0.0001".
    return (psi * 1e-4 * arcsecond, eps * 1e-4 * arcsecond)
  }

  /// Meeus table 22.A: multiples of D, M, M', F, Omega; Delta psi = (a + b T) sin(arg),
  /// Delta epsilon = (c + d T) cos(arg), in 0.0001".
  static let nutationTerms: [Double] = [
    0, 0, 0, 0, 1, -171_996, -174.2, 92_025, 8.9,
    -2, 0, 0, 2, 2, -13_187, -1.6, 5_736, -3.1,
    0, 0, 0, 2, 2, -2_274, -0.2, 977, -0.5,
    0, 0, 0, 0, 2, 2_062, 0.2, -895, 0.5,
    0, 1, 0, 0, 0, 1_426, -3.4, 54, -0.1,
    0, 0, 1, 0, 0, 712, 0.1, -7, 0,
    -2, 1, 0, 2, 2, -517, 1.2, 224, -0.6,
    0, 0, 0, 2, 1, -386, -0.4, 200, 0,
    0, 0, 1, 2, 2, -301, 0, 129, -0.1,
    -2, -1, 0, 2, 2, 217, -0.5, -95, 0.3,
    -2, 0, 1, 0, 0, -158, 0, 0, 0,
    -2, 0, 0, 2, 1, 129, 0.1, -70, 0,
    0, 0, -1, 2, 2, 123, 0, -53, 0,
  ]
}
