#if canImport(Glibc)
  import Glibc
#endif

/// The solar engine for one observer: the events of a local day, the Sun's position and the day
/// period at any instant, and the next occurrence of any event. Pure: time and zones are inputs.
///
/// Model (docs/SOLAR.md): the Sun's apparent place from VSOP87 (Meeus' truncation) with FK5
/// correction, IAU 1980 nutation and annual aberration; sidereal time from UT1 = UTC; the
/// observer's geodetic latitude and longitude with the Sun's horizontal parallax; elevations
/// without refraction, thresholds as in `SolarEvent`.
public struct SolarCalculator: Sendable {
  /// Where the observer is.
  public let coordinate: Coordinate
  /// The observer's height above the surrounding sea or plain; it lowers the horizon (dip).
  public let height: Meters
  /// The Sun-centre elevation of sunrise and sunset for this observer: -0.8333 degrees minus
  /// the dip of the horizon.
  public let horizon: Degrees
  private let sinLatitude: Double
  private let cosLatitude: Double
  private let longitude: Double

  /// A calculator for an observer at `coordinate`, `height` above the horizon's level (negative
  /// heights count as 0).
  public init(coordinate: Coordinate, height: Meters = 0) {
    self.coordinate = coordinate
    self.height = height
    // Dip of the sea horizon with standard refraction: 1.76' * sqrt(height in metres)
    // (N. Bowditch, "The American Practical Navigator", 2002, table 22).
    let dip = height.value > 0 && height.value.isFinite ? 1.76 / 60 * height.value.squareRoot() : 0
    horizon = Degrees(SolarEvent.horizonElevation.value - dip)
    sinLatitude = sin(coordinate.latitude.radians)
    cosLatitude = cos(coordinate.latitude.radians)
    longitude = coordinate.longitude.radians
  }

  /// The elevation and direction of `event` for this observer; `nil` for solar noon.
  public func crossing(of event: SolarEvent) -> (elevation: Degrees, direction: SolarCrossing)? {
    switch event {
    case .sunrise: return (horizon, .rising)
    case .sunset: return (horizon, .setting)
    default: return event.crossing
    }
  }

  // MARK: Days

  /// The events of local day `date` in `zone` (from its first instant to the next day's).
  public func day(_ date: CivilDate, in zone: ZoneRules, events: [SolarEvent] = SolarEvent.standard)
    -> SolarDay
  {
    day(date, interval: zone.localDay(date), events: events)
  }

  /// The events inside `interval`, reported as the day `date`.
  public func day(_ date: CivilDate, interval: Range<Instant>, events: [SolarEvent] = SolarEvent.standard)
    -> SolarDay
  {
    SolarDay(date: date, interval: interval, entries: scan(interval, events))
  }

  /// The first time `event` happens strictly after `instant`, searching up to `days` days ahead
  /// (a year and a bit by default: enough for the poles); `nil` if it does not happen in that
  /// time (e.g. an elevation the Sun never reaches there).
  public func next(_ event: SolarEvent, after instant: Instant, searchingDays days: Int = 370) -> Instant? {
    var start = instant.adding(microseconds: 1)
    let window: Int64 = 86_400_000_000
    for _ in 0..<max(0, days) {
      let end = start.adding(microseconds: window)
      if let first = scan(start..<end, [event])[0].first { return first }
      start = end
    }
    return nil
  }

  // MARK: Instants

  /// The Sun's apparent topocentric elevation (no refraction) and azimuth at `instant`.
  public func position(at instant: Instant) -> SunPosition {
    let place = SolarEphemeris.place(julianCenturiesTT: TimeScales.julianCenturiesTT(instant))
    let gast =
      SolarTrack.meanSiderealTime(microseconds: instant.microsecondsSinceEpoch) + place.equationOfEquinoxes
    let hourAngle = gast + longitude - place.rightAscension
    let sinDec = sin(place.declination)
    let cosDec = cos(place.declination)
    let cosH = cos(hourAngle)
    let sinAltitude = sinLatitude * sinDec + cosLatitude * cosDec * cosH
    let geocentric = asin(max(-1, min(1, sinAltitude)))
    let parallax = 8.794_148 * SolarEphemeris.arcsecond / place.distance
    let altitude = geocentric - parallax * cos(geocentric)
    var azimuth = atan2(-cosDec * sin(hourAngle), sinDec * cosLatitude - cosDec * cosH * sinLatitude)
    if azimuth < 0 { azimuth += 2 * .pi }
    var azimuthDegrees = azimuth * 180 / .pi
    if azimuthDegrees >= 360 { azimuthDegrees -= 360 }
    return SunPosition(elevation: Degrees(altitude * 180 / .pi), azimuth: Degrees(azimuthDegrees))
  }

