/// Decides which fixes may move locd's position: drops invalid and no-fix fixes, fixes not
/// newer than the current one, implausible jumps, and a less accurate fix inside the current
/// accuracy circle, without ever letting an old precise fix beat a fresh worse one.
public struct FixAcceptance: Sendable {
  /// Why a fix was dropped.
  public enum Rejection: String, Sendable, Hashable, CaseIterable {
    /// No position (no fix, 1D) or a simulator's fix.
    case noFix = "no-fix"
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
    /// A jump is implausible only if it is also this many times the receiver's own speed.
    public var ownSpeedFactor = 3.0
    /// Consecutive mutually consistent "jumped" fixes that prove the receiver really is there
    /// (the current fix was the outlier, or the receiver was moved while off).
    public var confirmations = 3
    /// How fast an old fix's circle grows when the receiver reports no speed (walking pace,
    /// 1.5 m/s): after a few seconds a fresh worse fix wins.
    public var staleGrowth = MetersPerSecond(1.5)
    /// Defaults.
    public init() {}
  }

  /// The current (last accepted) fix.
  struct Current: Sendable {
    var time: Instant
    var coordinate: Coordinate
    var accuracy: Meters?
    var speed: MetersPerSecond?
    var source: SourceID
  }

  /// The settings.
  public var settings: Settings
  private var current: Current?
  private var newest: [SourceID: Instant] = [:]
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

  /// Judges `fix` from `source`; an accepted fix becomes the current one.
  public mutating func judge(_ fix: Fix, from source: SourceID) -> Verdict {
    guard fix.mode >= .twoD, let coordinate = fix.coordinate, fix.quality != .simulated else {
      return .reject(.noFix)
    }
    if let n = newest[source], fix.time <= n { return .reject(.old) }
    newest[source] = fix.time
    let candidate = Current(
      time: fix.time, coordinate: coordinate, accuracy: fix.horizontalAccuracy, speed: fix.speed,
      source: source)
    guard let current else {
      accept(candidate)
      return .accept
    }
    // Another source's fix older than the current one would move the position back in time.
    if source != current.source, fix.time < current.time { return .reject(.old) }
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
      let age = max(0, fix.time.seconds(since: current.time))
      let speed = max(current.speed?.value ?? 0, settings.staleGrowth.value)
      let radius = a.value + age * speed
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
    let seconds = max(1, b.time.seconds(since: a.time))
    let slack = (a.accuracy?.value ?? 0) + (b.accuracy?.value ?? 0)
    let implied = max(0, a.coordinate.distance(to: b.coordinate).value - slack) / seconds
    let own = max(a.speed?.value ?? 0, b.speed?.value ?? 0)
    return implied > settings.vehicleSpeed.value && implied > settings.ownSpeedFactor * own
  }
}
