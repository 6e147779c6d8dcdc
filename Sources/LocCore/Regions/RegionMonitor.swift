/// Circular-region monitoring for every owner as one pure state machine: register and
/// unregister regions, fixes and ticks in (each at an instant), transitions and dwell
/// events out. It never reads a clock; the host ticks it at `nextDeadline` and plans fixes
/// with `acquisitionHint`.
///
/// - State per region follows `RegionRule`: a fix moves a region only when its accuracy
///   circle (at least `marginFloor` wide) is wholly on one side, and a known state flips only
///   after `confirmation` on the new side.
/// - The work per fix does not grow with the number of regions: it visits the regions
///   whose state is not plainly "outside" (unknown, inside, or a crossing being confirmed:
///   the active list) and asks the spatial index (`RegionGrid`) for the regions whose
///   circle could hold the fix by the margin. Every other region is outside by the margin,
///   and stays outside.
/// - Regions of one owner have distinct ids; limits per owner and in total are refused with
///   `RegionError`.
public struct RegionMonitor: Sendable {
  /// Limits and the rule.
  public struct Configuration: Hashable, Sendable {
    /// Regions one owner may register (the default: 10,000 per app).
    public var maxRegionsPerOwner = 10_000
    /// Regions over all owners (default 100,000).
    public var maxRegions = 100_000
    /// The accuracy rule.
    public var rule = RegionRule()
    /// The defaults.
    public init() {}
  }

  /// What the monitor has counted. Counters only grow.
  public struct Counters: Hashable, Sendable {
    /// Fixes evaluated.
    public var fixes = 0
    /// Fixes ignored because their accuracy was negative, NaN or infinite.
    public var ignoredFixes = 0
    /// Registrations refused.
    public var refused = 0
    /// Transitions reported.
    public var transitions = 0
    /// Dwell events reported.
    public var dwells = 0
    /// Inputs whose instant was before an earlier input's (clock set back).
    public var clockWentBack = 0
    /// Index cells looked up (work, for the benchmark).
    public var cellsProbed = 0
    /// Regions the index offered as candidates (work).
    public var candidates = 0
    /// Exact distance computations, where the chord did not decide (work).
    public var distances = 0
    /// All zero.
    public init() {}
  }

  /// A region as registered, with its current state (for listing and persistence).
  public struct Monitored: Hashable, Sendable {
    /// The region as registered.
    public var region: CircularRegion
    /// Its state now.
    public var state: RegionState
    /// A region and its state.
    public init(region: CircularRegion, state: RegionState) {
      self.region = region
      self.state = state
    }
  }

  /// The last fix the monitor evaluated.
  public struct LastFix: Hashable, Sendable {
    /// Where.
    public var coordinate: Coordinate
    /// Its accuracy.
    public var accuracy: Meters
    /// When.
    public var at: Instant
  }

  /// A region whose state is not plainly outside, with the timing of its state.
  struct Active: Sendable {
    var slot: Int32
    /// The first fix on the other side of a known state, while the crossing is confirmed.
    var pendingSince: Instant?
    /// Inside since (the first fix of the confirmed entry).
    var insideSince: Instant?
    /// The dwell event of this stay was reported.
    var dwellDone = false
  }

  /// Limits and the rule. Lowering a limit keeps the regions already registered.
  public var configuration: Configuration
  /// Counters.
  public internal(set) var counters = Counters()
  /// The last fix evaluated.
  public internal(set) var lastFix: LastFix?
  var store = RegionStore()
  /// Regions inside, or outside with an entry being confirmed (a slot's `list` indexes it).
  var active: [Active] = []
  /// Regions in state unknown (a slot's `list` indexes it): just slots, so that 100,000
  /// fresh registrations cost 4 bytes each here until the first fix decides them.
  var unknown: [Int32] = []
  var lastInstant: Instant?
  /// The buffers a fix's search fills, kept between fixes so that a fix allocates nothing.
  var scratch = SearchScratch()

  /// A monitor with no regions.
  public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

  /// Regions monitored, over all owners.
  public var count: Int { store.count }

  /// Regions whose state is not plainly outside (unknown, inside, or a crossing being
  /// confirmed): every fix evaluates these.
  public var activeCount: Int { active.count + unknown.count }

  /// Regions in state unknown.
  public var undetermined: Int { unknown.count }

  /// Counts a registration the host refused before asking (a limit of its own).
  mutating func countRefusal() { counters.refused += 1 }

  /// Regions monitored for one owner.
  public func count(for owner: RegionOwner) -> Int { store.perOwner[owner] ?? 0 }

  /// The state of one region now (requestState); `nil` when the owner has no such region.
  public func state(of id: RegionID, for owner: RegionOwner) -> RegionState? {
    let s = store.find(owner, id)
    return s < 0 ? nil : RegionStore.state(store.slots[Int(s)].state)
  }

  /// One of the owner's regions; `nil` when it has no such region.
  public func region(_ id: RegionID, for owner: RegionOwner) -> CircularRegion? {
    let s = store.find(owner, id)
    return s < 0 ? nil : store.region(s)
  }

