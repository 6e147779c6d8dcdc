/// The Sun's apparent place over an interval of up to about two days, from three evaluations of
/// the full series (start, middle, end) and quadratic interpolation between them.
///
/// The Sun moves about 1 degree a day and its path curves slowly: the interpolation error over
/// 30 hours is below 0.01" in right ascension and declination (the third derivative of the
/// Sun's place is about 1e-4 degree per day cubed), so the events cost a few multiplications
/// per step instead of a few hundred cosines.
struct SolarTrack {
  /// Middle of the interval, microseconds since the Unix epoch.
  let middle: Int64
  /// Half the interval in seconds (> 0).
  let half: Double
  /// 1 / half, and 1 / (half in microseconds): multiplications in the hot path, not divisions.
  let perSecond: Double
  let perMicrosecond: Double
  // Quadratic coefficients in x = (t - middle) / half for right ascension (unwrapped, radians),
  // declination (radians) and its sine and cosine (interpolating those saves a sincos per step,
  // with the same sub-0.01" error). The equation of the equinoxes and the parallax change too
  // slowly to matter over the interval and are taken at the middle.
  let ra0, ra1, ra2: Double
  let dec0, dec1, dec2: Double
  let sin0, sin1, sin2: Double
  let cos0, cos1, cos2: Double
  /// GAST - GMST at the middle, radians.
  let equationOfEquinoxes: Double
  /// Greenwich apparent sidereal time at the middle, radians; over the interval it advances at
  /// the sidereal rate (the quadratic term of GMST is 1e-13 radian a day).
  let siderealTimeAtMiddle: Double
  /// Horizontal parallax of the Sun (8.794148"/R, IAU 1976), radians.
  let parallax: Double

  /// A track from `start` to `end` (at least a second apart).
  init(from start: Instant, to end: Instant) {
    let span = max(end.microsecondsSinceEpoch - start.microsecondsSinceEpoch, 2_000_000)
    let mid = Instant(microsecondsSinceEpoch: start.microsecondsSinceEpoch + span / 2)
    let tMid = TimeScales.julianCenturiesTT(mid)
    let fixedHalf = VSOP87Earth.tripleHalfSpan * 365_250 * 86_400
    if Double(span) / 2_000_000 <= fixedHalf {
      // The usual case (a local day): the three places 13 hours apart, in one pass of the series.
      self.init(middle: mid, half: fixedHalf, places: SolarEphemeris.triple(julianCenturiesTT: tMid))
    } else {
      let half = Double(span / 2) / 1_000_000
      let tHalf = half / 86_400 / 36_525
      // Nutation changes by under 0.1" a day: one evaluation serves the three places.
      let nutation = SolarEphemeris.nutation(julianCenturiesTT: tMid)
      let places = (
        SolarEphemeris.place(julianCenturiesTT: tMid - tHalf, nutation: nutation),
        SolarEphemeris.place(julianCenturiesTT: tMid, nutation: nutation),
        SolarEphemeris.place(julianCenturiesTT: tMid + tHalf, nutation: nutation)
      )
      self.init(middle: mid, half: half, places: places)
    }
  }

  /// A track through three places at `middle - half`, `middle` and `middle + half` (seconds).
  private init(
    middle mid: Instant, half: Double,
    places: (SolarEphemeris.Place, SolarEphemeris.Place, SolarEphemeris.Place)
  ) {
    let (a, b, c) = places
    middle = mid.microsecondsSinceEpoch
    self.half = half
    perSecond = 1 / half
    perMicrosecond = 1 / (half * 1_000_000)
    // Unwrap right ascension around the middle value.
    let raA = b.rightAscension + SolarTrack.wrap(a.rightAscension - b.rightAscension)
    let raC = b.rightAscension + SolarTrack.wrap(c.rightAscension - b.rightAscension)
    (ra0, ra1, ra2) = SolarTrack.quadratic(raA, b.rightAscension, raC)
    (dec0, dec1, dec2) = SolarTrack.quadratic(a.declination, b.declination, c.declination)
    (sin0, sin1, sin2) = SolarTrack.quadratic(a.sinDeclination, b.sinDeclination, c.sinDeclination)
    (cos0, cos1, cos2) = SolarTrack.quadratic(a.cosDeclination, b.cosDeclination, c.cosDeclination)
    equationOfEquinoxes = b.equationOfEquinoxes
    siderealTimeAtMiddle = SolarTrack.meanSiderealTime(microseconds: middle) + b.equationOfEquinoxes
    parallax = 8.794_148 * SolarEphemeris.arcsecond / b.distance
  }

