/// The engine's regions and visits concern (docs/REGIONS.md): one `RegionMonitor` for every
/// app's regions and one `VisitMonitor` for the device, fed with accepted fixes.
///
/// Apps are owners: (uid, app id) maps to a `RegionOwner` number the first time an app
/// registers a region. Outputs name the app; the engine delivers them through the apps
/// machine's gate. Visits are evaluated only while some app monitors them; when the last
/// one stops, the current visit is forgotten (it never reaches the disk).
struct RegionsMachine: EngineMachine {
  /// What happens to the regions and visits: fixes and time. Registrations and queries are
  /// methods of their own, each with its own answer.
  enum Input: Sendable, Hashable {
    /// An accepted fix.
    case fix(Fix)
    /// Time passed: dwell deadlines.
    case tick
  }

  /// An event for apps.
  enum Output: Sendable, Hashable {
    /// For the app that owns the region.
    case region(AppKey, RegionNotice)
    /// For every app that monitors visits.
    case visit(VisitEvent)
  }

  /// What this machine counts besides the monitors' counters.
  struct Counters: Sendable, Hashable {
    /// Registrations refused because the app has reduced accuracy.
    var refusedReduced = 0
    /// Registrations refused because the app may not have the location (not determined,
    /// denied, restricted).
    var refusedUnauthorized = 0
    /// Region events not delivered because the app may not have them now (when in use and
    /// not in use, denied, not determined).
    var notDelivered = 0
    /// Fixes for regions and visits the hint asked acquisition for.
    var hintTriggers = 0
    /// `region-state` answers whose states were withheld (read `unknown`) because the app
    /// may not have the location precisely now.
    var statesWithheld = 0
  }

  /// The region monitor (every app's regions).
  private var monitor: RegionMonitor
  /// The visit monitor (the device's current place).
  private var visits = VisitMonitor()
  /// The settings in effect.
  private var settings: RegionsSettings
  /// The owner number of each app that registered regions.
  private var owners: [AppKey: RegionOwner] = [:]
  /// The app of each owner number.
  private var keys: [RegionOwner: AppKey] = [:]
  /// The next owner number.
  private var nextOwner: UInt32 = 1
  /// Apps that monitor visits (connected or not).
  private var visitApps: Set<AppKey> = []
  /// When the hint last asked acquisition for a fix.
  private var lastTrigger: Instant?
  /// Counters.
  private var counters = Counters()
  /// The bytes each user's regions take in the user's apps file (`AppStore.storedBytes`).
  private var storedBytes: [UInt32: Int] = [:]

  /// A machine with `settings`, no regions.
  init(settings: RegionsSettings) {
    self.settings = settings
    monitor = RegionMonitor(configuration: settings.monitor)
  }

  /// New settings: the limits apply to registrations from now on (regions already
  /// registered stay); the hint uses the new speed and floor.
  mutating func configure(_ settings: RegionsSettings) {
    self.settings = settings
    let rule = monitor.configuration.rule
    monitor.configuration = settings.monitor
    monitor.configuration.rule = rule
  }

  /// Whether there is anything to evaluate a fix for.
  var isMonitoring: Bool { monitor.count > 0 || !visitApps.isEmpty }

  /// Apps with at least one region.
  var appsWithRegions: Int { owners.values.filter { monitor.count(for: $0) > 0 }.count }

  /// The owner number of `key`, if it registered regions.
  func owner(of key: AppKey) -> RegionOwner? { owners[key] }

  private mutating func ensureOwner(_ key: AppKey) -> RegionOwner {
    if let o = owners[key] { return o }
    let o = RegionOwner(nextOwner)
    nextOwner += 1
    owners[key] = o
    keys[o] = key
    return o
  }

