/// The part of the day the Sun's elevation puts an instant in. The periods partition the sky:
/// each elevation belongs to exactly one (thresholds as in `SolarEvent`).
public enum DayPeriod: String, Hashable, Sendable, CaseIterable {
  /// The Sun is at +6 degrees or higher.
  case day
  /// The Sun is up but lower than +6 degrees (from the sunrise/sunset elevation).
  case goldenHour = "golden_hour"
  /// Between the sunrise/sunset elevation and -6 degrees.
  case civilTwilight = "civil_twilight"
  /// Between -6 and -12 degrees.
  case nauticalTwilight = "nautical_twilight"
  /// Between -12 and -18 degrees.
  case astronomicalTwilight = "astronomical_twilight"
  /// Below -18 degrees.
  case night

  /// The period for a Sun-centre elevation; `horizon` is the sunrise/sunset elevation.
  public init(elevation: Degrees, horizon: Degrees = SolarEvent.horizonElevation) {
    switch elevation.value {
    case 6...: self = .day
    case horizon.value..<6: self = .goldenHour
    case -6..<horizon.value: self = .civilTwilight
    case -12 ..< -6: self = .nauticalTwilight
    case -18 ..< -12: self = .astronomicalTwilight
    default: self = .night
    }
  }
}
