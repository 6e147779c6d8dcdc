/// The user timers: their definitions, memory and plans (`TimerScheduler`), the problems of
/// timer files that could not be loaded, and whether they are loaded yet (timers fire only
/// after). Plans are made with the regeneration's planner, which the engine lends.
struct TimerMachine: EngineMachine {
  /// What loading the timer files did.
  struct LoadReport: Sendable, Hashable {
    /// Whether the timer store of the previous run was restored (the first load).
    var restored = false
    /// Runtime timers of the store that a file of the same name shadows.
    var shadowed: [String] = []
    /// Timers left out because `MaxTimers=` was reached.
    var overLimit: [String] = []
  }

  /// The timers, their memory and plans.
  private var scheduler: TimerScheduler
  /// Problems of timer files that could not be loaded.
  private(set) var problems: [String] = []
  /// Whether the timer files and store have been loaded.
  private var ready = false
  /// How each timer's action ended the last time it ran (since start), by timer name.
  private var outcomes: [String: TimerActionOutcome] = [:]

  /// No timers yet.
  init(missedAfter: Duration) { scheduler = TimerScheduler(missedAfter: missedAfter) }

  /// New settings (reload).
  mutating func configure(missedAfter: Duration) { scheduler.missedAfter = missedAfter }

  /// The solar events plans need: the standard nine plus the timers' own.
  var solarEvents: [SolarEvent] {
    var events = SolarEvent.standard
    for name in scheduler.names {
      if let e = scheduler.entries[name]?.definition.rule.solarEvent, !events.contains(e) { events.append(e) }
    }
    return events
  }

  /// How many timers there are (from files and at run time).
  var count: Int { scheduler.names.count }

  /// Whether there are timers and they have been loaded (so there is a store to write).
  var hasReadyTimers: Bool { ready && !scheduler.names.isEmpty }

  /// The earliest deadline, once loaded.
  var earliest: Instant? { ready ? scheduler.earliest : nil }

  /// Takes the timers of the files (and, on the first load, the store of the previous run);
  /// the engine plans them next (`planLoaded`), once the planner knows their solar events.
  mutating func load(
    _ files: [TimerDefinition], problems: [String], store: TimerStore?, maxTimers: Int, at now: Instant
  ) -> LoadReport {
    var report = LoadReport()
    self.problems = problems
    let fileNames = Set(files.map(\.name))
    for name in scheduler.names where scheduler.entries[name]?.definition.origin != .runtime {
      if !fileNames.contains(name) { scheduler.remove(name) }
    }
    report.restored = !ready
    if report.restored, let store {
      scheduler.restore(checkpoint: store.checkpoint, records: store.records)
      for definition in store.runtime {
        if fileNames.contains(definition.name) {
          report.shadowed.append(definition.name)
          continue
        }
        scheduler.set(definition, at: now)
      }
    }
    var count = scheduler.names.filter { scheduler.entries[$0]?.definition.origin == .runtime }.count
    for definition in files {
      if scheduler.entries[definition.name]?.definition.origin == .runtime {
        scheduler.remove(definition.name)
      }
      guard count < maxTimers else {
        self.problems.append("\(definition.name): more than MaxTimers=\(maxTimers) timers; ignored")
        report.overLimit.append(definition.name)
        continue
      }
      scheduler.set(definition, at: now)
      count += 1
    }
    ready = true
    outcomes = outcomes.filter { scheduler.entries[$0.key] != nil }
    return report
  }

  /// Records how timer `name`'s action ended; a timer that is gone meanwhile is ignored.
  mutating func actionEnded(_ name: String, _ outcome: TimerActionOutcome) {
    if scheduler.entries[name] != nil { outcomes[name] = outcome }
  }

  /// Plans every timer after a load: from the store's checkpoint on the first load (what
  /// was due while locd was down counts as missed), from now on later ones.
  mutating func planLoaded(restored: Bool, with planner: inout TimerPlanner, at now: Instant) {
    if restored {
      scheduler.planFromCheckpoint(with: &planner, at: now)
    } else {
      scheduler.replan(with: &planner, at: now)
    }
  }

  /// Plans every timer again (a regeneration), once loaded.
  mutating func replan(with planner: inout TimerPlanner, at now: Instant) {
    if ready { scheduler.replan(with: &planner, at: now) }
  }

