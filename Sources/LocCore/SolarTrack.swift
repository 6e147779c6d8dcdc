#if canImport(Glibc)
  import Glibc
#endif

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
  // Quadratic coefficients in x = (t - middle) / half, for right ascension (unwrapped) and
  // declination (radians); the equation of the equinoxes and the parallax change too slowly
  // to matter over the interval and are taken at the middle.
  let ra0, ra1, ra2: Double
  let dec0, dec1, dec2: Double
  /// GAST - GMST at the middle, radians.
  let equationOfEquinoxes: Double
  /// Horizontal parallax of the Sun (8.794148"/R, IAU 1976), radians.
  let parallax: Double

  /// A track from `start` to `end` (at least a second apart).
  init(from start: Instant, to end: Instant) {
    let span = max(end.microsecondsSinceEpoch - start.microsecondsSinceEpoch, 2_000_000)
    middle = start.microsecondsSinceEpoch + span / 2
    half = Double(span / 2) / 1_000_000
    let mid = Instant(microsecondsSinceEpoch: middle)
    let a = SolarEphemeris.place(julianCenturiesTT: TimeScales.julianCenturiesTT(mid.adding(seconds: -half)))
    let b = SolarEphemeris.place(julianCenturiesTT: TimeScales.julianCenturiesTT(mid))
    let c = SolarEphemeris.place(julianCenturiesTT: TimeScales.julianCenturiesTT(mid.adding(seconds: half)))
    // Unwrap right ascension around the middle value.
    let raA = b.rightAscension + SolarTrack.wrap(a.rightAscension - b.rightAscension)
    let raC = b.rightAscension + SolarTrack.wrap(c.rightAscension - b.rightAscension)
    ra0 = b.rightAscension
    ra1 = (raC - raA) / 2
    ra2 = (raA + raC) / 2 - b.rightAscension
    dec0 = b.declination
    dec1 = (c.declination - a.declination) / 2
    dec2 = (a.declination + c.declination) / 2 - b.declination
    equationOfEquinoxes = b.equationOfEquinoxes
    parallax = 8.794_148 * SolarEphemeris.arcsecond / b.distance
  }

  /// Right ascension and declination (radians) and their rates (radians per second) at `t`.
  @inline(__always)
  func place(at t: Int64) -> (ra: Double, dec: Double, raRate: Double, decRate: Double) {
    let x = Double(t - middle) / 1_000_000 / half
    return (
      ra0 + x * (ra1 + x * ra2), dec0 + x * (dec1 + x * dec2),
      (ra1 + 2 * x * ra2) / half, (dec1 + 2 * x * dec2) / half
    )
  }

  /// Greenwich apparent sidereal time at `t` (radians, not reduced).
  @inline(__always)
  func apparentSiderealTime(at t: Int64) -> Double {
    SolarTrack.meanSiderealTime(microseconds: t) + equationOfEquinoxes
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
    degrees = degrees.truncatingRemainder(dividingBy: 360)
    if degrees < 0 { degrees += 360 }
    return degrees * .pi / 180
  }

  /// Sidereal rate of the Earth's rotation, radians per second of UT1 (360.98564736629 deg/day).
  static let siderealRate = 360.985_647_366_29 / 86_400 * .pi / 180

  /// An angle reduced to (-pi, pi].
  @inline(__always)
  static func wrap(_ angle: Double) -> Double {
    var a = angle.truncatingRemainder(dividingBy: 2 * .pi)
    if a > .pi { a -= 2 * .pi } else if a <= -.pi { a += 2 * .pi }
    return a
  }
}
