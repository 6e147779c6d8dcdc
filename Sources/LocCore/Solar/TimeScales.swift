/// Conversions from UTC instants to the astronomical time scales the solar engine needs:
/// UT1 (Earth rotation) and TT (ephemeris time).
///
/// From 1972 on, UTC is kept within 0.9 s of UT1 by leap seconds (ITU-R TF.460-6), so UT1 is
/// taken as UTC (an error of at most 0.9 s of rotation, about 0.1 s in 2024-2030), and
/// TT = UTC + 32.184 s + (TAI - UTC) from the leap-second table (IERS Bulletin C 72). A leap
/// second announced after this table would move TT by 1 s, which moves the Sun by 0.04":
/// nothing. Before 1972, UT1 is taken as the civil time and TT - UT1 (Delta T) comes from
/// F. Espenak and J. Meeus, "Polynomial expressions for Delta T" (NASA, 2006), 1900-1972, and
/// from the long-term parabola of L. Morrison and F. R. Stephenson (2004) before 1900.
public enum TimeScales {
  /// Julian date of the Unix epoch, 1970-01-01T00:00:00 UTC.
  public static let unixEpochJulianDate = 2_440_587.5
  /// Julian date of J2000.0 (2000-01-01T12:00:00 TT).
  public static let j2000 = 2_451_545.0

  /// Days since J2000.0 on the UT1 scale at `instant`.
  @inlinable public static func daysSinceJ2000UT1(_ instant: Instant) -> Double {
    Double(instant.microsecondsSinceEpoch - 946_728_000_000_000) / 86_400_000_000
  }

  /// TT - UTC in seconds at `instant` (69.184 s since 2017).
  public static func ttMinusUTC(_ instant: Instant) -> Double {
    let seconds = instant.microsecondsSinceEpoch / 1_000_000
    if seconds >= leapSecondStarts[0] {
      var taiMinusUTC = 10.0
      for (i, start) in leapSecondStarts.enumerated() where seconds >= start { taiMinusUTC = Double(10 + i) }
      return 32.184 + taiMinusUTC
    }
    let year = 1970 + Double(instant.microsecondsSinceEpoch) / 31_556_952_000_000
    return deltaTPolynomial(year: year)
  }

  /// Julian centuries of TT since J2000.0 at `instant`.
  public static func julianCenturiesTT(_ instant: Instant) -> Double {
    (daysSinceJ2000UT1(instant) + ttMinusUTC(instant) / 86_400) / 36_525
  }

  /// Starts (Unix seconds) of TAI - UTC = 10, 11, ... 37 s: 1972-01-01 to 2017-01-01
  /// (IERS Bulletin C; also /usr/share/zoneinfo/leap-seconds.list).
  static let leapSecondStarts: [Int64] = [
    63_072_000, 78_796_800, 94_694_400, 126_230_400, 157_766_400, 189_302_400, 220_924_800,
    252_460_800, 283_996_800, 315_532_800, 362_793_600, 394_329_600, 425_865_600, 489_024_000,
    567_993_600, 631_152_000, 662_688_000, 709_948_800, 741_484_800, 773_020_800, 820_454_400,
    867_715_200, 915_148_800, 1_136_073_600, 1_230_768_000, 1_341_100_800, 1_435_708_800,
    1_483_228_800,
  ]

  /// Delta T = TT - UT1 in seconds before 1972 (Espenak & Meeus 2006; Morrison & Stephenson 2004).
  static func deltaTPolynomial(year y: Double) -> Double {
    switch y {
    case 1961...:
      let t = y - 1975
      return 45.45 + 1.067 * t - t * t / 260 - t * t * t / 718
    case 1941..<1961:
      let t = y - 1950
      return 29.07 + 0.407 * t - t * t / 233 + t * t * t / 2547
    case 1920..<1941:
      let t = y - 1920
      return 21.20 + 0.84493 * t - 0.076100 * t * t + 0.0020936 * t * t * t
    case 1900..<1920:
      let t = y - 1900
      return -2.79 + 1.494119 * t - 0.0598939 * t * t + 0.0061966 * t * t * t - 0.000197 * t * t * t * t
    default:
      let u = (y - 1820) / 100
      return -20 + 32 * u * u
    }
  }
}