  /// Registers `region` for `key` (its state starts unknown), within the user's share and,
  /// given `room`, within the bytes the user's regions may take in the user's apps file.
  mutating func register(
    _ region: CircularRegion, for key: AppKey, room: Int? = nil, at now: Instant
  ) -> RegionError? {
    if count(forUser: key.uid) >= settings.maxRegionsPerUser {
      monitor.countRefusal()
      return .tooManyForUser(limit: settings.maxRegionsPerUser)
    }
    let bytes = AppStore.storedBytes(of: region)
    if let room, storedBytes[key.uid, default: 0] + bytes > room {
      monitor.countRefusal()
      return .storeFull(limit: room)
    }
    let owner = ensureOwner(key)
    let out = monitor.handle(.register(owner, region), at: now)
    if case .refused(_, _, let error)? = out.first { return error }
    storedBytes[key.uid, default: 0] += bytes
    return nil
  }

  /// Unregisters one of `key`'s regions.
  mutating func unregister(_ id: RegionID, for key: AppKey, at now: Instant) -> RegionError? {
    guard let owner = owners[key] else { return .notFound(id) }
    let region = monitor.region(id, for: owner)
    if case .refused(_, _, let error)? = monitor.handle(.unregister(owner, id), at: now).first {
      return error
    }
    if let region { storedBytes[key.uid, default: 0] -= AppStore.storedBytes(of: region) }
    return nil
  }

  /// Unregisters all of `key`'s regions; returns how many there were.
  mutating func unregisterAll(for key: AppKey, at now: Instant) -> Int {
    guard let owner = owners[key] else { return 0 }
    let bytes = monitor.regions(of: owner).reduce(0) { $0 + AppStore.storedBytes(of: $1.region) }
    storedBytes[key.uid, default: 0] -= bytes
    return monitor.handle(.unregisterAll(owner), at: now).count
  }

  /// The state of one of `key`'s regions now (nil: it has no such region).
  func state(of id: RegionID, for key: AppKey) -> RegionState? {
    owners[key].flatMap { monitor.state(of: id, for: $0) }
  }

  /// `key`'s regions with their states, by id.
  func regions(of key: AppKey) -> [RegionMonitor.Monitored] {
    owners[key].map { monitor.regions(of: $0) } ?? []
  }

  /// How many regions the apps of user `uid` monitor.
  func count(forUser uid: UInt32) -> Int {
    owners.reduce(0) { $0 + ($1.key.uid == uid ? monitor.count(for: $1.value) : 0) }
  }

  /// How many regions `key` monitors.
  func count(for key: AppKey) -> Int { owners[key].map { monitor.count(for: $0) } ?? 0 }

  /// `key` starts or stops monitoring visits; the visit state is forgotten when nobody does.
  mutating func monitorVisits(_ on: Bool, for key: AppKey) {
    if on { visitApps.insert(key) } else { visitApps.remove(key) }
    if visitApps.isEmpty { visits.reset() }
  }

  /// Takes `input` at `now` and returns the events for apps, in order.
  mutating func handle(_ input: Input, at now: Instant) -> [Output] {
    switch input {
    case .fix(let accepted): fix(accepted, at: now)
    case .tick: tick(at: now)
    }
  }

  /// An accepted fix: the monitors evaluate it at its own time. A fix without an accuracy
  /// figure is not evaluated (the rule needs one).
  private mutating func fix(_ fix: Fix, at now: Instant) -> [Output] {
    guard isMonitoring, let c = fix.coordinate, let accuracy = fix.horizontalAccuracy else { return [] }
    let at = min(fix.time, now)
    var outputs: [Output] = []
    if monitor.count > 0 {
      // The monitor's outputs first: passed straight to `notices` (a non-mutating call on
      // self), the monitor would be mutated while a copy of self held its storage, and every
      // change to it would copy its arrays.
      let out = monitor.handle(.fix(c, accuracy: accuracy), at: at)
      outputs += notices(out, at: at)
    }
    if !visitApps.isEmpty { outputs += visits.handle(fix: c, accuracy: accuracy, at: at).map(Output.visit) }
    return outputs
  }