  /// What is due at `now` (nothing before the timers are loaded).
  mutating func due(with planner: inout TimerPlanner, at now: Instant) -> TimerScheduler.Due {
    guard ready else { return TimerScheduler.Due() }
    return scheduler.due(at: now, with: &planner)
  }

  /// The missed-event policy of timer `name`.
  func missedPolicy(_ name: String) -> MissedEventPolicy {
    scheduler.entries[name]?.definition.missed ?? .skip
  }

  /// Whether `now` is before the last checkpoint (time went back).
  func wentBack(at now: Instant) -> Bool { scheduler.wentBack(at: now) }

  /// Time went back to `now`: plans start over from here; handled dates keep fired
  /// occurrences from firing twice.
  mutating func steppedBack(to now: Instant) { scheduler.steppedBack(to: now) }

  /// Adds a runtime timer (`add-timer`), planned at once.
  mutating func add(
    _ definition: TimerDefinition, maxTimers: Int, with planner: inout TimerPlanner, at now: Instant
  ) -> Result<TimerStatus, RequestError> {
    guard ready else { return .failure(RequestError(.failed, "timers are not loaded yet; try again")) }
    if case .command = definition.action {
      return .failure(
        RequestError(.invalidParams, "runtime timers cannot run commands; use a root-owned file in timers.d"))
    }
    var definition = definition
    definition.origin = .runtime
    if let existing = scheduler.entries[definition.name] {
      var whence = "added at run time"
      if case .file(let path) = existing.definition.origin { whence = "from \(path)" }
      return .failure(RequestError(.alreadyExists, "a timer named '\(definition.name)' exists (\(whence))"))
    }
    guard scheduler.names.count < maxTimers else {
      return .failure(RequestError(.failed, "locd has MaxTimers=\(maxTimers) timers already"))
    }
    scheduler.set(definition, at: now)
    scheduler.planNew(with: &planner, at: now)
    return .success(status(definition.name, zone: planner.zone)!)
  }

  /// Removes a runtime timer (`remove-timer`).
  mutating func remove(_ name: String) -> Result<Void, RequestError> {
    guard let entry = scheduler.entries[name] else {
      return .failure(RequestError(.notFound, "no timer named '\(name)'"))
    }
    if case .file(let path) = entry.definition.origin {
      return .failure(
        RequestError(.failed, "timer '\(name)' comes from \(path); remove that file and reload"))
    }
    scheduler.remove(name)
    outcomes[name] = nil
    return .success(())
  }

  /// What `timers.json` should hold now.
  func store(at now: Instant) -> TimerStore {
    TimerStore(checkpoint: now, runtime: scheduler.runtimeDefinitions, records: scheduler.records)
  }

  /// Every timer's status, in name order.
  func all(zone: ZoneRules) -> [TimerStatus] { scheduler.names.compactMap { status($0, zone: zone) } }

  /// One timer's status; `zone` is the zone of the plans.
  func status(_ name: String, zone: ZoneRules) -> TimerStatus? {
    guard let e = scheduler.entries[name] else { return nil }
    let next = e.plan?.next
    return TimerStatus(
      definition: e.definition, next: next, nextLocal: next.map { zone.localDateTime(at: $0.instant) },
      nextOffsetSeconds: next.map { zone.utcOffsetSeconds(at: $0.instant) },
      nextAbbreviation: next.map { zone.abbreviation(at: $0.instant) },
      reason: e.plan?.reason ?? (ready ? "not planned yet" : "timers not loaded yet"),
      lastFiredAt: e.record.lastFiredAt, zone: zone.name, lastOutcome: outcomes[name])
  }

  /// The timer that fires next.
  func next(zone: ZoneRules) -> TimerStatus? {
    let name = scheduler.names.min { a, b in
      let x = scheduler.entries[a]?.plan?.next?.instant
      let y = scheduler.entries[b]?.plan?.next?.instant
      switch (x, y) {
      case (let x?, let y?): return x < y
      case (_?, nil): return true
      default: return false
      }
    }
    guard let name, scheduler.entries[name]?.plan?.next != nil else { return nil }
    return status(name, zone: zone)
  }
}
