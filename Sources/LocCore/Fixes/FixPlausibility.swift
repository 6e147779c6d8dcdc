/// The values a fix may claim, applied where fixes are decoded (NMEA epochs, gpsd TPVs): a
/// field outside its bound is nonsense or an attack, never a measurement, and is dropped
/// (made missing) and counted, so that one absurd number cannot switch off a check that
/// reads it. docs/NMEA.md, "Plausibility", lists the bounds and why.
public enum FixPlausibility {
  /// Fastest speed over ground a fix may report: 1,000 knots (514.4 m/s). The export limit
  /// civil GNSS receivers enforce (the "COCOM limits", 1,000 knots and 18,000 m): above it
  /// they stop giving fixes, so a faster claim comes from no receiver locd serves. The
  /// acceptance's jump check reads the speed: 1e200 knots would let any jump through.
  public static let maxSpeed = MetersPerSecond(knots: 1000)

  /// Lowest altitude above mean sea level: −1,000 m. The lowest dry land is the Dead Sea
  /// shore (about −430 m); a GNSS fix needs the sky, so nothing is much below it.
  public static let minAltitude = Meters(-1000)

  /// Highest altitude above mean sea level: 100 km (the Kármán line). Above it a receiver is
  /// on a spacecraft, which locd does not serve; the COCOM altitude (18 km) is not used as
  /// the bound because receivers without the limit fly on balloons up to 50 km.
  public static let maxAltitude = Meters(100_000)

  /// Largest horizontal accuracy (68 % radius) kept: 10 km. NMEA's largest HDOP (99.99)
  /// gives 533 m and gpsd's largest `eph` about 1.2 km; a claim of more says nothing about
  /// where the receiver is, and a huge radius would give the jump check an equally huge
  /// slack. Zero is not an accuracy either (GST fields left at 0, HDOP 0): `HorizontalAccuracy`
  /// drops it before it gets here.
  public static let maxAccuracy = Meters(10_000)

  /// Largest geoid separation kept: the geoid lies within about −107 m and +86 m of the
  /// WGS84 ellipsoid (EGM2008), so ±200 m leaves room and nothing more.
  public static let maxGeoidSeparation = Meters(200)

  /// Drops every field of `fix` outside its bound; returns how many were dropped.
  @discardableResult public static func bound(_ fix: inout Fix) -> Int {
    var dropped = 0
    if let s = fix.speed, !(s.value >= 0 && s.value <= maxSpeed.value) {
      fix.speed = nil
      dropped += 1
    }
    if let a = fix.altitudeMSL, !(a.value >= minAltitude.value && a.value <= maxAltitude.value) {
      fix.altitudeMSL = nil
      dropped += 1
    }
    if let g = fix.geoidSeparation, !(abs(g.value) <= maxGeoidSeparation.value) {
      fix.geoidSeparation = nil
      dropped += 1
    }
    if let h = fix.horizontalAccuracy, !(h.value > 0 && h.value <= maxAccuracy.value) {
      fix.horizontalAccuracy = nil
      dropped += 1
    }
    if let c = fix.course, !(c.value >= 0 && c.value <= 360) {
      fix.course = nil
      dropped += 1
    }
    return dropped
  }
}