  /// One owner's regions with their states, by id.
  public func regions(of owner: RegionOwner) -> [Monitored] {
    store.slots(of: owner).map {
      Monitored(region: store.region($0), state: RegionStore.state(store.slots[Int($0)].state))
    }.sorted { $0.region.id < $1.region.id }
  }

  /// Bytes held on the heap by the regions, the index and the active list.
  public var memoryBytes: Int {
    store.bytes + active.capacity * MemoryLayout<Active>.stride + unknown.capacity * 4
  }

  /// The earliest dwell deadline: the host calls `handle(.tick, at:)` then. `nil`: none.
  public var nextDeadline: Instant? {
    var earliest: Instant?
    for entry in active where entry.pendingSince == nil && !entry.dwellDone {
      let slot = store.slots[Int(entry.slot)]
      guard slot.dwellMicros > 0, let since = entry.insideSince else { continue }
      let due = since.adding(microseconds: slot.dwellMicros)
      if earliest.map({ due < $0 }) ?? true { earliest = due }
    }
    return earliest
  }

  /// Handles one input at `now` (for a fix, the fix's time). Outputs come in no particular
  /// order (sorting 100,000 first determinations would cost more than finding them);
  /// `RegionOutput.inOrder` sorts them by owner and region id.
  public mutating func handle(_ input: RegionInput, at now: Instant) -> [RegionOutput] {
    noteTime(now)
    var out: [RegionOutput] = []
    switch input {
    case .register(let owner, let region): out.append(register(region, for: owner))
    case .unregister(let owner, let id): out.append(unregister(id, for: owner))
    case .unregisterAll(let owner):
      for s in store.slots(of: owner) {
        let id = store.id(s)
        remove(s)
        out.append(.unregistered(owner, id))
      }
    case .fix(let coordinate, let accuracy): evaluate(coordinate, accuracy, at: now, into: &out)
    case .tick: checkDwells(at: now, into: &out)
    }
    return out
  }

  private mutating func register(_ region: CircularRegion, for owner: RegionOwner) -> RegionOutput {
    let key = RegionStore.Key(owner, region.id)
    let refusal: RegionError?
    if store.find(key) >= 0 {
      refusal = .duplicateID(region.id)
    } else if count(for: owner) >= configuration.maxRegionsPerOwner {
      refusal = .tooManyForOwner(limit: configuration.maxRegionsPerOwner)
    } else if store.count >= configuration.maxRegions {
      refusal = .tooManyInTotal(limit: configuration.maxRegions)
    } else {
      refusal = nil
    }
    if let refusal {
      counters.refused += 1
      return .refused(owner, region.id, refusal)
    }
    let s = store.insert(region, key: key)
    store.setList(s, Int32(unknown.count))
    unknown.append(s)
    return .registered(owner, region.id)
  }

  private mutating func unregister(_ id: RegionID, for owner: RegionOwner) -> RegionOutput {
    let s = store.find(owner, id)
    guard s >= 0 else { return .refused(owner, id, .notFound(id)) }
    remove(s)
    return .unregistered(owner, id)
  }

  private mutating func remove(_ s: Int32) {
    if store.slots[Int(s)].state == RegionStore.code(.unknown) { forgetUnknown(s) } else { deactivate(s) }
    store.remove(s)
  }

  /// Puts a slot on the active list.
  mutating func activate(_ s: Int32, _ entry: Active) {
    store.setList(s, Int32(active.count))
    active.append(entry)
  }

  /// Takes a slot off the active list (swapping the last entry into its place).
  mutating func deactivate(_ s: Int32) {
    let i = Int(store.slots[Int(s)].list)
    guard i >= 0 else { return }
    let last = active.removeLast()
    if i < active.count {
      active[i] = last
      store.setList(last.slot, Int32(i))
    }
    store.setList(s, -1)
    Self.shrink(&active)
  }

  /// Takes a slot off the unknown list (swapping the last entry into its place).
  mutating func forgetUnknown(_ s: Int32) {
    let i = Int(store.slots[Int(s)].list)
    let last = unknown.removeLast()
    if i < unknown.count {
      unknown[i] = last
      store.setList(last, Int32(i))
    }
    store.setList(s, -1)
    Self.shrink(&unknown)
  }

  /// Gives memory back when a list has shrunk to a quarter of its capacity (after the first
  /// fix decided 100,000 fresh regions, say).
  static func shrink<T>(_ list: inout [T]) {
    guard list.capacity > 64, list.count * 4 < list.capacity else { return }
    var smaller: [T] = []
    smaller.reserveCapacity(list.count * 2)
    smaller.append(contentsOf: list)
    list = smaller
  }

  /// Counts a clock set back and moves remembered instants after `now` back to `now`, so
  /// a confirmation or a dwell never waits for a clock to catch up.
  private mutating func noteTime(_ now: Instant) {
    if let last = lastInstant, now < last {
      counters.clockWentBack += 1
      for i in active.indices {
        if let p = active[i].pendingSince, p > now { active[i].pendingSince = now }
        if let s = active[i].insideSince, s > now { active[i].insideSince = now }
      }
    }
    lastInstant = now
  }
}