  /// The part of the day at `instant` (day, golden hour, twilights, night).
  public func period(at instant: Instant) -> DayPeriod {
    DayPeriod(elevation: position(at: instant).elevation, horizon: horizon)
  }

  // MARK: The scan

  /// The Sun's state at one instant on a track: what every step of the search needs.
  private struct State {
    var sinAltitude: Double
    /// d(sin altitude)/dt, per second.
    var rate: Double
    var hourAngle: Double
    var hourAngleRate: Double
    var sinDec: Double
    var cosDec: Double
    var cosHourAngle: Double
  }

  @inline(__always)
  private func state(_ track: SolarTrack, _ t: Int64) -> State {
    let p = track.place(at: t)
    let hourAngle = track.apparentSiderealTime(at: t) + longitude - p.ra
    let hourAngleRate = SolarTrack.siderealRate - p.raRate
    // One libm call: the cosine from the sine, its sign from the reduced angle's quadrant.
    let reduced = SolarTrack.wrap(hourAngle)
    let sinH = sin(reduced)
    let cosMagnitude = (1 - sinH * sinH).squareRoot()
    let cosH = abs(reduced) <= .pi / 2 ? cosMagnitude : -cosMagnitude
    let sinAltitude = sinLatitude * p.sinDec + cosLatitude * p.cosDec * cosH
    let rate =
      -cosLatitude * p.cosDec * sinH * hourAngleRate
      + (sinLatitude * p.cosDec - cosLatitude * p.sinDec * cosH) * p.decRate
    return State(
      sinAltitude: sinAltitude, rate: rate, hourAngle: hourAngle, hourAngleRate: hourAngleRate,
      sinDec: p.sinDec, cosDec: p.cosDec, cosHourAngle: cosH)
  }

  /// Finds the requested events inside `interval`.
  private func scan(_ interval: Range<Instant>, _ events: [SolarEvent]) -> [SolarDay.Entry] {
    let t0 = interval.lowerBound.microsecondsSinceEpoch
    let t1 = interval.upperBound.microsecondsSinceEpoch
    guard t1 > t0 else {
      return events.map { SolarDay.Entry(event: $0, first: nil, more: [], absence: .otherDay) }
    }
    let track = SolarTrack(from: interval.lowerBound, to: interval.upperBound)

    // Meridian transits from an hour before to an hour after the interval, alternating lower
    // (hour angle pi) and upper (0); the altitude is monotonic between its extrema, which lie
    // within seconds of the transits (minutes near the poles).
    var transits: [(t: Int64, upper: Bool)] = []
    let margin: Int64 = 3_600_000_000
    let startState = track.hourAngle(at: t0 - margin, longitude: longitude)
    var h = startState.angle.truncatingRemainder(dividingBy: 2 * .pi)
    if h < 0 { h += 2 * .pi }
    var upper = h >= .pi
    var target: Double = upper ? 2 * .pi : .pi
    var t = (t0 - margin) + Int64((target - h) / startState.rate * 1_000_000)
    while t < t1 + margin {
      // Newton on the hour angle (it is nearly linear in time: two steps reach microseconds).
      for _ in 0..<2 {
        let s = track.hourAngle(at: t, longitude: longitude)
        t -= Int64(SolarTrack.wrap(s.angle - target) / s.rate * 1_000_000)
      }
      transits.append((t, upper))
      upper.toggle()
      target += .pi
      t += Int64(Double.pi / SolarTrack.siderealRate * 1_000_000)
    }

    // Boundaries of monotonic pieces: the interval's ends and the altitude extrema inside it.
    var bounds: [Int64] = [t0]
    var sines: [Double] = [state(track, t0).sinAltitude]
    for transit in transits where transit.t > t0 - margin / 2 && transit.t < t1 + margin / 2 {
      let extremum = altitudeExtremum(track, near: transit.t)
      // Extrema follow their transits in time; keep the order even in a pathological case.
      if extremum.t > t0, extremum.t < t1, extremum.t > bounds.last! {
        bounds.append(extremum.t)
        sines.append(extremum.sinAltitude)
      }
    }
    bounds.append(t1)
    sines.append(state(track, t1).sinAltitude)
    var lowest = sines[0]
    var highest = sines[0]
    for v in sines {
      lowest = min(lowest, v)
      highest = max(highest, v)
    }

    var entries: [SolarDay.Entry] = []
    entries.reserveCapacity(events.count)
    for event in events {
      var entry = SolarDay.Entry(event: event, first: nil, more: [], absence: .otherDay)
      guard let crossing = crossing(of: event) else {
        // Solar noon: the upper transits inside the interval.
        for transit in transits where transit.upper && transit.t >= t0 && transit.t < t1 {
          record(Instant(microsecondsSinceEpoch: transit.t), in: &entry)
        }
        entries.append(entry)
        continue
      }
      // The same crossing seen from the Earth's centre: parallax lowers the Sun by p cos(h).
      let elevation = crossing.elevation.radians
      let targetSine = sin(elevation + track.parallax * cos(elevation))
      let rising = crossing.direction == .rising
      for i in 0..<(bounds.count - 1) {
        let fa = sines[i] - targetSine
        let fb = sines[i + 1] - targetSine
        guard rising ? (fa < 0 && fb >= 0) : (fa >= 0 && fb < 0) else { continue }
        let root = solve(track, from: bounds[i], fa, to: bounds[i + 1], targetSine)
        if root >= t0, root < t1 { record(Instant(microsecondsSinceEpoch: root), in: &entry) }
      }
      if entry.first == nil {
        if lowest >= targetSine {
          entry.absence = .polarDay
        } else if highest < targetSine {
          entry.absence = .polarNight
        }
      }
      entries.append(entry)
    }
    return entries
  }

