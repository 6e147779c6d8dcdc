/// User timers in the engine: loading, firing, the missed-event policies' effects, and the
/// timer requests of the socket protocol.
extension Engine {
  /// Takes the timers of the files (and, at start, the store of the previous run).
  mutating func loadTimers(
    _ files: [TimerDefinition], problems: [String], store: TimerStore?, at now: Instant,
    into effects: inout [Effect]
  ) {
    timerProblems = problems
    for p in problems { effects.append(.log(.warning, "timer file ignored: \(p)")) }
    let fileNames = Set(files.map(\.name))
    for name in scheduler.names where scheduler.entries[name]?.definition.origin != .runtime {
      if !fileNames.contains(name) { scheduler.remove(name) }
    }
    let restoring = !timersReady
    if restoring, let store {
      scheduler.restore(checkpoint: store.checkpoint, records: store.records)
      for definition in store.runtime {
        if fileNames.contains(definition.name) {
          effects.append(
            .log(.warning, "runtime timer \(definition.name) is shadowed by a timer file of the same name"))
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
      guard count < config.maxTimers else {
        timerProblems.append("\(definition.name): more than MaxTimers=\(config.maxTimers) timers; ignored")
        effects.append(
          .log(.warning, "timer \(definition.name) ignored: MaxTimers=\(config.maxTimers) reached"))
        continue
      }
      scheduler.set(definition, at: now)
      count += 1
    }
    timersReady = true
    planner = TimerPlanner(zone: planner.zone, coordinate: planner.coordinate, events: plannerEvents)
    if restoring {
      scheduler.planFromCheckpoint(with: &planner, at: now)
    } else {
      scheduler.replan(with: &planner, at: now)
    }
    effects.append(.log(.info, "\(scheduler.names.count) timer(s) loaded"))
  }

  /// Fires what is due at `now` and carries out the timers' actions.
  mutating func fireDueTimers(at now: Instant, into effects: inout [Effect]) {
    guard timersReady else { return }
    let due = scheduler.due(at: now, with: &planner)
    for (name, count) in due.skipped {
      let policy = scheduler.entries[name]?.definition.missed.rawValue ?? "skip"
      effects.append(
        .log(.notice, "timer \(name): \(count) missed occurrence(s) not fired (Missed=\(policy))"))
    }
    for firing in due.firings { fire(firing, at: now, into: &effects) }
    if due.changed { effects.append(.persistTimers(timerStore(at: now))) }
  }

  private mutating func fire(_ f: TimerFiring, at now: Instant, into effects: inout [Effect]) {
    let zone = planner.zone
    let local = zone.localDateTime(at: f.occurrence.instant)
    var text = "timer \(f.name) fired: \(planner.describe(f.rule, f.occurrence))"
    if f.missed > 0 {
      text += "; \(TimeFormat.duration(f.late)) late, for \(f.missed) missed occurrence(s)"
    }
    effects.append(.log(.info, text))
    publish(.timerFired(f, zone: zone.name, local: local), at: now, into: &effects)
    switch f.action {
    case .event:
      break
    case .startUnit(let unit):
      effects.append(.startUnit(unit, timer: f.name))
    case .command(let argv, let user):
      var env = [
        "LOCD_TIMER=\(f.name)", "LOCD_RULE=\(f.rule)", "LOCD_DATE=\(f.occurrence.date)",
        "LOCD_DEADLINE=\(f.occurrence.instant.iso8601(fractionDigits: 3))",
        "LOCD_DEADLINE_LOCAL=\(local.rfc3339(offsetSeconds: zone.utcOffsetSeconds(at: f.occurrence.instant)))",
        "LOCD_FIRED_AT=\(now.iso8601(fractionDigits: 3))", "LOCD_MISSED=\(f.missed)",
        "LOCD_TIMEZONE=\(zone.name)",
      ]
      if let event = f.rule.solarEvent {
        env.append("LOCD_EVENT=\(TimerRule.ruleName(event))")
        if let at = f.occurrence.eventInstant {
          env.append("LOCD_EVENT_TIME=\(at.iso8601(fractionDigits: 3))")
        }
      } else {
        env.append("LOCD_EVENT=clock")
      }
      effects.append(
        .runCommand(argv: argv, user: user ?? config.commandUser, environment: env, timer: f.name))
    }
  }

  /// Arms the shell's timer at the earliest deadline.
  mutating func armTimers(into effects: inout [Effect]) {
    setArm(.timers, at: timersReady ? scheduler.earliest : nil, into: &effects)
  }

  /// What `timers.json` should hold now.
  func timerStore(at now: Instant) -> TimerStore {
    TimerStore(checkpoint: now, runtime: scheduler.runtimeDefinitions, records: scheduler.records)
  }

  /// One timer's status.
  func timerStatus(_ name: String) -> TimerStatus? {
    guard let e = scheduler.entries[name] else { return nil }
    let next = e.plan?.next
    let zone = planner.zone
    return TimerStatus(
      definition: e.definition, next: next, nextLocal: next.map { zone.localDateTime(at: $0.instant) },
      nextOffsetSeconds: next.map { zone.utcOffsetSeconds(at: $0.instant) },
      nextAbbreviation: next.map { zone.abbreviation(at: $0.instant) },
      reason: e.plan?.reason ?? (timersReady ? "not planned yet" : "timers not loaded yet"),
      lastFiredAt: e.record.lastFiredAt, zone: zone.name)
  }

  /// The timer that fires next.
  func nextTimerStatus() -> TimerStatus? {
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
    return timerStatus(name)
  }

  /// `list-timers`, `show-timer`, `add-timer`, `remove-timer` (access already checked).
  mutating func handleTimerRequest(
    _ request: Request, id: RequestID, from session: SessionID, at now: Instant, into effects: inout [Effect]
  ) {
    func fail(_ code: ErrorCode, _ message: String) {
      effects.append(.reply(session, id, .failure(RequestError(code, message))))
    }
    switch request {
    case .listTimers:
      let all = scheduler.names.compactMap { timerStatus($0) }
      effects.append(.reply(session, id, .success(.timers(all, problems: timerProblems))))
    case .showTimer(let name):
      guard let status = timerStatus(name) else { return fail(.notFound, "no timer named '\(name)'") }
      effects.append(.reply(session, id, .success(.timer(status))))
    case .addTimer(var definition):
      guard timersReady else { return fail(.failed, "timers are not loaded yet; try again") }
      if case .command = definition.action {
        return fail(.invalidParams, "runtime timers cannot run commands; use a root-owned file in timers.d")
      }
      definition.origin = .runtime
      if let existing = scheduler.entries[definition.name] {
        var whence = "added at run time"
        if case .file(let path) = existing.definition.origin { whence = "from \(path)" }
        return fail(.alreadyExists, "a timer named '\(definition.name)' exists (\(whence))")
      }
      guard scheduler.names.count < config.maxTimers else {
        return fail(.failed, "locd has MaxTimers=\(config.maxTimers) timers already")
      }
      scheduler.set(definition, at: now)
      scheduler.planNew(with: &planner, at: now)
      let uid = sessions[session]?.peer.uid ?? 0
      effects.append(.log(.notice, "timer \(definition.name) (\(definition.rule)) added by uid \(uid)"))
      effects.append(.persistTimers(timerStore(at: now)))
      effects.append(.reply(session, id, .success(.timer(timerStatus(definition.name)!))))
    case .removeTimer(let name):
      guard let entry = scheduler.entries[name] else { return fail(.notFound, "no timer named '\(name)'") }
      if case .file(let path) = entry.definition.origin {
        return fail(.failed, "timer '\(name)' comes from \(path); remove that file and reload")
      }
      scheduler.remove(name)
      let uid = sessions[session]?.peer.uid ?? 0
      effects.append(.log(.notice, "timer \(name) removed by uid \(uid)"))
      effects.append(.persistTimers(timerStore(at: now)))
      effects.append(.reply(session, id, .success(.done)))
    default:
      break
    }
  }
}
