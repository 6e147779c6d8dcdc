/// Which rung of the fallback ladder answered.
public enum PositionTier: String, Sendable, Hashable {
  /// A fix received within the freshness timeout.
  case fix
  /// The last known position, no longer fresh (from this run or the state file).
  case cached
  /// The location set with `locctl set-location`.
  case manual
  /// Nothing: degraded mode.
  case none
}

/// A position with its provenance. The one thing locd answers with.
public struct Position: Sendable, Hashable {
  /// Where.
  public var coordinate: Coordinate
  /// Horizontal accuracy estimate, if known.
  public var accuracy: Meters?
  /// Altitude above mean sea level, if known.
  public var altitude: Meters?
  /// The receiver's time of the fix (for manual locations: when it was set).
  public var time: Instant
  /// When locd received it (on this machine's clock); ages count from here.
  public var receivedAt: Instant
  /// Where it came from: a source URI, "manual", or "state-file".
  public var source: String
  /// A name given with `set-location`.
  public var name: String?

  /// A position.
  public init(
    coordinate: Coordinate, accuracy: Meters?, altitude: Meters? = nil, time: Instant, receivedAt: Instant,
    source: String, name: String? = nil
  ) {
    self.coordinate = coordinate
    self.accuracy = accuracy
    self.altitude = altitude
    self.time = time
    self.receivedAt = receivedAt
    self.source = source
    self.name = name
  }
}

/// The resolver's answer: always present, with the tier, the age, and in degraded mode
/// the reason and what to do.
public struct ResolvedPosition: Sendable, Hashable {
  /// The tier that answered.
  public var tier: PositionTier
  /// The position (nil only for `.none`).
  public var position: Position?
  /// Time since `receivedAt`.
  public var age: Duration?
  /// Why the answer is not a fresh fix (nil for a fresh fix).
  public var reason: String?
  /// What the user can do about it (degraded mode only).
  public var remedy: String?

  /// A resolved position from its parts.
  public init(
    tier: PositionTier, position: Position?, age: Duration? = nil, reason: String? = nil,
    remedy: String? = nil
  ) {
    self.tier = tier
    self.position = position
    self.age = age
    self.reason = reason
    self.remedy = remedy
  }
}

/// The fallback ladder: fresh fix ▸ cached last known ▸ manual ▸ none.
public enum PositionResolver {
  /// Resolves at `now`. `sourceProblem` explains why fixes are not coming, if known.
  public static func resolve(
    fix: Position?, lastKnown: Position?, manual: Position?, freshFor: Duration, now: Instant,
    sourceProblem: String?
  ) -> ResolvedPosition {
    if let fix, let age = age(of: fix, at: now), age < freshFor {
      return ResolvedPosition(tier: .fix, position: fix, age: age)
    }
    let why = sourceProblem ?? "no fresh fix"
    // The newest of the last fix of this run and the stored last-known position.
    let cached = [fix, lastKnown].compactMap { $0 }.max(by: { $0.receivedAt < $1.receivedAt })
    if let cached {
      return ResolvedPosition(
        tier: .cached, position: cached, age: age(of: cached, at: now),
        reason: "\(why); last known position")
    }
    if let manual {
      return ResolvedPosition(
        tier: .manual, position: manual, age: age(of: manual, at: now),
        reason: "\(why); manual location")
    }
    return ResolvedPosition(
      tier: .none, position: nil, age: nil, reason: "\(why), no last known position and no manual location",
      remedy: "connect a GPS receiver (see 'locctl status' sources), or run 'locctl set-location LAT LON'")
  }

  /// The time since `p` was received, nil when that lies ahead of `now`: the wall clock was
  /// set back since (or the state file was written by a clock that ran ahead), so how old
  /// the position is cannot be told, and it is never fresh. Never a negative age.
  static func age(of p: Position, at now: Instant) -> Duration? {
    p.receivedAt <= now ? now.duration(since: p.receivedAt) : nil
  }
}
