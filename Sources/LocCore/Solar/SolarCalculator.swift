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
    sinLatitude = Maths.sin(coordinate.latitude.radians)
    cosLatitude = Maths.cos(coordinate.latitude.radians)
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
    let sinDec = place.sinDeclination
    let cosDec = place.cosDeclination
    let cosH = Maths.cos(hourAngle)
    let sinAltitude = sinLatitude * sinDec + cosLatitude * cosDec * cosH
    let geocentric = Maths.asin(max(-1, min(1, sinAltitude)))
    let parallax = 8.794_148 * SolarEphemeris.arcsecond / place.distance
    let altitude = geocentric - parallax * Maths.cos(geocentric)
    var azimuth = Maths.atan2(
      -cosDec * Maths.sin(hourAngle), sinDec * cosLatitude - cosDec * cosH * sinLatitude)
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
    let sinH = Maths.sin(reduced)
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

  /// A point of the scan: an end of the interval or a meridian transit with the altitude
  /// extremum next to it.
  private struct Mark {
    /// The instant that bounds a monotonic piece (the extremum, or an end of the interval).
    var t: Int64
    /// sin(altitude) there, geocentric.
    var sine: Double
    /// Whether it bounds a piece (ends always; extrema only inside the interval).
    var isBound: Bool
    /// The upper transit's instant, for solar noon; `nil` for ends and lower transits.
    var noon: Int64?
  }

  /// Longest interval scanned in one piece; longer ones are cut into days (the track's
  /// interpolation is checked for 26 hours).
  private static let longestScan: Int64 = 26 * 3_600_000_000

  /// Finds the requested events inside `interval`.
  private func scan(_ interval: Range<Instant>, _ events: [SolarEvent]) -> [SolarDay.Entry] {
    let t0 = interval.lowerBound.microsecondsSinceEpoch
    let t1 = interval.upperBound.microsecondsSinceEpoch
    guard t1 > t0 else {
      return events.map { SolarDay.Entry(event: $0, first: nil, more: [], absence: .otherDay) }
    }
    guard t1 - t0 <= SolarCalculator.longestScan else { return scanInDays(interval, events) }
    let track = SolarTrack(from: interval.lowerBound, to: interval.upperBound)
    let marks = self.marks(track, from: t0, to: t1)
    var lowest = marks[0].sine
    var highest = marks[0].sine
    for mark in marks where mark.isBound {
      lowest = min(lowest, mark.sine)
      highest = max(highest, mark.sine)
    }

    var entries: [SolarDay.Entry] = []
    entries.reserveCapacity(events.count)
    for event in events {
      var entry = SolarDay.Entry(event: event, first: nil, more: [], absence: .otherDay)
      guard let crossing = crossing(of: event) else {
        // Solar noon: the upper transits inside the interval.
        for mark in marks {
          if let noon = mark.noon { record(Instant(microsecondsSinceEpoch: noon), in: &entry) }
        }
        entries.append(entry)
        continue
      }
      // The same crossing seen from the Earth's centre: parallax lowers the Sun by p cos(h).
      let elevation = crossing.elevation.radians
      let targetSine = Maths.sin(elevation + track.parallax * Maths.cos(elevation))
      let rising = crossing.direction == .rising
      var previous = marks[0]
      for mark in marks.dropFirst() where mark.isBound {
        defer { previous = mark }
        let fa = previous.sine - targetSine
        let fb = mark.sine - targetSine
        guard rising ? (fa < 0 && fb >= 0) : (fa >= 0 && fb < 0) else { continue }
        let root = solve(track, from: previous.t, fa, to: mark.t, targetSine)
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

  /// The instants that cut `t0..<t1` into pieces where the Sun's altitude is monotonic: the
  /// ends and the altitude's extrema next to each meridian transit, with upper transits kept
  /// for solar noon.
  private func marks(_ track: SolarTrack, from t0: Int64, to t1: Int64) -> [Mark] {
    // Meridian transits from an hour before to an hour after the interval, alternating lower
    // (hour angle pi) and upper (0); the altitude is monotonic between its extrema, which lie
    // within seconds of the transits (minutes near the poles).
    var marks: [Mark] = []
    marks.reserveCapacity(8)
    marks.append(Mark(t: t0, sine: state(track, t0).sinAltitude, isBound: true, noon: nil))
    let margin: Int64 = 3_600_000_000
    let startState = track.hourAngle(at: t0 - margin, longitude: longitude)
    var h = startState.angle.truncatingRemainder(dividingBy: 2 * .pi)
    if h < 0 { h += 2 * .pi }
    var upper = h >= .pi
    var target: Double = upper ? 2 * .pi : .pi
    var t = (t0 - margin) + Int64((target - h) / startState.rate * 1_000_000)
    var lastBound = t0
    while t < t1 + margin {
      // Newton on the hour angle (it is nearly linear in time: two steps reach microseconds).
      for _ in 0..<2 {
        let s = track.hourAngle(at: t, longitude: longitude)
        t -= Int64(SolarTrack.wrap(s.angle - target) / s.rate * 1_000_000)
      }
      let noon: Int64? = upper && t >= t0 && t < t1 ? t : nil
      if t > t0 - margin / 2, t < t1 + margin / 2 {
        let extremum = altitudeExtremum(track, near: t)
        // Extrema follow their transits in time; keep the order even in a pathological case.
        let isBound = extremum.t > lastBound && extremum.t < t1
        if isBound { lastBound = extremum.t }
        if isBound || noon != nil {
          marks.append(Mark(t: extremum.t, sine: extremum.sinAltitude, isBound: isBound, noon: noon))
        }
      }
      upper.toggle()
      target += .pi
      t += Int64(Double.pi / SolarTrack.siderealRate * 1_000_000)
    }
    marks.append(Mark(t: t1, sine: state(track, t1).sinAltitude, isBound: true, noon: nil))
    return marks
  }

  /// `scan` for an interval longer than `longestScan`: day by day, merged. An event missing
  /// from every day is polar day (night) only if every day says so.
  private func scanInDays(_ interval: Range<Instant>, _ events: [SolarEvent]) -> [SolarDay.Entry] {
    var merged = events.map { SolarDay.Entry(event: $0, first: nil, more: [], absence: .polarDay) }
    var sawDay = Array(repeating: false, count: events.count)
    var sawNight = Array(repeating: false, count: events.count)
    var start = interval.lowerBound
    while start < interval.upperBound {
      let end = min(interval.upperBound, start.adding(microseconds: 86_400_000_000))
      for (i, entry) in scan(start..<end, events).enumerated() {
        for instant in (entry.first.map { [$0] } ?? []) + entry.more { record(instant, in: &merged[i]) }
        if entry.first == nil {
          sawDay[i] = sawDay[i] || entry.absence == .polarDay
          sawNight[i] = sawNight[i] || entry.absence == .polarNight
          if entry.absence == .otherDay { sawDay[i] = true; sawNight[i] = true }
        } else {
          sawDay[i] = true
          sawNight[i] = true
        }
      }
      start = end
    }
    for i in merged.indices where merged[i].first == nil {
      merged[i].absence = sawDay[i] && sawNight[i] ? .otherDay : sawNight[i] ? .polarNight : .polarDay
    }
    return merged
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
    // First guess: the hour angle at which a Sun of fixed declination (the piece's middle one)
    // reaches the target; no trigonometry but acos. Newton then needs about two steps.
    var x = hi / 2
    let p = track.place(at: a + (b - a) / 2)
    let cosH0 = (targetSine - sinLatitude * p.sinDec) / (cosLatitude * p.cosDec)
    if cosH0.isFinite, abs(cosH0) < 1 {
      let start = track.hourAngle(at: a, longitude: longitude)
      let h0 = Maths.acos(cosH0)
      var dh = (rising ? -h0 : h0) - start.angle
      dh -= 2 * .pi * SolarTrack.roundedToInteger(dh / (2 * .pi) - 0.5)
      let guess = dh / start.rate
      if guess > lo, guess < hi { x = guess }
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
