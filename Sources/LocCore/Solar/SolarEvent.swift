/// A moment of the solar day: twilights, sunrise and sunset, solar noon, golden-hour boundaries,
/// or the Sun's centre crossing any elevation (custom events such as "elevation:-8.5:evening").
public enum SolarEvent: Hashable, Sendable, CustomStringConvertible {
  /// The Sun rises through -18 degrees.
  case astronomicalDawn
  /// The Sun rises through -12 degrees.
  case nauticalDawn
  /// The Sun rises through -6 degrees (the morning blue hour starts).
  case civilDawn
  /// The Sun's upper limb appears: the centre rises through -0.8333 degrees (minus the dip).
  case sunrise
  /// The Sun crosses the meridian (upper transit); happens every day, also in polar night.
  case solarNoon
  /// The centre sets through -0.8333 degrees (minus the dip).
  case sunset
  /// The Sun sets through -6 degrees (the evening blue hour ends).
  case civilDusk
  /// The Sun sets through -12 degrees.
  case nauticalDusk
  /// The Sun sets through -18 degrees.
  case astronomicalDusk
  /// The Sun rises through -4 degrees: the morning blue hour ends and the golden hour starts.
  case morningGoldenHourStart
  /// The Sun rises through +6 degrees: the morning golden hour ends.
  case morningGoldenHourEnd
  /// The Sun sets through +6 degrees: the evening golden hour starts.
  case eveningGoldenHourStart
  /// The Sun sets through -4 degrees: the evening golden hour ends and the blue hour starts.
  case eveningGoldenHourEnd
  /// The Sun's centre crosses an elevation (no refraction, like the thresholds above).
  case elevation(Degrees, SolarCrossing)

  /// The nine events of `locctl sun`, in the order of a day.
  public static let standard: [SolarEvent] = [
    .astronomicalDawn, .nauticalDawn, .civilDawn, .sunrise, .solarNoon, .sunset, .civilDusk,
    .nauticalDusk, .astronomicalDusk,
  ]

  /// Every named event, in the order of a day.
  public static let named: [SolarEvent] = [
    .astronomicalDawn, .nauticalDawn, .civilDawn, .morningGoldenHourStart, .sunrise,
    .morningGoldenHourEnd, .solarNoon, .eveningGoldenHourStart, .sunset, .eveningGoldenHourEnd,
    .civilDusk, .nauticalDusk, .astronomicalDusk,
  ]

  /// Elevation of sunrise and sunset at sea level: 34' refraction + 16' semidiameter below the
  /// horizon (the almanac convention, e.g. the Astronomical Almanac and Meeus ch. 15).
  public static let horizonElevation = Degrees(-50.0 / 60.0)

  /// The elevation the Sun's centre crosses and in which direction; `nil` for solar noon.
  /// Sunrise and sunset are at sea level here (the calculator adds the observer's dip).
  public var crossing: (elevation: Degrees, direction: SolarCrossing)? {
    switch self {
    case .astronomicalDawn: return (-18, .rising)
    case .nauticalDawn: return (-12, .rising)
    case .civilDawn: return (-6, .rising)
    case .sunrise: return (SolarEvent.horizonElevation, .rising)
    case .solarNoon: return nil
    case .sunset: return (SolarEvent.horizonElevation, .setting)
    case .civilDusk: return (-6, .setting)
    case .nauticalDusk: return (-12, .setting)
    case .astronomicalDusk: return (-18, .setting)
    case .morningGoldenHourStart: return (-4, .rising)
    case .morningGoldenHourEnd: return (6, .rising)
    case .eveningGoldenHourStart: return (6, .setting)
    case .eveningGoldenHourEnd: return (-4, .setting)
    case .elevation(let e, let d): return (e, d)
    }
  }

  /// `sunrise`, `astronomical_dawn`, ..., `elevation:-8.5:evening` (the JSON and timer name).
  public var description: String {
    switch self {
    case .astronomicalDawn: return "astronomical_dawn"
    case .nauticalDawn: return "nautical_dawn"
    case .civilDawn: return "civil_dawn"
    case .sunrise: return "sunrise"
    case .solarNoon: return "solar_noon"
    case .sunset: return "sunset"
    case .civilDusk: return "civil_dusk"
    case .nauticalDusk: return "nautical_dusk"
    case .astronomicalDusk: return "astronomical_dusk"
    case .morningGoldenHourStart: return "golden_hour_morning_start"
    case .morningGoldenHourEnd: return "golden_hour_morning_end"
    case .eveningGoldenHourStart: return "golden_hour_evening_start"
    case .eveningGoldenHourEnd: return "golden_hour_evening_end"
    case .elevation(let e, let d):
      return "elevation:\(SolarEvent.format(e.value)):\(d == .rising ? "morning" : "evening")"
    }
  }

  /// Parses a name from `description`, also `elevation:E:morning|evening|rising|setting` with
  /// -90 < E < 90; `nil` otherwise.
  public init?(name: some StringProtocol) {
    if let named = SolarEvent.named.first(where: { $0.description == name }) {
      self = named
      return
    }
    let parts = name.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0] == "elevation", let value = Double(parts[1]), value.isFinite,
      value > -90, value < 90
    else { return nil }
    switch parts[2] {
    case "morning", "rising": self = .elevation(Degrees(value), .rising)
    case "evening", "setting": self = .elevation(Degrees(value), .setting)
    default: return nil
    }
  }

  /// "-8.5", "6", "-0.25": the shortest form that reads back the same.
  static func format(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e9 { return String(Int(value)) }
    return String(value)
  }
}

/// Which way the Sun crosses an elevation: rising (morning) or setting (evening).
public enum SolarCrossing: Hashable, Sendable {
  /// Going up.
  case rising
  /// Going down.
  case setting
}