  /// Coefficients (c0, c1, c2) of c0 + c1 x + c2 x^2 through (-1, a), (0, b), (1, c).
  static func quadratic(_ a: Double, _ b: Double, _ c: Double) -> (Double, Double, Double) {
    (b, (c - a) / 2, (a + c) / 2 - b)
  }

  /// The Sun's place and its rates at `t` (microseconds since the Unix epoch).
  struct Point {
    /// Right ascension, radians (unwrapped).
    var ra: Double
    /// d(right ascension)/dt, radians per second.
    var raRate: Double
    var sinDec: Double
    var cosDec: Double
    /// d(declination)/dt, radians per second.
    var decRate: Double
  }

  /// The interpolated place at `t`.
  @inline(__always)
  func place(at t: Int64) -> Point {
    let x = Double(t &- middle) * perMicrosecond
    return Point(
      ra: ra0 + x * (ra1 + x * ra2), raRate: (ra1 + 2 * x * ra2) * perSecond,
      sinDec: sin0 + x * (sin1 + x * sin2), cosDec: cos0 + x * (cos1 + x * cos2),
      decRate: (dec1 + 2 * x * dec2) * perSecond)
  }

  /// The Sun's hour angle at `t` for east longitude `longitude` (radians, not reduced) and its
  /// rate (radians per second): no trigonometry, so transits cost almost nothing.
  @inline(__always)
  func hourAngle(at t: Int64, longitude: Double) -> (angle: Double, rate: Double) {
    let x = Double(t &- middle) * perMicrosecond
    let ra = ra0 + x * (ra1 + x * ra2)
    return (
      apparentSiderealTime(at: t) + longitude - ra, SolarTrack.siderealRate - (ra1 + 2 * x * ra2) * perSecond
    )
  }

  /// Greenwich apparent sidereal time at `t` (radians, not reduced).
  @inline(__always)
  func apparentSiderealTime(at t: Int64) -> Double {
    siderealTimeAtMiddle + SolarTrack.siderealRate * 1e-6 * Double(t &- middle)
  }

  /// Greenwich mean sidereal time (Meeus 12.4, IAU 1982), UT1 = UTC, radians in [0, 2 pi).
  static func meanSiderealTime(microseconds t: Int64) -> Double {
    // Days since J2000.0 (2000-01-01T12:00 UT), split so that 360 * d keeps its precision.
    let fromJ2000 = t - 946_728_000_000_000
    let perDay: Int64 = 86_400_000_000
    let whole = fromJ2000 >= 0 ? fromJ2000 / perDay : -((-fromJ2000 + perDay - 1) / perDay)
    let fraction = Double(fromJ2000 - whole * perDay) / Double(perDay)
    let d = Double(whole) + fraction
    let c = d / 36_525
    var degrees = 280.460_618_37 + 360 * fraction + 0.985_647_366_29 * d
    degrees += c * c * (0.000_387_933 - c / 38_710_000)
    degrees -= 360 * roundedToInteger(degrees / 360 - 0.5)
    return degrees * .pi / 180
  }

  /// Sidereal rate of the Earth's rotation, radians per second of UT1 (360.98564736629 deg/day).
  static let siderealRate = 360.985_647_366_29 / 86_400 * .pi / 180

  /// The nearest integer to `x` (|x| < 2^62), without the libm call that `rounded()` becomes on
  /// baseline x86-64.
  @inline(__always)
  static func roundedToInteger(_ x: Double) -> Double {
    Double(Int64(x + (x >= 0 ? 0.5 : -0.5)))
  }

  /// An angle reduced to [-pi, pi].
  @inline(__always)
  static func wrap(_ angle: Double) -> Double {
    angle - 2 * .pi * roundedToInteger(angle / (2 * .pi))
  }
}
