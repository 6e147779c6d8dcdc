/// Beacon region monitoring and ranging as a pure state machine: inputs (a subscription
/// added or removed, a beacon heard, a tick) at an instant in, outputs (region entered or
/// exited, ranging lists, whether scanning is needed) out. It never reads a clock; the host
/// ticks it at `nextDeadline`.
///
/// - Monitoring: a region is `inside` from the first matching advertisement and `outside`
///   after `exitAfter` without one. A wildcard constraint makes many beacons one region: it
///   is left only when all of them are silent.
/// - Ranging: every `rangingInterval` (1 s) per request, the matching beacons heard within
///   `forgetAfter`, each with its smoothed RSSI (`RSSIMedianFilter`), distance and proximity
///   (`BeaconDistanceModel`), in `RangedBeacon.rangingOrder`. A beacon not heard within the
///   smoothing window reports `unknown`, then drops out after `forgetAfter`.
/// - Scanning is needed while any subscription lives (`.scanning` says when that changes).
/// - A clock set back moves every remembered instant after `now` to `now`.
public struct BeaconMachine: Sendable {
  /// Timing, model and bounds.
  public struct Configuration: Hashable, Sendable {
    /// How often a ranging list is delivered (Core Location: about once a second).
    public var rangingInterval: Duration = .seconds(1)
    /// The RSSI smoothing window.
    public var smoothingWindow: Duration = .seconds(5)
    /// At most this many samples per beacon are smoothed.
    public var smoothingSamples = 20
    /// A beacon not heard for this long leaves ranging lists (it reports `unknown` from the
    /// end of the smoothing window until then).
    public var forgetAfter: Duration = .seconds(10)
    /// RSSI to distance and proximity.
    public var model = BeaconDistanceModel()
    /// Live subscriptions at most (the engine's per-client limits come first).
    public var maxSubscriptions = 256
    /// Beacons ranged at most; when full, the silent ones and then the eighth heard longest
    /// ago make room for new ones.
    public var maxBeacons = 256

    /// The defaults.
    public init() {}
  }

  /// What the machine has counted. Counters only grow.
  public struct Counters: Hashable, Sendable {
    /// Sightings received.
    public var sightings = 0
    /// Sightings no subscription wanted.
    public var unmatched = 0
    /// Beacons forgotten early to make room (`maxBeacons`).
    public var evictedBeacons = 0
    /// Subscriptions refused.
    public var refused = 0
    /// Inputs whose instant was before an earlier input's (clock set back).
    public var clockWentBack = 0

    /// All zero.
    public init() {}
  }

  /// The configuration.
  public let configuration: Configuration
  /// Counters.
  public private(set) var counters = Counters()

  private struct Monitor: Sendable {
    var id: BeaconSubscriptionID
    var constraint: BeaconConstraint
    var exitAfter: Duration
    var state = BeaconRegionState.unknown
    /// When the monitor started or the region was last heard (its exit clock).
    var since: Instant
  }

  private struct Ranging: Sendable {
    var id: BeaconSubscriptionID
    var constraint: BeaconConstraint
    var due: Instant
  }

  private struct BeaconKey: Hashable, Sendable {
    var identity: BeaconIdentity
    var address: BluetoothAddress
  }

  private struct Tracked: Sendable {
    var lastHeard: Instant
    var filter: RSSIMedianFilter
    var calibratedPower: DecibelMilliwatts?
  }

  // Arrays in id order: outputs come in a stable order, and the per-advertisement loop
  // mutates in place without copying a dictionary it iterates.
  private var monitors: [Monitor] = []
  private var rangings: [Ranging] = []
  private var beacons: [BeaconKey: Tracked] = [:]
  /// The latest instant of any input.
  private var latest: Instant?

  /// An idle machine.
  public init(configuration: Configuration = Configuration()) {
    self.configuration = configuration
  }

  /// Whether the host should scan for beacons (BlueZ discovery on, or a capture read).
  public var scanningNeeded: Bool { !monitors.isEmpty || !rangings.isEmpty }

