/// The timers and their plans: which occurrence each fires next, what is due at an instant, and
/// what the missed-event policies make of occurrences that passed unseen (locd stopped, the
/// machine asleep, the clock stepped over them). Pure: the engine gives it instants and a
/// planner for the place and zone in effect.
///
/// Each timer fires at most once per occurrence date. An occurrence is on time when it is
/// handled within `missedAfter` of its instant; later, it was missed.
public struct TimerScheduler: Sendable {
  /// One timer with its memory and plan.
  public struct Entry: Sendable {
    /// The definition.
    public var definition: TimerDefinition
    /// What it remembers.
    public var record: TimerRecord
    /// Its next occurrence or why there is none; nil before the first planning.
    public var plan: TimerPlan?
    /// Occurrences after this instant count (the start of the window the plan looked at).
    var plannedAfter: Instant
  }

  /// An occurrence this late was missed, not merely delayed (locd.conf `MissedAfter=`, 1 min).
  public var missedAfter: Duration
  /// Timers by name.
  public private(set) var entries: [String: Entry] = [:]
  /// Names in order, for deterministic output.
  public private(set) var names: [String] = []
  /// The earliest planned instant, if any.
  public private(set) var earliest: Instant?
  /// The last instant seen; time going back from it is a clock step.
  public private(set) var checkpoint: Instant?
  /// Records of timers not defined now (a file renamed back keeps its memory until the next save).
  private var orphanRecords: [String: TimerRecord] = [:]

  /// A scheduler without timers.
  public init(missedAfter: Duration = .seconds(60)) { self.missedAfter = missedAfter }

  /// Restores the memory of a previous run (its last instant and per-timer records).
  public mutating func restore(checkpoint: Instant?, records: [String: TimerRecord]) {
    self.checkpoint = checkpoint
    for (name, record) in records {
      if entries[name] != nil { entries[name]!.record = record } else { orphanRecords[name] = record }
    }
  }

  /// Every record, for saving.
  public var records: [String: TimerRecord] {
    var out: [String: TimerRecord] = [:]
    for (name, e) in entries { out[name] = e.record }
    return out
  }

  /// The runtime timers, in name order.
  public var runtimeDefinitions: [TimerDefinition] {
    names.compactMap { entries[$0]?.definition }.filter { $0.origin == .runtime }
  }

  /// Adds or replaces a timer; a new one starts its memory at `now`. Call `replan` after.
  public mutating func set(_ definition: TimerDefinition, at now: Instant) {
    let name = definition.name
    if entries[name] != nil {
      let changed = entries[name]!.definition.rule != definition.rule
      entries[name]!.definition = definition
      if changed { entries[name]!.plan = nil }
      return
    }
    let record = orphanRecords.removeValue(forKey: name) ?? TimerRecord(since: now)
    entries[name] = Entry(definition: definition, record: record, plan: nil, plannedAfter: now)
    let i = names.firstIndex(where: { $0 > name }) ?? names.count
    names.insert(name, at: i)
  }

  /// Removes a timer (its memory goes with it); false if there is none of that name.
  @discardableResult public mutating func remove(_ name: String) -> Bool {
    guard entries.removeValue(forKey: name) != nil else { return false }
    names.removeAll { $0 == name }
    updateEarliest()
    return true
  }

  /// Plans every timer afresh at `now` (after a move, a zone or offset change, a clock step,
  /// resume, local midnight). An occurrence that a move put just behind `now` (within
  /// `missedAfter`) and that has not fired stays due, so it fires now, not never; and the
  /// window reaches back to the last instant handled, so what a jump forward skipped over is
  /// seen as missed.
  public mutating func replan(with planner: inout TimerPlanner, at now: Instant) {
    let after = min(now.adding(.zero - missedAfter), checkpoint ?? now)
    for name in names { plan(name, after: after, with: &planner) }
    updateEarliest()
  }

