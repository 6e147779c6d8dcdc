/// The time zone: the zone data (boundaries, rules parsed on demand), the zone adopted from
/// fixes with border hysteresis, the zone in effect at the last regeneration, and the system
/// zone as locd last set it.
struct ZoneMachine: EngineMachine {
  /// What adopting a regenerated zone means.
  struct Adoption: Sendable, Hashable {
    /// The change of zone or UTC offset to announce, if any.
    var change: ZoneChange?
    /// The zone to make the system's (`SetSystemTimeZone=yes`), if it changes.
    var setSystemZone: String?
  }

  private let zoneAt: @Sendable (Coordinate) -> String?
  private let borderLookup: (@Sendable (Coordinate) -> Meters?)?
  private let systemZone: String
  private var cache: ZoneRulesCache
  /// Zones whose problem has been reported since the data was loaded.
  private var reported: Set<String> = []
  /// The zone adopted from fixes, with border hysteresis.
  private var hysteresis = ZoneHysteresis()
  /// The system zone as locd sets it (`SetSystemTimeZone=`): asked, set, refused.
  private var system: SystemZoneSetting
  /// The zone in effect at the last regeneration (id, offset, abbreviation).
  private var inEffect: ZoneReport?
  /// The border distance the last `status` answer probed (`nearBorder`).
  private var borderMemo: BorderMemo?

  /// A machine over the environment's data.
  init(environment: EngineEnvironment, settings: ZoneHysteresis.Settings) {
    zoneAt = environment.zoneAt
    borderLookup = environment.borderDistance
    systemZone = environment.systemZone
    system = SystemZoneSetting(found: environment.systemZone)
    cache = ZoneRulesCache(catalog: environment.zones)
    hysteresis.settings = settings
  }

  /// The data in use.
  var catalog: ZoneCatalog { cache.catalog }

  /// New hysteresis settings (reload).
  mutating func configure(_ settings: ZoneHysteresis.Settings) { hysteresis.settings = settings }

  /// At start: the zone of the last known position is adopted at once.
  mutating func started(from coordinate: Coordinate?, at now: Instant) {
    if let coordinate { hysteresis.reset(to: zoneAt(coordinate), at: now) }
  }

  /// An accepted fix; returns whether it changed the adopted zone (not the first adoption).
  mutating func observe(_ coordinate: Coordinate, time: Instant, accuracy: Meters?) -> Bool {
    let before = hysteresis.adopted
    let adopted = hysteresis.observe(
      zoneAt(coordinate), at: coordinate, time: time, accuracy: accuracy,
      // No border within the probe's reach: at least that far into the zone.
      borderDistance: borderLookup.map { lookup in lookup(coordinate) ?? BorderProbe.reach })
    return adopted != nil && adopted != before && before != nil
  }

  /// The zone adopted from fixes, if any.
  var adopted: String? { hysteresis.adopted }

  /// Whether a candidate zone still needs fixes to be decided.
  var wantsFixes: Bool { hysteresis.wantsFixes }

  /// New zone data (tzdata changed, or a reload read it again): parsed zones are forgotten
  /// and problems are reported again.
  mutating func replace(_ catalog: ZoneCatalog) {
    cache = ZoneRulesCache(catalog: catalog)
    reported = []
  }

  /// The zone in effect at `now` for a resolved position, parsing its rules if needed.
  mutating func report(for resolved: ResolvedPosition, configured: String?, at now: Instant) -> ZoneReport {
    var report = choose(for: resolved, configured: configured)
    ZoneMachine.fill(&report, cache.rules(report.id), at: now)
    return report
  }

  /// The same, without keeping what it parses (for status queries outside `handle`).
  func peekReport(for resolved: ResolvedPosition, configured: String?, at now: Instant) -> ZoneReport {
    var report = choose(for: resolved, configured: configured)
    ZoneMachine.fill(&report, cache.peek(report.id), at: now)
    return report
  }

  /// The rules to plan `zone` with: its own, or UTC with the problem when it has none. The
  /// problem comes once per zone until the data changes.
  mutating func planningRules(for zone: String) -> (rules: ZoneRules, problem: ZoneProblem?) {
    switch cache.rules(zone) {
    case .success(let rules): return (rules, nil)
    case .failure(let problem):
      return (.utc, reported.insert(zone).inserted ? problem : nil)
    }
  }

  /// The rules of `zone` if it has any, without keeping them.
  func peekRules(_ zone: String) -> ZoneRules? { try? cache.peek(zone).get() }