  /// The state of a monitored region; `nil` for an id that is not a monitor.
  public func regionState(_ id: BeaconSubscriptionID) -> BeaconRegionState? {
    monitors.first(where: { $0.id == id })?.state
  }

  /// Live subscriptions.
  public var subscriptionCount: Int { monitors.count + rangings.count }

  /// Beacons remembered for ranging now.
  public var trackedBeaconCount: Int { beacons.count }

  /// When the machine next needs a `.tick`: the earliest ranging list due, region exit, or
  /// first determination; `nil` when nothing is pending.
  public var nextDeadline: Instant? {
    var next: Instant?
    func consider(_ t: Instant) { if next.map({ t < $0 }) ?? true { next = t } }
    for r in rangings { consider(r.due) }
    for m in monitors where m.state != .outside { consider(m.since.adding(m.exitAfter)) }
    return next
  }

  /// Handles one input at `now`; returns what to deliver, in order.
  public mutating func handle(_ input: BeaconInput, at now: Instant) -> [BeaconOutput] {
    if let latest, now < latest {
      counters.clockWentBack += 1
      clamp(to: now)
    }
    latest = max(latest ?? now, now)
    switch input {
    case .subscribe(let id, let subscription):
      return subscribe(id, subscription, at: now)
    case .unsubscribe(let id):
      let before = scanningNeeded
      remove(id)
      if rangings.isEmpty { beacons.removeAll() }
      return before != scanningNeeded ? [.scanning(needed: scanningNeeded)] : []
    case .heard(let sighting):
      return heard(sighting, at: now)
    case .tick:
      return tick(at: now)
    }
  }

  private mutating func subscribe(
    _ id: BeaconSubscriptionID, _ subscription: BeaconSubscription, at now: Instant
  ) -> [BeaconOutput] {
    let before = scanningNeeded
    let replacing = remove(id)
    var refusal: BeaconRefusal?
    switch subscription {
    case .monitor(let constraint, let exitAfter):
      if exitAfter <= .zero {
        refusal = .invalidExitAfter
      } else if replacing || subscriptionCount < configuration.maxSubscriptions {
        let at = monitors.firstIndex(where: { $0.id > id }) ?? monitors.endIndex
        monitors.insert(Monitor(id: id, constraint: constraint, exitAfter: exitAfter, since: now), at: at)
      } else {
        refusal = .tooManySubscriptions
      }
    case .range(let constraint):
      if replacing || subscriptionCount < configuration.maxSubscriptions {
        let at = rangings.firstIndex(where: { $0.id > id }) ?? rangings.endIndex
        rangings.insert(
          Ranging(id: id, constraint: constraint, due: now.adding(configuration.rangingInterval)), at: at)
      } else {
        refusal = .tooManySubscriptions
      }
    }
    var outputs: [BeaconOutput] = []
    if let refusal {
      counters.refused += 1
      outputs.append(.refused(id, refusal))
    }
    if before != scanningNeeded { outputs.append(.scanning(needed: scanningNeeded)) }
    return outputs
  }

  /// Removes subscription `id`; returns whether there was one.
  @discardableResult private mutating func remove(_ id: BeaconSubscriptionID) -> Bool {
    let count = subscriptionCount
    monitors.removeAll { $0.id == id }
    rangings.removeAll { $0.id == id }
    return subscriptionCount != count
  }

  private mutating func heard(_ sighting: BeaconSighting, at now: Instant) -> [BeaconOutput] {
    counters.sightings += 1
    var outputs: [BeaconOutput] = []
    var wanted = false
    for i in monitors.indices where monitors[i].constraint.matches(sighting.identity) {
      wanted = true
      monitors[i].since = now
      if monitors[i].state != .inside {
        monitors[i].state = .inside
        outputs.append(.region(monitors[i].id, .entered))
      }
    }
    if rangings.contains(where: { $0.constraint.matches(sighting.identity) }) {
      wanted = true
      track(sighting, at: now)
    }
    if !wanted { counters.unmatched += 1 }
    return outputs
  }

