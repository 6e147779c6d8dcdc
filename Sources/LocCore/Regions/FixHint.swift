/// How the monitors plan fixes: the fastest the device is assumed to move, and the bounds of
/// the interval between fixes (docs/REGIONS.md, "Acquisition").
public struct FixHintPolicy: Hashable, Sendable {
  /// The fastest the device is assumed to move: 40 m/s (144 km/h, a motorway).
  public var maxSpeed: MetersPerSecond = 40
  /// Fixes are never planned closer than this after the last one.
  public var floor: Duration = .seconds(30)
  /// Fixes are never planned further than this after the last one (the engine passes its
  /// periodic refresh interval).
  public var ceiling: Duration = .seconds(15 * 60)
  /// The defaults.
  public init() {}
}

/// When a monitor next needs a fix, and why: the engine arms acquisition at the earliest
/// hint and shows it in status ("next fix due at 08:14 because region boundary 12 km away
/// at 40 m/s").
public struct FixHint: Hashable, Sendable {
  /// Why a fix is needed then.
  public enum Reason: Hashable, Sendable {
    /// The monitor has had no fix yet.
    case noPosition
    /// Some regions' state is unknown: a fix decides them.
    case undetermined(regions: Int)
    /// A crossing of this region, first seen at `since`, waits for its confirmation.
    case confirming(RegionKey, since: Instant)
    /// The nearest region boundary is `distance` from the last fix: the device, at `speed`,
    /// cannot reach it before the hint (less the fix's accuracy). The region is nil when the
    /// search stopped at its work bound and `distance` is the index's lower bound.
    case boundary(RegionKey?, distance: Meters, speed: MetersPerSecond)
    /// No region boundary lies within `distance` of the last fix.
    case noBoundaryWithin(Meters)
    /// Visits are monitored: a fix every cadence sees arrivals and departures.
    case visitCadence(Duration)
  }

  /// Which bound of `FixHintPolicy` moved the instant.
  public enum Bound: String, Hashable, Sendable {
    /// Raised to `floor` after the last fix.
    case floor
    /// Lowered to `ceiling` after the last fix.
    case ceiling
  }

  /// When the next fix is due (never before the instant the hint was asked at).
  public var due: Instant
  /// Why.
  public var reason: Reason
  /// The bound applied, if any.
  public var bound: Bound?

  /// A hint.
  public init(due: Instant, reason: Reason, bound: Bound? = nil) {
    self.due = due
    self.reason = reason
    self.bound = bound
  }

  /// The reason in words, without coordinates: "region boundary 12 km away at 40 m/s".
  public var because: String {
    var text: String
    switch reason {
    case .noPosition: text = "no position yet"
    case .undetermined(let n):
      text = n == 1 ? "1 region's state is unknown" : "\(n) regions' state is unknown"
    case .confirming(let key, _): text = "confirming a crossing of region \"\(key.id)\""
    case .boundary(let key, let distance, let speed):
      text = "region boundary \(TimeFormat.distance(distance)) away at \(FixHint.words(speed))"
      if let key { text += " (region \"\(key.id)\")" } else { text += " or more" }
    case .noBoundaryWithin(let d): text = "no region boundary within \(TimeFormat.distance(d))"
    case .visitCadence(let d): text = "visits are monitored (a fix every \(TimeFormat.duration(d)))"
    }
    switch bound {
    case .floor?: text += ", not sooner than the floor"
    case .ceiling?: text += ", not later than the periodic refresh"
    case nil: break
    }
    return text
  }

  /// `40 m/s`, `1.5 m/s`.
  static func words(_ v: MetersPerSecond) -> String {
    let tenths = (v.value * 10).rounded() / 10
    return tenths == tenths.rounded() && abs(tenths) < 1e9 ? "\(Int(tenths)) m/s" : "\(tenths) m/s"
  }

  /// The earlier of two hints (the first on a tie).
  public static func earliest(_ a: FixHint?, _ b: FixHint?) -> FixHint? {
    guard let a else { return b }
    guard let b else { return a }
    return b.due < a.due ? b : a
  }
}
