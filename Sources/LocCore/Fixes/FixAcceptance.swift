/// Decides which fixes may move locd's position: drops invalid and no-fix fixes, fixes dated
/// ahead of the clock, fixes not newer than the current one, fixes from a source less trusted
/// than a live one, implausible jumps, and a less accurate fix inside the current accuracy
/// circle, without ever letting an old precise fix beat a fresh worse one.
///
/// **Time.** A fix's time is the receiver's word; the clock is the machine's (`now`: the wall
/// clock, or under `locd --clock replay` the replay's fix times, which then are the clock).
/// A fix dated more than `futureTolerance` ahead of the clock is rejected (`future`). Within
/// the tolerance a fix's time counts at most as `now` wherever one fix is compared with
/// another (its *reference* time), so no fix, whatever it claims, becomes a reference that
/// makes honest fixes look old, and none makes the jump check's elapsed time larger than what
/// passed on the clock. Times in the past are not judged: recordings are replayed from them.
public struct FixAcceptance: Sendable {
  /// Why a fix was dropped.
  public enum Rejection: String, Sendable, Hashable, CaseIterable {
    /// No position (no fix, 1D) or a simulator's fix.
    case noFix = "no-fix"
    /// Dated more than `futureTolerance` ahead of the clock.
    case future
    /// A more trusted source is live (`SourceTrust`).
    case outranked
    /// Not newer than the newest fix of its stream, or older than the current fix.
    case old
    /// Farther from the current fix than any vehicle could have gone since it.
    case implausibleJump = "implausible-jump"
    /// Less accurate than the current fix and inside its accuracy circle: it adds nothing.
    case insideAccuracy = "inside-accuracy"
  }

  /// A verdict on one fix.
  public enum Verdict: Sendable, Hashable {
    /// It moves the position.
    case accept
    /// Dropped, and why.
    case reject(Rejection)
  }

  /// The limits used.
  public struct Settings: Sendable, Hashable {
    /// Faster than this between two fixes is no vehicle: the speed of sound at sea level
    /// (343 m/s, ISA); airliners cruise below it.
    public var vehicleSpeed = MetersPerSecond(343)
    /// A jump is implausible only if it is also this many times the receiver's own speed
    /// (a reported speed above `FixPlausibility.maxSpeed` is not believed).
    public var ownSpeedFactor = 3.0
    /// Consecutive mutually consistent "jumped" fixes that prove the receiver really is there
    /// (the current fix was the outlier, or the receiver was moved while off).
    public var confirmations = 3
    /// How fast an old fix's circle grows when the receiver reports no speed (walking pace,
    /// 1.5 m/s): after a few seconds a fresh worse fix wins.
    public var staleGrowth = MetersPerSecond(1.5)
    /// How far ahead of the clock a fix may be dated: 5 minutes. A receiver's UTC can be 18 s
    /// off before it has the leap seconds from the almanac, and a clock kept without NTP
    /// drifts by seconds a day; a fix further ahead means the clock or the source is wrong,
    /// and the source is reported as disagreeing with the clock (docs/NMEA.md, "Time").
    public var futureTolerance: Duration = .seconds(300)
    /// A source is live while its last fix came less than this ago; a live source outranks
    /// every less trusted one. The engine sets it to `FreshFor=`.
    public var liveFor: Duration = .seconds(10)
    /// Defaults.
    public init() {}
  }

  /// The current (last accepted) fix.
  struct Current: Sendable {
    var time: Instant
    /// The time it counts as when compared: its own, at most the clock when it came.
    var reference: Instant
    var coordinate: Coordinate
    var accuracy: Meters?
    var speed: MetersPerSecond?
    var source: SourceID
  }

  /// The settings.
  public var settings: Settings
  private var current: Current?
  /// The newest fix time of each source, with its reference time.
  private var newest: [SourceID: (time: Instant, reference: Instant)] = [:]
  /// The last time each source delivered a fix with a position and a believable time, with
  /// its trust then.
  private var seen: [SourceID: (trust: SourceTrust, at: Instant)] = [:]
  /// Fixes rejected as jumps, consistent with each other, newest last.
  private var suspects: [Current] = []

