/// User timers in the engine: loading, firing and the actions that follow, and the timer
/// requests of the socket protocol.
extension Engine {
  /// Takes the timers of the files (and, at start, the store of the previous run).
  mutating func loadTimers(
    _ files: [TimerDefinition], problems: [String], store: TimerStore?, at now: Instant,
    into effects: inout [Effect]
  ) {
    for p in problems { effects.append(.log(.warning, "timer file problem: \(p)")) }
    let max = config.maxTimers
    let report = timers.load(files, problems: problems, store: store, maxTimers: max, at: now)
    for name in report.shadowed {
      effects.append(.log(.warning, "runtime timer \(name) is shadowed by a timer file of the same name"))
    }
    for name in report.overLimit {
      effects.append(.log(.warning, "timer \(name) ignored: MaxTimers=\(max) reached"))
    }
    regeneration.plan(events: timers.solarEvents)
    regeneration.lendPlanner(to: &timers) { $0.planLoaded(restored: report.restored, with: &$1, at: now) }
    effects.append(.log(.info, "\(timers.count) timer(s) loaded"))
  }

  /// Fires what is due at `now` and carries out the timers' actions.
  mutating func fireDueTimers(at now: Instant, into effects: inout [Effect]) {
    let due = regeneration.lendPlanner(to: &timers) { $0.due(with: &$1, at: now) }
    for (name, count) in due.skipped {
      let policy = timers.missedPolicy(name).rawValue
      effects.append(
        .log(.notice, "timer \(name): \(count) missed occurrence(s) not fired (Missed=\(policy))"))
    }
    for firing in due.firings { fire(firing, at: now, into: &effects) }
    if due.changed { effects.append(.persistTimers(timers.store(at: now))) }
  }

  private mutating func fire(_ f: TimerFiring, at now: Instant, into effects: inout [Effect]) {
    let zone = regeneration.zone
    let local = zone.localDateTime(at: f.occurrence.instant)
    var text = "timer \(f.name) fired: \(regeneration.describe(f.rule, f.occurrence))"
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

  /// `list-timers`, `show-timer`, `add-timer`, `remove-timer` (access already checked).
  mutating func handleTimerRequest(
    _ request: Request, ref: RequestRef, peer: Peer, at now: Instant, into effects: inout [Effect]
  ) {
    func answer(_ result: Result<Response, RequestError>) {
      effects.append(.reply(ref.session, ref.id, result))
    }
    let zone = regeneration.zone
    switch request {
    case .listTimers:
      answer(.success(.timers(timers.all(zone: zone), problems: timers.problems, now: now)))
    case .showTimer(let name):
      guard let status = timers.status(name, zone: zone) else {
        return answer(.failure(RequestError(.notFound, "no timer named '\(name)'")))
      }
      answer(.success(.timer(status)))
    case .addTimer(let definition):
      let max = config.maxTimers
      let added = regeneration.lendPlanner(to: &timers) {
        $0.add(definition, maxTimers: max, with: &$1, at: now)
      }
      if case .success = added {
        effects.append(
          .log(.notice, "timer \(definition.name) (\(definition.rule)) added by uid \(peer.uid)"))
        effects.append(.persistTimers(timers.store(at: now)))
      }
      answer(added.map { .timer($0) })
    case .removeTimer(let name):
      let removed = timers.remove(name)
      if case .success = removed {
        effects.append(.log(.notice, "timer \(name) removed by uid \(peer.uid)"))
        effects.append(.persistTimers(timers.store(at: now)))
      }
      answer(removed.map { .done })
    default:
      break
    }
  }
}
