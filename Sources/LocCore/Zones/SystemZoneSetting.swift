/// The system time zone as locd sets it (`[TimeZone] SetSystemTimeZone=yes`): the zone the
/// system has as far as locd knows, the zone it asked timedated for, how that call ended, and
/// when to ask again after a refusal. A pure value the zone machine holds; the shell makes the
/// call (`Effect.setSystemTimeZone`) and reports its end (`EngineEvent.systemZoneSet`).
struct SystemZoneSetting: Sendable, Hashable {
  /// How long a refused or failed call waits before it is made again (a reload or a new zone
  /// asks at once).
  static let retryInterval = Duration.seconds(600)

  /// The system's zone as locd knows it: found at start, then the last zone set.
  private var known: String
  /// The zone asked for and not yet set (the call is out, or it failed).
  private var wanted: String?
  /// Whether the call for `wanted` is out.
  private var asking = false
  /// When locd last set the system zone.
  private var setAt: Instant?
  /// Why the last call for `wanted` failed, while it does.
  private var problem: String?
  /// Since when calls for `wanted` fail.
  private var failingSince: Instant?
  /// When the failed call is made again.
  private var retryAt: Instant?

  /// A setting that knows the system's zone to be `zone`.
  init(found zone: String) { known = zone }

  /// The zone from the position is now `zone`: the zone to ask timedated for, or nil when
  /// the system has it or it was already asked for.
  mutating func want(_ zone: String) -> String? {
    if zone == wanted { return nil }
    if zone == known && wanted == nil { return nil }
    wanted = zone
    asking = true
    problem = nil
    failingSince = nil
    retryAt = nil
    return zone
  }

  /// The call for `zone` ended at `now`, with `problem` when it failed; returns when to ask
  /// again (nil: nothing to retry).
  mutating func ended(_ zone: String, problem: String?, at now: Instant) -> Instant? {
    guard zone == wanted else {
      // An answer to an older call, overtaken by a newer zone: it tells what the system has.
      if problem == nil {
        known = zone
        setAt = now
      }
      return retryAt
    }
    asking = false
    if let problem {
      self.problem = problem
      if failingSince == nil { failingSince = now }
      retryAt = now.adding(SystemZoneSetting.retryInterval)
    } else {
      known = zone
      setAt = now
      wanted = nil
      self.problem = nil
      failingSince = nil
      retryAt = nil
    }
    return retryAt
  }

  /// Asks again for the zone whose call failed (its retry is due, or a reload); nil when
  /// nothing failed or the call is out.
  mutating func retry() -> String? {
    guard let wanted, !asking, problem != nil else { return nil }
    asking = true
    retryAt = nil
    return wanted
  }

  /// When the failed call is made again.
  var nextRetry: Instant? { retryAt }

  /// What status shows.
  var report: SystemZoneReport {
    SystemZoneReport(
      zone: known, wanted: wanted, setAt: setAt, problem: problem, failingSince: failingSince,
      retryAt: retryAt)
  }
}

/// The system time zone in `status` while `[TimeZone] SetSystemTimeZone=yes`: what the system
/// has as far as locd knows, what locd asked for and how that ended.
public struct SystemZoneReport: Sendable, Hashable {
  /// The system's zone: as found at start, or as locd last set it.
  public var zone: String
  /// The zone locd asked timedated for and that is not set yet (the call is out, or failed).
  public var wanted: String?
  /// When locd last set the system zone.
  public var setAt: Instant?
  /// Why the call for `wanted` failed (timedated's or polkit's words), while it does.
  public var problem: String?
  /// Since when the calls for `wanted` fail.
  public var failingSince: Instant?
  /// When the failed call is made again.
  public var retryAt: Instant?

  /// A report from its parts.
  public init(
    zone: String, wanted: String?, setAt: Instant?, problem: String?, failingSince: Instant?,
    retryAt: Instant?
  ) {
    self.zone = zone
    self.wanted = wanted
    self.setAt = setAt
    self.problem = problem
    self.failingSince = failingSince
    self.retryAt = retryAt
  }
}
