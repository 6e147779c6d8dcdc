import LocCore

/// `eph` and `epv` as gpsd gives them to its clients (docs/GPSD.md, decision 0051): for a
/// receiver that reports DOPs (GSA, GGA), gpsd multiplies them by its own 95 % range errors,
/// and a gpsd client's thresholds are written for those figures; a fix without DOPs gets
/// locd's own accuracy, converted to 95 %. Constants: gpsd 3.22, `gpsd_error_model()` in
/// gpsd/libgpsd_core.c (P_UERE and V_UERE, "meters, 95% confidence"; the DGPS ones when the
/// fix's status is DGPS, which gpsd's NMEA driver sets for GGA quality 2 and FAA mode D).
enum GpsdErrorEstimate {
  /// gpsd's horizontal range error for `eph` = HDOP × this, without and with DGPS (P_UERE).
  static let horizontalPerHDOP = (autonomous: 19.0, differential: 4.75)
  /// gpsd's vertical range error for `epv` = VDOP × this (V_UERE).
  static let verticalPerVDOP = (autonomous: 23.0, differential: 5.75)

  /// `√(−2 ln 0.05) / √(−2 ln 0.32)`: a circular error's 95 % radius over its 68 % radius
  /// (`HorizontalAccuracy`): locd's accuracy times this is a 95 % radius, what `eph` means.
  static let eph95Per68 = HorizontalAccuracy.radius95PerSigma / HorizontalAccuracy.radius68PerSigma

  /// `eph` of `fix` in metres (2D and 3D fixes): HDOP × gpsd's range error when the fix has
  /// an HDOP, else locd's accuracy × 1.6214; nil when it has neither.
  static func eph(_ fix: Fix) -> Double? {
    guard fix.mode != .noFix else { return nil }
    if let hdop = fix.hdop, hdop > 0 {
      let uere = fix.quality == .dgps ? horizontalPerHDOP.differential : horizontalPerHDOP.autonomous
      return hdop * uere
    }
    return fix.horizontalAccuracy.map { $0.value * eph95Per68 }
  }

  /// `epv` of `fix` in metres (3D fixes with a VDOP): VDOP × gpsd's vertical range error; nil
  /// without a VDOP (locd keeps no vertical accuracy of its own to fall back on).
  static func epv(_ fix: Fix) -> Double? {
    guard fix.mode == .threeD, let vdop = fix.vdop, vdop > 0 else { return nil }
    let uere = fix.quality == .dgps ? verticalPerVDOP.differential : verticalPerVDOP.autonomous
    return vdop * uere
  }
}
