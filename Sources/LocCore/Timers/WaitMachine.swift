/// What a `wait` request waits for (`locctl wait`).
public enum WaitTarget: Sendable, Hashable {
  /// The next occurrence of a rule: a solar event with an optional offset, or a wall-clock
  /// time, on the rule's weekdays; planned like a timer, in the zone in effect.
  case rule(TimerRule)
  /// The next change of the time zone in effect, or of its UTC offset (`timezone-changed`).
  case timezoneChange
}

/// How a `wait` ended.
public enum WaitOutcome: Sendable, Hashable {
  /// The rule's occurrence came, `late` after its deadline; `zone` is the zone it was planned
  /// in, `local` and `offsetSeconds` its deadline on that zone's wall clock.
  case occurred(
    TimerRule, TimerOccurrence, late: Duration, zone: String, local: LocalDateTime, offsetSeconds: Int)
  /// The time zone changed.
  case timezoneChanged(ZoneChange)
}

/// The `wait` requests of the sessions: each waits for one rule's next occurrence or one
/// zone change and is answered then, once. Rule waits are planned with the regeneration's
/// planner, so a move, a zone change, a daylight-saving night or a clock step moves them as
/// it moves the timers. A session has at most `perSession` waiting; closing it drops them.
struct WaitMachine: EngineMachine {
  /// One waiting request.
  struct Waiter: Sendable, Hashable {
    /// Whom to answer.
    var ref: RequestRef
    /// What it waits for.
    var target: WaitTarget
    /// When it was asked: the first occurrence after this instant answers it.
    var since: Instant
    /// The occurrence planned for a rule, if there is one now.
    var next: TimerOccurrence?
  }

  /// Most `wait` requests one session may have waiting.
  static let perSession = 16

  /// The waiting requests, oldest first.
  private var waiters: [Waiter] = []

  /// The earliest planned occurrence.
  var earliest: Instant? { waiters.compactMap(\.next?.instant).min() }

  /// Takes a request and plans it. A rule that has no occurrence within the planner's
  /// horizon at a known place (an elevation the Sun never reaches there) is refused, with
  /// the reason; without a position a solar rule waits for one.
  mutating func add(
    _ ref: RequestRef, _ target: WaitTarget, with planner: inout TimerPlanner, at now: Instant
  ) -> Result<Void, RequestError> {
    guard waiters.filter({ $0.ref.session == ref.session }).count < WaitMachine.perSession else {
      return .failure(RequestError(.failed, "\(WaitMachine.perSession) wait requests are already waiting"))
    }
    var waiter = Waiter(ref: ref, target: target, since: now)
    if case .rule(let rule) = target {
      let plan = planner.next(rule, after: now, handledDate: nil)
      let placeKnown = planner.coordinate != nil || rule.solarEvent == nil
      if plan.next == nil, placeKnown { return .failure(RequestError(.failed, plan.reason)) }
      waiter.next = plan.next
    }
    waiters.append(waiter)
    return .success(())
  }

  /// Plans every rule wait again (a regeneration: a move, a new zone, a clock step).
  mutating func replan(with planner: inout TimerPlanner) {
    for i in waiters.indices {
      guard case .rule(let rule) = waiters[i].target else { continue }
      waiters[i].next = planner.next(rule, after: waiters[i].since, handledDate: nil).next
    }
  }

  /// The rule waits whose occurrence is due at `now`, answered and removed.
  mutating func due(at now: Instant, zone: ZoneRules) -> [(RequestRef, WaitOutcome)] {
    var answered: [(RequestRef, WaitOutcome)] = []
    waiters.removeAll { w in
      guard case .rule(let rule) = w.target, let o = w.next, o.instant <= now else { return false }
      let outcome = WaitOutcome.occurred(
        rule, o, late: now.duration(since: o.instant), zone: zone.name,
        local: zone.localDateTime(at: o.instant),
        offsetSeconds: zone.utcOffsetSeconds(at: o.instant))
      answered.append((w.ref, outcome))
      return true
    }
    return answered
  }

  /// The zone waits, answered with `change` and removed.
  mutating func zoneChanged(_ change: ZoneChange) -> [(RequestRef, WaitOutcome)] {
    var answered: [(RequestRef, WaitOutcome)] = []
    waiters.removeAll { w in
      guard w.target == .timezoneChange else { return false }
      answered.append((w.ref, .timezoneChanged(change)))
      return true
    }
    return answered
  }

  /// Forgets the waits of a session that closed.
  mutating func drop(_ session: SessionID) {
    waiters.removeAll { $0.ref.session == session }
  }
}
