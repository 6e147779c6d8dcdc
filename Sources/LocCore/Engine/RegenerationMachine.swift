/// Regeneration: the plans for the place and the zone of the last regeneration (the planner
/// the timers are planned with) and today's and tomorrow's solar days there, and when the
/// next regeneration without a move is due (local midnight, the next change of UTC offset).
struct RegenerationMachine: EngineMachine {
  /// Plans for the place and zone of the last regeneration; lent to the timers and waits.
  private var planner = TimerPlanner(zone: .utc, coordinate: nil)
  /// Today's and tomorrow's solar days at the last regeneration.
  private var solarDays: [SolarDaySummary] = []
  /// Today's sun as the last `status` answer computed it (`Engine.answerStatus`); dropped at
  /// every regeneration, so new zone data or a new day is never answered from it.
  private var sunMemo: SunMemo?

  /// The sun the last `status` answer kept, if any.
  var keptSun: SunMemo? { sunMemo }

  /// Keeps the sun a `status` answer computed.
  mutating func keep(_ sun: SunMemo?) { sunMemo = sun }

  /// The planning zone's rules (the zone of the last regeneration).
  var zone: ZoneRules { planner.zone }

  /// `occurrence` of `rule` in words, in the planning zone.
  func describe(_ rule: TimerRule, _ occurrence: TimerOccurrence) -> String {
    planner.describe(rule, occurrence)
  }

  /// Lends the planner to `borrower` (the timers or the waits, which plan with it and keep
  /// what it computes) for the length of `body`. The borrower is handed in, not captured, so
  /// the engine can pass two of its machines at once.
  mutating func lendPlanner<Borrower, Answer>(
    to borrower: inout Borrower, _ body: (inout Borrower, inout TimerPlanner) -> Answer
  ) -> Answer {
    body(&borrower, &planner)
  }

  /// Plans anew for zone `zone` with `rules` (UTC's when it has none) at `coordinate` (nil:
  /// no position) with `events`; returns the solar days to announce, when they changed or
  /// the move was significant.
  mutating func regenerate(
    _ reason: RegenerationReason, zone: String, rules: ZoneRules, coordinate: Coordinate?,
    events: [SolarEvent], at now: Instant
  ) -> SolarRegeneration? {
    planner = TimerPlanner(zone: rules, coordinate: coordinate, events: events)
    sunMemo = nil
    var days: [SolarDaySummary] = []
    if coordinate != nil {
      let today = rules.localDate(at: now)
      for date in [today, today.adding(days: 1)] {
        if let day = planner.solarDay(date, including: .sunrise) {
          days.append(SolarDaySummary(day, events: SolarEvent.standard))
        }
      }
    }
    let before = solarDays
    solarDays = days
    guard days != before || (reason == .significantChange && !days.isEmpty) else { return nil }
    return SolarRegeneration(reason: reason, zone: zone, before: before, after: days)
  }

  /// The same place and zone, planning `events` (the timers changed).
  mutating func plan(events: [SolarEvent]) {
    planner = TimerPlanner(zone: planner.zone, coordinate: planner.coordinate, events: events)
  }

  /// The next local midnight in the planning zone after `now`: the solar days move on.
  func nextMidnight(after now: Instant) -> Instant {
    planner.zone.startOfDay(planner.zone.localDate(at: now).adding(days: 1))
  }

  /// The planning zone's next change of UTC offset after `now`, if it has one.
  func nextOffsetChange(after now: Instant) -> Instant? { planner.zone.nextTransition(after: now)?.instant }
}

/// Today's sunrise and sunset at one place, in one zone, on one local date.
struct SunMemo {
  struct Key: Equatable {
    var coordinate: Coordinate
    var zone: String
    var date: CivilDate
  }
  var key: Key
  var report: SunReport
}