  /// Why the zone needs regenerating when `zone` differs from the one in effect (another
  /// zone, or the same zone at another UTC offset); nil when it does not.
  func drift(_ zone: ZoneReport) -> RegenerationReason? {
    guard let current = inEffect else { return nil }
    if zone.id != current.id { return .timezone }
    return zone.offsetSeconds != current.offsetSeconds ? .utcOffset : nil
  }

  /// Makes `zone` the zone in effect after a regeneration for `reason`.
  mutating func adopt(_ zone: ZoneReport, reason: RegenerationReason, setSystemZone: Bool) -> Adoption {
    var adoption = Adoption()
    let old = inEffect
    inEffect = zone
    if let old, old.id != zone.id || old.offsetSeconds != zone.offsetSeconds {
      adoption.change = ZoneChange(from: old, to: zone, reason: old.id == zone.id ? .utcOffset : reason)
    }
    if setSystemZone, zone.origin == .position {
      adoption.setSystemZone = system.want(zone.id)
    }
    return adoption
  }

  /// The call setting the system zone to `zone` ended, with `problem` when it failed; returns
  /// when to ask again (nil: nothing to retry).
  mutating func systemZoneSet(_ zone: String, problem: String?, at now: Instant) -> Instant? {
    system.ended(zone, problem: problem, at: now)
  }

  /// The zone to ask for again after a failed call (its retry is due, or a reload), if any.
  mutating func retrySystemZone() -> String? { system.retry() }

  /// The system zone as locd sets it, for status.
  var systemZoneReport: SystemZoneReport { system.report }

  /// The boundary data's estimate of the distance to the nearest border, when under 10 km,
  /// answered from `kept` when that was probed at the same place. A probe is hundreds of
  /// zone lookups (BorderProbe), and the boundaries never change while the engine runs (new
  /// tzdata replaces only the rules), so a client polling `status` at one place pays once.
  func nearBorder(_ coordinate: Coordinate, kept: BorderMemo?) -> BorderMemo {
    if let kept, kept.coordinate == coordinate { return kept }
    guard let d = borderLookup?(coordinate), d.value < 10_000 else {
      return BorderMemo(coordinate: coordinate, distance: nil)
    }
    return BorderMemo(coordinate: coordinate, distance: d)
  }

  /// The last place a `status` answer probed, and its answer.
  var keptBorder: BorderMemo? { borderMemo }

  /// Keeps what a `status` answer probed.
  mutating func keep(_ border: BorderMemo?) { borderMemo = border }

  /// Which zone, from where, and why, before its rules are consulted.
  private func choose(for resolved: ResolvedPosition, configured: String?) -> ZoneReport {
    switch resolved.tier {
    case .manual:
      if let c = resolved.position?.coordinate, let z = zoneAt(c) {
        let place = resolved.position?.origin == .staticFile ? "static location" : "manual location"
        return ZoneReport(id: z, origin: .position, reason: "\(z) at the \(place)")
      }
    case .fix, .cached:
      if let z = hysteresis.adopted {
        return ZoneReport(id: z, origin: .position, reason: hysteresis.explanation)
      }
      // A Wi-Fi, cell or IP answer comes once per MaxAge=, too seldom for the hysteresis's fixes in
      // a row: until a receiver's fixes adopt a zone, the zone at that position answers.
      if let p = resolved.position, [.wifi, .cell, .ip].contains(p.origin), let z = zoneAt(p.coordinate) {
        return ZoneReport(id: z, origin: .position, reason: "\(z) at the \(p.origin.rawValue) position")
      }
    case .none:
      break
    }
    if let configured { return ZoneReport(id: configured, origin: .configured) }
    return ZoneReport(id: systemZone, origin: .system)
  }

  /// Adds the offset and abbreviation at `now`, or says why there are none.
  private static func fill(
    _ report: inout ZoneReport, _ rules: Result<ZoneRules, ZoneProblem>, at now: Instant
  ) {
    switch rules {
    case .success(let rules):
      report.offsetSeconds = rules.utcOffsetSeconds(at: now)
      report.abbreviation = rules.abbreviation(at: now)
    case .failure(let problem):
      report.reason = [report.reason, "\(problem); planning in UTC"].compactMap { $0 }.joined(separator: "; ")
    }
  }
}

/// The distance to the nearest zone border as probed at one place (nil: none within 10 km).
struct BorderMemo {
  var coordinate: Coordinate
  var distance: Meters?
}
