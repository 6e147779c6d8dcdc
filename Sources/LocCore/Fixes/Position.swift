/// Which rung of the fallback ladder answered.
public enum PositionTier: String, Sendable, Hashable {
  /// A measurement received within its freshness timeout (a GNSS fix, a Wi-Fi or IP answer).
  case fix
  /// The last known position, no longer fresh (from this run or the state file).
  case cached
  /// A configured location: the static file or the one set with `locctl set-location`
  /// (`provenance` says which).
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
  /// What kind of source measured or set it.
  public var origin: PositionProvenance

  /// A position.
  public init(
    coordinate: Coordinate, accuracy: Meters?, altitude: Meters? = nil, time: Instant, receivedAt: Instant,
    source: String, name: String? = nil, origin: PositionProvenance = .gnss
  ) {
    self.origin = origin
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

  /// What the position came from: `cached` for the last known one, else its origin; nil
  /// without a position.
  public var provenance: PositionProvenance? {
    guard let position else { return nil }
    return tier == .cached ? .cached : position.origin
  }
}