  /// Acceptance with `settings`, before any fix.
  public init(settings: Settings = Settings()) { self.settings = settings }

  /// Forgets the newest time of `source` (a new stream: a reconnect or a replay loop, whose
  /// times may start over) and, if the current fix came from it, the current fix's time too.
  public mutating func restarted(_ source: SourceID) {
    newest[source] = nil
    if current?.source == source { current = nil }
    suspects.removeAll()
  }

  /// The newest fix time of `source` that acceptance compares with (nil: none yet).
  public func newestTime(of source: SourceID) -> Instant? { newest[source]?.time }

  /// The live source that outranks one of trust `trust`, if any: the most trusted.
  public func outranking(_ trust: SourceTrust, other source: SourceID, at now: Instant) -> SourceID? {
    seen.filter { id, s in
      id != source && s.trust > trust && now.duration(since: s.at) < settings.liveFor
    }.max(by: { $0.value.trust < $1.value.trust })?.key
  }

  /// Judges `fix` from `source` (of trust `trust`) received at `now`; an accepted fix
  /// becomes the current one.
  public mutating func judge(_ fix: Fix, from source: SourceID, trust: SourceTrust = .system, at now: Instant)
    -> Verdict
  {
    guard fix.mode >= .twoD, let coordinate = fix.coordinate, fix.quality != .simulated else {
      return .reject(.noFix)
    }
    if fix.time.duration(since: now) > settings.futureTolerance { return .reject(.future) }
    // A repeat (a recording that loops) does not keep its source live: old before trust.
    if let n = newest[source], fix.time == n.time || fix.time < n.reference { return .reject(.old) }
    seen[source] = (trust, now)
    if outranking(trust, other: source, at: now) != nil { return .reject(.outranked) }
    let reference = min(fix.time, now)
    newest[source] = (fix.time, reference)
    let speed = fix.speed.flatMap { $0.value <= FixPlausibility.maxSpeed.value ? $0 : nil }
    let candidate = Current(
      time: fix.time, reference: reference, coordinate: coordinate, accuracy: fix.horizontalAccuracy,
      speed: speed, source: source)
    guard let current else {
      accept(candidate)
      return .accept
    }
    // Another source's fix older than the current one would move the position back in time.
    if source != current.source, reference < current.reference { return .reject(.old) }
    if isJump(from: current, to: candidate) {
      if let last = suspects.last, !isJump(from: last, to: candidate) {
        suspects.append(candidate)
      } else {
        suspects = [candidate]
      }
      if suspects.count >= settings.confirmations {
        accept(candidate)
        return .accept
      }
      return .reject(.implausibleJump)
    }
    suspects.removeAll()
    if let a = current.accuracy, let b = candidate.accuracy, b > a {
      // The current circle grows with its age at the receiver's speed (or walking pace).
      let age = max(0, reference.seconds(since: current.reference))
      let growth = max(current.speed?.value ?? 0, settings.staleGrowth.value)
      let radius = a.value + age * growth
      if b.value > radius, coordinate.distance(to: current.coordinate).value < radius {
        return .reject(.insideAccuracy)
      }
    }
    accept(candidate)
    return .accept
  }

  private mutating func accept(_ c: Current) {
    current = c
    suspects.removeAll()
  }

  /// Whether going from `a` to `b` needs a speed beyond any vehicle and beyond the receiver's
  /// own reported speed; the accuracy radii are given the benefit of the doubt.
  private func isJump(from a: Current, to b: Current) -> Bool {
    let seconds = max(1, b.reference.seconds(since: a.reference))
    let slack = (a.accuracy?.value ?? 0) + (b.accuracy?.value ?? 0)
    let implied = max(0, a.coordinate.distance(to: b.coordinate).value - slack) / seconds
    let own = max(a.speed?.value ?? 0, b.speed?.value ?? 0)
    return implied > settings.vehicleSpeed.value && implied > settings.ownSpeedFactor * own
  }
}
