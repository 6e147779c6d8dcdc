/// `wait` requests in the engine: taken, planned with the timers' planner, answered when
/// their rule's occurrence is due or the zone changes.
extension Engine {
  /// A `wait` request: planned now, answered later (or refused now with the reason).
  mutating func startWait(
    _ target: WaitTarget, ref: RequestRef, at now: Instant, into effects: inout [Effect]
  ) {
    let added = regeneration.lendPlanner(to: &waits) { $0.add(ref, target, with: &$1, at: now) }
    if case .failure(let error) = added {
      effects.append(.reply(ref.session, ref.id, .failure(error)))
    }
  }

  /// Answers the rule waits that are due at `now`.
  mutating func answerDueWaits(at now: Instant, into effects: inout [Effect]) {
    for (ref, outcome) in waits.due(at: now, zone: regeneration.zone) {
      effects.append(.reply(ref.session, ref.id, .success(.waited(outcome))))
    }
  }

  /// Answers the zone waits: the zone in effect changed.
  mutating func answerZoneWaits(_ change: ZoneChange, into effects: inout [Effect]) {
    for (ref, outcome) in waits.zoneChanged(change) {
      effects.append(.reply(ref.session, ref.id, .success(.waited(outcome))))
    }
  }

  /// The earliest instant a timer fires or a wait is due: the shell's `.timers` timer.
  var earliestDeadline: Instant? {
    switch (timers.earliest, waits.earliest) {
    case (let a?, let b?): return min(a, b)
    case (let a, let b): return a ?? b
    }
  }
}
