/// Turns the error figures receivers and gpsd report into `Fix.horizontalAccuracy`, which has
/// one meaning everywhere in locd: the radius of the circle, centred on the reported position,
/// that holds the true position with 68 % probability (docs/NMEA.md, "What accuracy means").
///
/// Every conversion assumes what the DOP relation assumes: a position error that is normal,
/// with the same spread `σ` along each axis. Then the probability of lying within `r` of the
/// centre is `1 − exp(−r² / 2σ²)` (a Rayleigh distribution), so the radius for probability `p`
/// is `σ·√(−2 ln(1 − p))`. When the two axes differ (GST's σlat ≠ σlon, gpsd's epx ≠ epy) the
/// circular error with the same total variance is used; that is exact for a circle and at
/// most 7.5 % too large for the most elongated ellipse (computed by integrating the ellipse).
public enum HorizontalAccuracy {
  /// The confidence `Fix.horizontalAccuracy` is given at.
  public static let confidence = 0.68

  /// `√(−2 ln 0.32)`: the 68 % radius in units of the per-axis σ of a circular error.
  public static let radius68PerSigma = 1.509_592_185_451_663_4

  /// `√(−2 ln 0.05)`: the 95 % radius in units of the per-axis σ of a circular error.
  public static let radius95PerSigma = 2.447_746_830_680_816_6

  /// 1.959964: the 95 % half-width of one axis in units of its σ (a normal distribution).
  public static let axis95PerSigma = 1.959_963_984_540_054

  /// From the standard deviations along each axis (NMEA GST fields 6 and 7, one sigma each).
  public static func fromAxisSigmas(latitude: Meters, longitude: Meters) -> Meters? {
    let sigma = ((latitude.value * latitude.value + longitude.value * longitude.value) / 2).squareRoot()
    return finite(sigma * radius68PerSigma)
  }

  /// From HDOP and a one-sigma user equivalent range error: `HDOP × UERE` is the distance RMS
  /// (`√(σlat² + σlon²)`, about 63 % for a circular error), the DOP relation's definition.
  public static func fromHDOP(_ hdop: Double, rangeError: Meters) -> Meters? {
    let drms = hdop * rangeError.value
    return finite(drms / 2.0.squareRoot() * radius68PerSigma)
  }

  /// From a 95 % radius: gpsd's `eph` (gpsd_json(5); gpsd's error model reports 95 %
  /// confidence: `P_UERE_NO_DGPS`, 19 m per unit of HDOP, in gpsd's libgpsd_core.c).
  public static func fromRadius95(_ radius: Meters) -> Meters? {
    finite(radius.value / radius95PerSigma * radius68PerSigma)
  }

  /// From 95 % half-widths along each axis: gpsd's `epx` and `epy` (HDOP's x and y parts times
  /// 15 m, gpsd's `H_UERE_NO_DGPS` at 95 %).
  public static func fromAxes95(longitude: Meters, latitude: Meters) -> Meters? {
    fromAxisSigmas(
      latitude: Meters(latitude.value / axis95PerSigma), longitude: Meters(longitude.value / axis95PerSigma))
  }

  /// `nil` for what is not a finite, positive length: a receiver's garbage stays out, and so
  /// does 0, which no position is accurate to (receivers leave GST's σ fields and HDOP at 0
  /// when they have no figure; taken at its word, 0 m would make every later, honest fix
  /// look worse than the current one).
  static func finite(_ value: Double) -> Meters? {
    value.isFinite && value > 0 ? Meters(value) : nil
  }
}
