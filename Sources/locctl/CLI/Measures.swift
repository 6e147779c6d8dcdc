import LocCore
import LocHost
import LocProtocol

/// Quantities as locctl shows them on screens (never in --json, which keeps the protocol's
/// units): metric unless `LOCCTL_UNITS=imperial`, distances scaled for reading (`±5 km`, not
/// `±5000 m`), one speed unit everywhere (km/h or mph), coordinates to the decimals their
/// accuracy carries.
enum Measures {
  /// The two systems.
  enum System: String {
    case metric, imperial
  }

  /// From `LOCCTL_UNITS` (`metric` or `imperial`); anything else is metric.
  nonisolated(unsafe) static var system: System =
    System(rawValue: CurrentProcess.environment("LOCCTL_UNITS")?.lowercased() ?? "") ?? .metric

  /// Metres in a foot and in a mile (international yard, 1959: 0.9144 m).
  static let metresPerFoot = 0.3048
  static let metresPerMile = 1609.344

  /// `4 m`, `850 m`, `1.2 km`, `5 km`, `12 km` (imperial: `13 ft`, `0.5 mi`, `3.1 mi`).
  static func distance(_ m: Meters) -> String {
    let v = abs(m.value)
    switch system {
    case .metric:
      if v < 1000 { return "\(Int(v.rounded())) m" }
      return v < 10_000 ? Numbers.short(v / 1000, 1) + " km" : "\(Int((v / 1000).rounded())) km"
    case .imperial:
      let feet = v / metresPerFoot
      if feet < 1000 { return "\(Int(feet.rounded())) ft" }
      let miles = v / metresPerMile
      return miles < 10 ? Numbers.short(miles, 1) + " mi" : "\(Int(miles.rounded())) mi"
    }
  }

  /// `±4 m`, `±5 km`; below what rounds to 1 of the unit, to a tenth (`±0.1 m`: an RTK
  /// fix), never `±0`.
  static func accuracy(_ m: Meters) -> String {
    let v = system == .metric ? m.value : m.value / metresPerFoot
    guard v > 0, v < 0.5 else { return "±" + distance(m) }
    return "±" + Numbers.short(max(v, 0.1), 1) + (system == .metric ? " m" : " ft")
  }

  /// A height (altitude, an observer's height) to a tenth: `188.2 m`, `617.5 ft`.
  static func height(_ m: Meters) -> String {
    switch system {
    case .metric: return Numbers.fixed(m.value, 1) + " m"
    case .imperial: return Numbers.fixed(m.value / metresPerFoot, 1) + " ft"
    }
  }

  /// `101.1 km/h` or `62.8 mph`.
  static func speed(_ s: MetersPerSecond) -> String {
    switch system {
    case .metric: return Numbers.fixed(s.value * 3.6, 1) + " km/h"
    case .imperial: return Numbers.fixed(s.value * 3600 / metresPerMile, 1) + " mph"
    }
  }

  /// The decimals of a degree that `accuracy` justifies: the first whose step (a degree of
  /// latitude is about 111 km, so 1e-5° is about 1.1 m) is no coarser than the accuracy, at
  /// most 7 (about a centimetre).
  static func decimals(accuracy a: Double) -> Int {
    var digits = 0
    var step = 111_000.0
    while step > a, digits < 7 {
      step /= 10
      digits += 1
    }
    return digits
  }

  /// `38.88935, -7.03180` to the decimals `accuracy` justifies; without an accuracy (a
  /// manual location given without one) as it was given, at most 7 decimals.
  static func coordinate(_ c: Coordinate, accuracy: Meters?) -> String {
    guard let a = accuracy?.value, a > 0 else {
      return Numbers.short(c.latitude.value, 7) + ", " + Numbers.short(c.longitude.value, 7)
    }
    let d = decimals(accuracy: a)
    return Numbers.fixed(c.latitude.value, d) + ", " + Numbers.fixed(c.longitude.value, d)
  }

  /// A source's fault with its age against `now` (the daemon's clock: `status`'s `now`, an
  /// event's `time`; never this machine's) and its beginning in `zone`: `silent for 12 s
  /// (since 14:03:07 CET): sent nothing for 10 s`. The words are `headline`'s, to be styled.
  static func fault(_ f: FaultView, now: Instant, zone: ScreenZone) -> (headline: String, rest: String) {
    let what: String
    switch f.kind {
    case .known(.silent): what = "silent"
    case .known(.noNMEA): what = "no NMEA"
    case .known(.error): what = "failing"
    case .known(.gpsdHoldsPort): what = "left to gpsd"
    case .other(let word): what = word
    }
    let rest = " (since \(zone.clock(f.since, seconds: true))): \(f.reason)"
    // In whole seconds, `since` being to the second; at its beginning (the event that
    // announces it) an age says nothing.
    let age = Duration.seconds(max(now.duration(since: f.since).seconds, 0).rounded(.down))
    return (age < .seconds(1) ? what : "\(what) for \(TimeFormat.duration(age))", rest)
  }

  /// A source's state as `status` and `watch` say it: its name, and for a source waiting
  /// what it waits for (it is no fault): the default source for gpsd, a replay held by
  /// `--clock replay` (`replayWaiting`) for the first subscriber.
  static func state(_ s: SourceView, replayWaiting: Bool = false) -> String {
    guard s.state == .known(.waiting) else { return s.state.word }
    if replayWaiting { return "waiting for the first subscriber (the replay starts then)" }
    return "waiting: no gpsd on this machine yet (locd connects when it starts)"
  }

  /// `9 of 14 used, best signal 41 dB-Hz` (`no signal` when none is heard): a sky's
  /// summary, as `status`, `sky` and `watch` say it.
  static func satellites(_ s: SatellitesSummaryView) -> String {
    "\(s.used) of \(s.inView) used, "
      + (s.bestSignal.map { "best signal \(Numbers.short($0, 1)) dB-Hz" } ?? "no signal")
  }
}
