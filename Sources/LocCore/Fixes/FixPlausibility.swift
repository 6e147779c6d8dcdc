/// The values a fix may claim, applied where fixes are decoded (NMEA epochs, gpsd TPVs, a
/// modem's NMEA traces): a field outside its bound is nonsense or an attack, never a
/// measurement, and is dropped (made missing) and counted, so that one absurd number cannot
/// switch off a check that reads it; an accuracy below what any receiver achieves is raised to
/// that floor (the position may be right, the claim is not). Each one is kept on the fix
/// (`Fix.outOfBounds`) for the engine to show in `status`. docs/NMEA.md, "Plausibility",
/// lists the bounds and why.
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

  /// Smallest horizontal accuracy (68 % radius) a fix may claim: 1 cm. A real-time kinematic
  /// solution with its integers fixed, the best a receiver gives, is specified at about 1 cm
  /// horizontally (u-blox ZED-F9P: 0.01 m + 1 ppm CEP), and the antenna's phase centre alone
  /// wanders by millimetres to centimetres. A smaller figure (GST σ of 1e-300, an `eph` of
  /// 1e-9) claims more than the physics give, so it is raised to 1 cm: `locate --accuracy`
  /// and the acceptance's comparisons never see less.
  public static let minAccuracy = Meters(0.01)

  /// Largest geoid separation kept: the geoid lies within about −107 m and +86 m of the
  /// WGS84 ellipsoid (EGM2008), so ±200 m leaves room and nothing more.
  public static let maxGeoidSeparation = Meters(200)

  /// Drops every field of `fix` outside its bound and raises an accuracy below
  /// `minAccuracy` to it; each is added to `fix.outOfBounds`. Returns how many fields were
  /// dropped (a raised accuracy is not dropped).
  @discardableResult public static func bound(_ fix: inout Fix) -> Int {
    var found: [OutOfBounds] = []
    if let s = fix.speed, !(s.value >= 0 && s.value <= maxSpeed.value) {
      fix.speed = nil
      found.append(OutOfBounds(.speed, s.value, bound: s.value < 0 ? 0 : maxSpeed.value, .refused))
    }
    if let a = fix.altitudeMSL, !(a.value >= minAltitude.value && a.value <= maxAltitude.value) {
      fix.altitudeMSL = nil
      found.append(
        OutOfBounds(.altitude, a.value, bound: a.value < 0 ? minAltitude.value : maxAltitude.value, .refused))
    }
    if let g = fix.geoidSeparation, !(abs(g.value) <= maxGeoidSeparation.value) {
      fix.geoidSeparation = nil
      found.append(
        OutOfBounds(
          .geoidSeparation, g.value,
          bound: g.value < 0 ? -maxGeoidSeparation.value : maxGeoidSeparation.value,
          .refused))
    }
    if let h = fix.horizontalAccuracy, !(h.value > 0 && h.value <= maxAccuracy.value) {
      fix.horizontalAccuracy = nil
      found.append(OutOfBounds(.accuracy, h.value, bound: h.value > 0 ? maxAccuracy.value : 0, .refused))
    } else if let h = fix.horizontalAccuracy, h.value < minAccuracy.value {
      fix.horizontalAccuracy = minAccuracy
      found.append(OutOfBounds(.accuracy, h.value, bound: minAccuracy.value, .raised))
    }
    if let c = fix.course, !(c.value >= 0 && c.value <= 360) {
      fix.course = nil
      found.append(OutOfBounds(.course, c.value, bound: c.value < 0 ? 0 : 360, .refused))
    }
    // Nearly every fix is within bounds: then nothing is appended (appending even nothing to
    // an empty array allocates a buffer, once per fix).
    guard !found.isEmpty else { return 0 }
    fix.outOfBounds += found
    return found.filter { $0.action == .refused }.count
  }
}