  private func record(_ instant: Instant, in entry: inout SolarDay.Entry) {
    if entry.first == nil { entry.first = instant } else { entry.more.append(instant) }
  }

  /// The altitude extremum next to a meridian transit: Newton on d(sin h)/dt = 0 with the
  /// dominant second derivative; the transit itself where the Sun's daily circle vanishes (at
  /// the poles) or the search strays. Returns the instant and sin(altitude) there.
  private func altitudeExtremum(_ track: SolarTrack, near transit: Int64) -> (t: Int64, sinAltitude: Double) {
    var t = transit
    var s = state(track, t)
    for _ in 0..<4 {
      let curvature = -cosLatitude * s.cosDec * s.cosHourAngle * s.hourAngleRate * s.hourAngleRate
      let step = s.rate / curvature
      guard abs(curvature) > 1e-15, step.isFinite, abs(step) < 10_800, abs(t - transit) < 10_800_000_000
      else {
        return (transit, state(track, transit).sinAltitude)
      }
      t -= Int64(step * 1_000_000)
      // Near the extremum sin(altitude) is flat: a step under a second changes it by ~1e-9.
      if abs(step) < 1 { break }
      s = state(track, t)
    }
    return (t, s.sinAltitude)
  }

  /// The instant in (a, b] where sin(altitude) crosses `targetSine`, given that it is monotonic
  /// there and f(a) = sin(altitude(a)) - targetSine = `fa` has the other sign than f(b):
  /// safeguarded Newton, started from the hour-angle solution.
  private func solve(_ track: SolarTrack, from a: Int64, _ fa: Double, to b: Int64, _ targetSine: Double)
    -> Int64
  {
    var lo = 0.0
    var hi = Double(b - a) / 1_000_000
    let rising = fa < 0
    // First guess: the hour angle at which a Sun of fixed declination reaches the target,
    // refined once with the declination at the guess (no trigonometry but acos).
    var x = hi / 2
    let start = track.hourAngle(at: a, longitude: longitude)
    for _ in 0..<2 {
      let p = track.place(at: a + Int64(x * 1_000_000))
      let cosH0 = (targetSine - sinLatitude * p.sinDec) / (cosLatitude * p.cosDec)
      guard cosH0.isFinite, abs(cosH0) < 1 else { break }
      let h0 = acos(cosH0)
      var dh = (rising ? -h0 : h0) - start.angle
      dh -= 2 * .pi * SolarTrack.roundedToInteger(dh / (2 * .pi) - 0.5)
      let guess = dh / start.rate
      guard guess > lo, guess < hi else { break }
      x = guess
    }
    for _ in 0..<60 {
      let s = state(track, a + Int64(x * 1_000_000))
      let f = s.sinAltitude - targetSine
      // Keep the bracket: below the target is before the crossing when rising.
      if (f < 0) == rising { lo = x } else { hi = x }
      let step = -f / s.rate
      let next = x + step
      guard next > lo, next < hi, next.isFinite else {
        x = (lo + hi) / 2
        if hi - lo < 1e-4 { break }
        continue
      }
      x = next
      // Newton converges quadratically: after a step under 5 ms the error is below a microsecond.
      if abs(step) < 0.005 { break }
    }
    return a + Int64(SolarTrack.roundedToInteger(x * 1_000_000))
  }
}
