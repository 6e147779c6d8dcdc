/// Adopts a new time zone from fixes only when they agree on it for long enough, so a road
/// along a border does not flap between zones: a candidate zone needs `fixes` consecutive
/// fixes and `distance` into it (or `time` of agreement, for a receiver parked near a border).
///
/// How far into the zone a fix is: the data's distance to the nearest border when it has one
/// (a point farther than the probe's reach counts as that far), else the distance from the
/// first fix in the zone; minus the fix's accuracy radius, or `Fix.assumedAccuracy` for a fix
/// without one (RMC-only feeds, gps2udp): such a fix counts like any other, at that radius.
/// The candidate's first fix time is kept while no fixes come (acquisition idle), so `time`
/// is reached by a later refresh even when each attempt is short.
public struct ZoneHysteresis: Sendable {
  /// What adoption needs (locd.conf `[TimeZone]`).
  public struct Settings: Sendable, Hashable {
    /// Consecutive fixes in the new zone (`SwitchFixes=`, default 3).
    public var fixes = 3
    /// How far into the new zone, past the accuracy radius (`SwitchDistance=`, default 100 m;
    /// 0 turns it off).
    public var distance = Meters(100)
    /// Or this long in it, for a receiver that stands still near a border (`SwitchAfter=`,
    /// default 5 min).
    public var time: Duration = .seconds(300)
    /// Defaults.
    public init() {}
  }

  /// A zone some fixes agree on but that is not adopted yet.
  public struct Candidate: Sendable, Hashable {
    /// Its name.
    public var zone: String
    /// Consecutive fixes in it.
    public var fixes: Int
    /// The first fix in it: about where the border was crossed.
    public var entry: Coordinate
    /// When that was (receiver time).
    public var since: Instant
    /// The farthest any fix has been into it so far.
    public var depth: Meters
  }

  /// The settings.
  public var settings: Settings
  /// The zone adopted from the position, if any.
  public private(set) var adopted: String?
  /// When it was adopted (receiver time of the deciding fix, or the reset's instant).
  public private(set) var adoptedAt: Instant?
  /// Fixes agreeing on another zone, if any.
  public private(set) var candidate: Candidate?

  /// Hysteresis with `settings`, no zone adopted.
  public init(settings: Settings = Settings()) { self.settings = settings }

  /// Adopts `zone` at once (a start from the last known position, a manual location).
  public mutating func reset(to zone: String?, at instant: Instant) {
    adopted = zone
    adoptedAt = instant
    candidate = nil
  }

  /// Feeds one accepted fix's zone; returns the newly adopted zone when it changes.
  /// `borderDistance` is the data's estimate of the distance to the nearest border, if it has
  /// one; it is evaluated only while a fix disagrees with the adopted zone.
  public mutating func observe(
    _ zone: String?, at coordinate: Coordinate, time: Instant, accuracy: Meters?,
    borderDistance: @autoclosure () -> Meters? = nil
  ) -> String? {
    guard let zone else { return nil }  // no data here: keep what we have
    guard let current = adopted else {
      reset(to: zone, at: time)
      return zone
    }
    if zone == current {
      candidate = nil
      return nil
    }
    let radius = (accuracy ?? Fix.assumedAccuracy).value
    var c =
      candidate?.zone == zone
      ? candidate! : Candidate(zone: zone, fixes: 0, entry: coordinate, since: time, depth: Meters(0))
    c.fixes += 1
    let into = borderDistance()?.value ?? c.entry.distance(to: coordinate).value
    c.depth = Meters(max(c.depth.value, into - radius))
    candidate = c
    let deepEnough = c.depth.value >= settings.distance.value
    let longEnough = time.duration(since: c.since) >= settings.time
    if c.fixes >= settings.fixes, deepEnough || longEnough {
      reset(to: zone, at: time)
      return zone
    }
    return nil
  }

  /// Whether a candidate zone still lacks fixes: more fixes now could decide it (the engine
  /// keeps acquiring for them rather than wait for the next refresh).
  public var wantsFixes: Bool { candidate.map { $0.fixes < settings.fixes } ?? false }

  /// Why the zone is what it is, in words (for the status).
  public var explanation: String? {
    guard let adopted else { return nil }
    var text = "\(adopted) from the position"
    if let c = candidate {
      let count = min(c.fixes, settings.fixes)
      text +=
        "; \(c.zone) seen by \(count) of \(settings.fixes) fixes, \(Int(max(0, c.depth.value))) of "
        + "\(Int(settings.distance.value)) m into it"
    }
    return text
  }
}