  /// Time passed: dwell deadlines.
  private mutating func tick(at now: Instant) -> [Output] {
    let out = monitor.handle(.tick, at: now)
    return notices(out, at: now)
  }

  /// The earliest dwell deadline.
  var nextDeadline: Instant? { monitor.count > 0 ? monitor.nextDeadline : nil }

  /// When the next fix could matter to regions or visits, and why (nil: nothing monitored).
  func hint(at now: Instant, refresh: Duration) -> FixHint? {
    let policy = settings.policy(refresh: refresh)
    var hint = monitor.count > 0 ? monitor.acquisitionHint(at: now, policy: policy) : nil
    if !visitApps.isEmpty { hint = FixHint.earliest(hint, visits.acquisitionHint(at: now)) }
    guard var h = hint else { return nil }
    // Never two region-triggered attempts closer than the floor, even while no fix comes.
    if let last = lastTrigger, h.due < last.adding(policy.floor) {
      h.due = last.adding(policy.floor)
      h.bound = .floor
    }
    return h
  }

  /// Counts one more of `counter` (the engine's refusals and withheld answers).
  mutating func count(_ counter: WritableKeyPath<Counters, Int>) { counters[keyPath: counter] += 1 }

  /// Whether status shows regions: something is monitored, or was (counters say so).
  var hasReport: Bool {
    isMonitoring || counters != Counters() || monitor.counters != RegionMonitor.Counters()
      || visits.counters != VisitMonitor.Counters()
  }

  /// The report at `now` (the hint with the periodic refresh as its ceiling).
  func report(at now: Instant, refresh: Duration) -> RegionsReport {
    let hint = hint(at: now, refresh: refresh)
    let m = monitor.counters
    let v = visits.counters
    return RegionsReport(
      regions: monitor.count, apps: appsWithRegions, visitApps: visitApps.count,
      visiting: visits.current != nil,
      nextFixDue: hint?.due, because: hint?.because,
      counters: [
        Counter("fixes", m.fixes), Counter("ignoredFixes", m.ignoredFixes), Counter("refused", m.refused),
        Counter("refusedReduced", counters.refusedReduced),
        Counter("refusedUnauthorized", counters.refusedUnauthorized), Counter("transitions", m.transitions),
        Counter("dwells", m.dwells), Counter("notDelivered", counters.notDelivered),
        Counter("hintTriggers", counters.hintTriggers), Counter("statesWithheld", counters.statesWithheld),
        Counter("visitFixes", v.fixes),
        Counter("arrivals", v.arrivals), Counter("departures", v.departures),
      ])
  }

  /// The hint asked acquisition for a fix at `now`.
  mutating func triggered(at now: Instant) {
    lastTrigger = now
    counters.hintTriggers += 1
  }

  /// The monitor's outputs as notices for apps: transitions the app asked for and dwells, in
  /// owner and region order (the first fix's determinations that are no event are left out
  /// before sorting).
  private func notices(_ outputs: [RegionOutput], at now: Instant) -> [Output] {
    var result: [Output] = []
    let events = outputs.filter {
      switch $0 {
      case .transition(let t): return t.notify
      case .dwelled: return true
      default: return false
      }
    }
    for output in events.sorted(by: RegionOutput.inOrder) {
      switch output {
      case .transition(let t) where t.notify:
        guard let key = keys[t.owner] else { continue }
        let event: RegionNotice.Event = t.to == .inside ? .enter : .exit
        result.append(
          .region(key, RegionNotice(id: t.id, event: event, state: t.to, at: t.at, since: t.firstSeen)))
      case .dwelled(let owner, let id, let since):
        guard let key = keys[owner] else { continue }
        result.append(
          .region(key, RegionNotice(id: id, event: .dwell, state: .inside, at: now, since: since)))
      default: continue
      }
    }
    return result
  }
}