  /// Remembers a sighting for ranging.
  private mutating func track(_ sighting: BeaconSighting, at now: Instant) {
    let key = BeaconKey(identity: sighting.identity, address: sighting.address)
    var index = beacons.index(forKey: key)
    if index == nil {
      if beacons.count >= configuration.maxBeacons { makeRoom(at: now) }
      let filter = RSSIMedianFilter(
        window: configuration.smoothingWindow, capacity: configuration.smoothingSamples)
      beacons[key] = Tracked(lastHeard: now, filter: filter)
      index = beacons.index(forKey: key)
    }
    // One lookup for all three updates.
    let i = index!
    beacons.values[i].lastHeard = now
    if let power = sighting.calibratedPower { beacons.values[i].calibratedPower = power }
    if let rssi = sighting.rssi { beacons.values[i].filter.add(rssi, at: now) }
  }

  /// The table is full: forget the silent beacons, and if that is not enough the eighth heard
  /// longest ago, so a flood of new addresses costs one sort per `maxBeacons / 8` of them,
  /// not a scan per advertisement.
  private mutating func makeRoom(at now: Instant) {
    forgetSilent(at: now)
    guard beacons.count >= configuration.maxBeacons else { return }
    let evict = max(1, configuration.maxBeacons / 8)
    let oldest = beacons.sorted { $0.value.lastHeard < $1.value.lastHeard }.prefix(evict)
    for (key, _) in oldest { beacons[key] = nil }
    counters.evictedBeacons += oldest.count
  }

  private mutating func tick(at now: Instant) -> [BeaconOutput] {
    var outputs: [BeaconOutput] = []
    for i in monitors.indices
    where monitors[i].state != .outside && now >= monitors[i].since.adding(monitors[i].exitAfter) {
      outputs.append(.region(monitors[i].id, monitors[i].state == .inside ? .exited : .determinedOutside))
      monitors[i].state = .outside
    }
    forgetSilent(at: now)
    guard rangings.contains(where: { $0.due <= now }) else { return outputs }
    let all = rangedBeacons(at: now)
    for i in rangings.indices where rangings[i].due <= now {
      outputs.append(.ranged(rangings[i].id, all.filter { rangings[i].constraint.matches($0.identity) }))
      let next = rangings[i].due.adding(configuration.rangingInterval)
      rangings[i].due = next > now ? next : now.adding(configuration.rangingInterval)
    }
    return outputs
  }

  /// Every remembered beacon as ranging reports it at `now`, in ranging order.
  private func rangedBeacons(at now: Instant) -> [RangedBeacon] {
    var list: [RangedBeacon] = []
    list.reserveCapacity(beacons.count)
    for (key, beacon) in beacons {
      let rssi = beacon.filter.median(at: now)
      let accuracy = configuration.model.accuracy(rssi: rssi, calibratedPower: beacon.calibratedPower)
      list.append(
        RangedBeacon(
          identity: key.identity, address: key.address, rssi: rssi, accuracy: accuracy,
          proximity: configuration.model.proximity(accuracy), lastHeard: beacon.lastHeard))
    }
    list.sort(by: RangedBeacon.rangingOrder)
    return list
  }

  /// Drops the beacons not heard within `forgetAfter`.
  private mutating func forgetSilent(at now: Instant) {
    let horizon = now.adding(Duration.zero - configuration.forgetAfter)
    if beacons.values.contains(where: { $0.lastHeard <= horizon }) {
      beacons = beacons.filter { $0.value.lastHeard > horizon }
    }
  }

  /// After the clock was set back: nothing remembered lies after `now`.
  private mutating func clamp(to now: Instant) {
    for i in monitors.indices where monitors[i].since > now { monitors[i].since = now }
    let nextRanging = now.adding(configuration.rangingInterval)
    for i in rangings.indices where rangings[i].due > nextRanging { rangings[i].due = nextRanging }
    for key in beacons.keys {
      if beacons[key]!.lastHeard > now { beacons[key]!.lastHeard = now }
      beacons[key]!.filter.clamp(to: now)
    }
  }
}
