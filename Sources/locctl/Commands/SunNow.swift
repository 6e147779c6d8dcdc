import LocCore

/// Where the Sun is at one instant for one place, and when the part of the day changes next:
/// what `locctl sun --now` prints and `locctl status` shows (darkman and gammastep users
/// script against this).
struct SunNow {
  /// The place.
  var coordinate: Coordinate
  /// The instant.
  var at: Instant
  /// Elevation (no refraction) and azimuth.
  var position: SunPosition
  /// The part of the day.
  var period: DayPeriod
  /// The next change of period: when, to which, through which event; nil when it does not
  /// change within a year (a height the Sun never leaves).
  var next: (at: Instant, period: DayPeriod, event: SolarEvent)?

  /// The Sun at `coordinate` at `instant`.
  init(coordinate: Coordinate, at instant: Instant, height: Meters = 0) {
    let calculator = SolarCalculator(coordinate: coordinate, height: height)
    self.coordinate = coordinate
    at = instant
    position = calculator.position(at: instant)
    period = DayPeriod(elevation: position.elevation, horizon: calculator.horizon)
    // The period ends where the Sun crosses one of its two bounding heights: rising through
    // the upper one or setting through the lower one; whichever comes first.
    var best: (at: Instant, period: DayPeriod, event: SolarEvent)? = nil
    for event in SunNow.boundaries(of: period) {
      guard let t = calculator.next(event, after: instant) else { continue }
      if let b = best, b.at <= t { continue }
      let after = DayPeriod(
        elevation: calculator.position(at: t.adding(seconds: 1)).elevation, horizon: calculator.horizon)
      best = (t, after, event)
    }
    next = best
  }

  /// The events that end `period`: the rising one through its upper bound, the setting one
  /// through its lower bound.
  static func boundaries(of period: DayPeriod) -> [SolarEvent] {
    switch period {
    case .day: return [.eveningGoldenHourStart]
    case .goldenHour: return [.morningGoldenHourEnd, .sunset]
    case .civilTwilight: return [.sunrise, .civilDusk]
    case .nauticalTwilight: return [.civilDawn, .nauticalDusk]
    case .astronomicalTwilight: return [.nauticalDawn, .astronomicalDusk]
    case .night: return [.astronomicalDawn]
    }
  }

  /// `golden hour`, `civil twilight`, ...
  static func name(_ p: DayPeriod) -> String {
    switch p {
    case .day: return "day"
    case .goldenHour: return "golden hour"
    case .civilTwilight: return "civil twilight"
    case .nauticalTwilight: return "nautical twilight"
    case .astronomicalTwilight: return "astronomical twilight"
    case .night: return "night"
    }
  }

  /// The period as a JSON value: `golden-hour`, `civil-twilight`, ...
  static func word(_ p: DayPeriod) -> String { String(p.rawValue.map { $0 == "_" ? "-" : $0 }) }

  /// `day: elevation 12.3°, azimuth 285.1° (W); golden hour from 21:04 CEST (in 1h 42min)`.
  func summary(zone: ScreenZone) -> String {
    var text = "\(SunNow.name(period)): elevation \(Numbers.fixed(position.elevation.value, 1))°, "
    text +=
      "azimuth \(Numbers.fixed(position.azimuth.value, 1))° (\(StatusCommand.compass(position.azimuth.value)))"
    if let next {
      text += "; \(SunNow.name(next.period)) from \(zone.near(next.at, now: at))"
      text += " (in \(TimeFormat.duration(next.at.duration(since: at))))"
    } else {
      text += "; no change within a year"
    }
    return text
  }

  /// The JSON object of `locctl sun --now --json`.
  func json(zone: ScreenZone) -> JSON {
    var o: JSONObject = [
      "time": .string(at.iso8601()), "lat": .number(coordinate.latitude.value),
      "lon": .number(coordinate.longitude.value), "timezone": .string(zone.name),
      "elevation": .number(JSONRounding.round(position.elevation.value, 2)),
      "azimuth": .number(JSONRounding.round(position.azimuth.value, 2)),
      "period": .string(SunNow.word(period)),
    ]
    if let next {
      o["next"] = .object([
        "period": .string(SunNow.word(next.period)), "at": .string(next.at.iso8601()),
        "atLocal": .string(
          zone.local(next.at).rfc3339(
            offsetSeconds: zone.rules?.utcOffsetSeconds(at: next.at) ?? zone.fallbackOffset)),
        "event": .string(next.event.description),
      ])
    } else {
      o["next"] = .null
    }
    return .object(o)
  }
}

/// Rounding for JSON numbers that are measurements: a fixed number of decimals.
enum JSONRounding {
  /// `v` rounded half away from zero to `decimals` places.
  static func round(_ v: Double, _ decimals: Int) -> Double {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    return (v * scale).rounded() / scale
  }
}