  /// Plans the timers that have no plan yet (just added), leaving the others alone.
  public mutating func planNew(with planner: inout TimerPlanner, at now: Instant) {
    for name in names where entries[name]?.plan == nil { plan(name, after: now, with: &planner) }
    updateEarliest()
  }

  /// Plans after the checkpoint of a previous run, so what passed while locd was stopped is
  /// seen as missed by the next `due` (which then applies each timer's policy).
  public mutating func planFromCheckpoint(with planner: inout TimerPlanner, at now: Instant) {
    let after = min(checkpoint ?? now, now)
    for name in names { plan(name, after: after, with: &planner) }
    updateEarliest()
  }

  private mutating func plan(_ name: String, after: Instant, with planner: inout TimerPlanner) {
    guard var e = entries[name] else { return }
    e.plannedAfter = max(after, e.record.since)
    e.plan = planner.next(e.definition.rule, after: e.plannedAfter, handledDate: e.record.handledDate)
    entries[name] = e
  }

  private mutating func updateEarliest() {
    earliest = names.compactMap { entries[$0]?.plan?.next?.instant }.min()
  }

  /// Whether time went back from the last instant seen (a clock step back).
  public func wentBack(at now: Instant) -> Bool { checkpoint.map { now < $0 } ?? false }

  /// The result of `due`.
  public struct Due: Sendable {
    /// Firings, in order.
    public var firings: [TimerFiring] = []
    /// Timers that skipped missed occurrences (policy `skip`, or the part `once` leaves out),
    /// with how many.
    public var skipped: [(name: String, count: Int)] = []
    /// Whether any record changed (so it should be saved).
    public var changed: Bool { !firings.isEmpty || !skipped.isEmpty }
  }

  /// Handles every occurrence due at `now`: on time ones fire, missed ones follow their
  /// timer's policy; each handled timer is planned again after `now`.
  public mutating func due(at now: Instant, with planner: inout TimerPlanner) -> Due {
    checkpoint = max(checkpoint ?? now, now)
    var result = Due()
    guard let earliest, earliest <= now else { return result }
    for name in names {
      guard var e = entries[name], let next = e.plan?.next, next.instant <= now else { continue }
      let window = planner.occurrences(
        of: e.definition.rule, from: e.plannedAfter, to: now, handledDate: e.record.handledDate)
      // The plan's own occurrence is due even if the planner, asked again, disagrees by a hair.
      let occurrences = window.isEmpty ? [next] : window
      var missed: [TimerOccurrence] = []
      var onTime: [TimerOccurrence] = []
      for o in occurrences {
        if now.duration(since: o.instant) <= missedAfter { onTime.append(o) } else { missed.append(o) }
      }
      let late = e.definition.missed.select(missed)
      let firedMissed = late.reduce(0) { $0 + $1.standsFor }
      if firedMissed < missed.count { result.skipped.append((name, missed.count - firedMissed)) }
      for (o, n) in late {
        result.firings.append(
          TimerFiring(
            name: name, rule: e.definition.rule, action: e.definition.action, occurrence: o, firedAt: now,
            missed: n))
      }
      for o in onTime {
        result.firings.append(
          TimerFiring(
            name: name, rule: e.definition.rule, action: e.definition.action, occurrence: o, firedAt: now,
            missed: 0))
      }
      if let last = occurrences.map(\.date).max() { e.record.handledDate = last }
      if !late.isEmpty || !onTime.isEmpty { e.record.lastFiredAt = now }
      entries[name] = e
      plan(name, after: now, with: &planner)
    }
    updateEarliest()
    return result
  }

  /// Notes that time went back to `now`: the checkpoint follows it, and timers first seen
  /// "later" (on a clock that was wrong) are taken as existing since now.
  public mutating func steppedBack(to now: Instant) {
    checkpoint = now
    for name in names where entries[name]!.record.since > now { entries[name]!.record.since = now }
  }
}
