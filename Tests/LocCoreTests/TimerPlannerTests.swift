import LocCore
import Testing

@Suite struct TimerPlannerTests {
  let oslo = TestZones.rules["Europe/Oslo"]!
  let tromso = Coordinate(lat: 69.6492, lon: 18.9553)!

  @Test func springGapReadsWithTheOffsetBeforeIt() throws {
    var p = TimerPlanner(zone: oslo, coordinate: nil)
    let rule = try TimerRule(parsing: "02:30")
    // EU 2026: clocks go 02:00 CET -> 03:00 CEST on Sunday 29 March (01:00Z).
    let plan = p.next(rule, after: at("2026-03-28T12:00:00Z"), handledDate: nil)
    #expect(plan.next?.instant == at("2026-03-29T01:30:00Z"))  // 02:30 CET = 03:30 CEST
    #expect(plan.next?.date == CivilDate(year: 2026, month: 3, day: 29))
    #expect(plan.reason.contains("does not exist"))
    let after = p.next(rule, after: plan.next!.instant, handledDate: plan.next!.date)
    #expect(after.next?.instant == at("2026-03-30T00:30:00Z"))
  }

  @Test func autumnFoldFiresAtTheFirst() throws {
    var p = TimerPlanner(zone: oslo, coordinate: nil)
    let rule = try TimerRule(parsing: "02:30")
    // 2026-10-25: 03:00 CEST -> 02:00 CET at 01:00Z; 02:30 is 00:30Z and 01:30Z.
    let plan = p.next(rule, after: at("2026-10-24T12:00:00Z"), handledDate: nil)
    #expect(plan.next?.instant == at("2026-10-25T00:30:00Z"))
    #expect(plan.reason.contains("twice"))
    // Once handled, the second 02:30 of the same night is not another occurrence.
    let again = p.next(rule, after: at("2026-10-25T00:30:00Z"), handledDate: plan.next!.date)
    #expect(again.next?.instant == at("2026-10-26T01:30:00Z"))
  }

  @Test func polarNightSkipsToJanuaryAndSaysWhy() throws {
    var p = TimerPlanner(zone: oslo, coordinate: tromso, events: SolarEvent.standard)
    let plan = p.next(try TimerRule(parsing: "sunrise"), after: at("2026-12-10T06:00:00Z"), handledDate: nil)
    let next = try #require(plan.next)
    #expect(
      next.date.year == 2027 && next.date.month == 1 && (10...20).contains(next.date.day), "\(next.date)")
    #expect(plan.reason.contains("polar night"), "\(plan.reason)")
    #expect(plan.reason.hasPrefix("no sunrise "))
    // Midsummer: no sunset until late July.
    let summer = p.next(
      try TimerRule(parsing: "sunset-30m"), after: at("2026-06-21T12:00:00Z"), handledDate: nil)
    #expect(summer.next?.date.month == 7)
    #expect(summer.reason.contains("polar day"))
    // An elevation the Sun never reaches there: no deadline, and why.
    let never = p.next(
      try TimerRule(parsing: "elevation:60:morning"), after: at("2026-06-21T12:00:00Z"), handledDate: nil)
    #expect(never.next == nil)
    #expect(never.reason.contains("within 370 days"))
  }

  @Test func offsetsWeekdaysAndNoPosition() throws {
    var p = TimerPlanner(zone: oslo, coordinate: Coordinate(lat: 59.9139, lon: 10.7522)!)
    let sunset = p.next(try TimerRule(parsing: "sunset"), after: at("2026-06-22T00:00:00Z"), handledDate: nil)
    let early = p.next(
      try TimerRule(parsing: "sunset-30m"), after: at("2026-06-22T00:00:00Z"), handledDate: nil)
    #expect(sunset.next!.instant.duration(since: early.next!.instant) == .seconds(1800))
    #expect(early.next?.eventInstant == sunset.next?.instant)
    #expect(early.reason.contains("30m earlier"))
    // 2026-06-27 is a Saturday: a Mon-Fri 07:30 planned that day waits for Monday the 29th.
    let weekday = p.next(
      try TimerRule(parsing: "07:30 Mon-Fri"), after: at("2026-06-27T00:00:00Z"), handledDate: nil)
    #expect(weekday.next?.instant == at("2026-06-29T05:30:00Z"))
    var nowhere = TimerPlanner(zone: oslo, coordinate: nil)
    let none = nowhere.next(
      try TimerRule(parsing: "sunrise"), after: at("2026-06-27T00:00:00Z"), handledDate: nil)
    #expect(none.next == nil && none.reason.contains("no position"))
  }

  @Test func occurrencesInAWindowSkipHandledDates() throws {
    var p = TimerPlanner(zone: .utc, coordinate: nil)
    let rule = try TimerRule(parsing: "07:30")
    let all = p.occurrences(
      of: rule, from: at("2026-06-01T00:00:00Z"), to: at("2026-06-05T07:30:00Z"), handledDate: nil)
    #expect(all.map(\.date.day) == [1, 2, 3, 4, 5])
    let later = p.occurrences(
      of: rule, from: at("2026-06-01T00:00:00Z"), to: at("2026-06-05T07:29:59Z"),
      handledDate: CivilDate(year: 2026, month: 6, day: 2))
    #expect(later.map(\.date.day) == [3, 4])
    let capped = p.occurrences(
      of: rule, from: at("2025-06-01T00:00:00Z"), to: at("2026-06-01T08:00:00Z"), handledDate: nil, limit: 10)
    #expect(capped.count == 10 && capped.last?.date.day == 1)
  }
}

@Suite struct TimerSchedulerTests {
  func scheduler(_ policies: [(String, MissedEventPolicy)], rule: String = "07:30", at start: Instant) throws
    -> (TimerScheduler, TimerPlanner)
  {
    var s = TimerScheduler(missedAfter: .seconds(60))
    var p = TimerPlanner(zone: .utc, coordinate: nil)
    for (name, policy) in policies {
      s.set(TimerDefinition(name: name, rule: try TimerRule(parsing: rule), missed: policy), at: start)
    }
    s.replan(with: &p, at: start)
    return (s, p)
  }

  @Test func onTimeFiringThenNextDay() throws {
    var (s, p) = try scheduler([("a", .skip)], at: at("2026-06-01T07:00:00Z"))
    #expect(s.earliest == at("2026-06-01T07:30:00Z"))
    #expect(s.due(at: at("2026-06-01T07:29:59Z"), with: &p).firings.isEmpty)
    let due = s.due(at: at("2026-06-01T07:30:00.001Z"), with: &p)
    #expect(due.firings.map(\.missed) == [0])
    #expect(s.earliest == at("2026-06-02T07:30:00Z"))
    #expect(s.entries["a"]?.record.handledDate == CivilDate(year: 2026, month: 6, day: 1))
  }

  @Test func jumpOverTwoDeadlinesUnderEachPolicy() throws {
    var (s, p) = try scheduler(
      [("all", .all), ("once", .once), ("skip", .skip)], at: at("2026-06-01T07:00:00Z"))
    let due = s.due(at: at("2026-06-02T07:45:00Z"), with: &p)
    #expect(due.firings.filter { $0.name == "all" }.map(\.occurrence.date.day) == [1, 2])
    #expect(due.firings.filter { $0.name == "all" }.map(\.missed) == [1, 1])
    #expect(due.firings.filter { $0.name == "once" }.map(\.missed) == [2])
    #expect(due.firings.filter { $0.name == "once" }.map(\.occurrence.date.day) == [2])
    #expect(due.firings.filter { $0.name == "skip" }.isEmpty)
    #expect(due.skipped.map(\.name) == ["skip"] && due.skipped.first?.count == 2)
    #expect(s.earliest == at("2026-06-03T07:30:00Z"))
  }

  @Test func newTimersDoNotCountThePastAsMissed() throws {
    var (s, p) = try scheduler([("a", .all)], at: at("2026-06-01T09:00:00Z"))
    #expect(s.earliest == at("2026-06-02T07:30:00Z"))
    #expect(s.due(at: at("2026-06-01T23:00:00Z"), with: &p).firings.isEmpty)
  }

  @Test func restartCountsTheDowntimeAsMissed() throws {
    var s = TimerScheduler()
    var p = TimerPlanner(zone: .utc, coordinate: nil)
    s.restore(
      checkpoint: at("2026-06-01T07:00:00Z"),
      records: [
        "a": TimerRecord(
          handledDate: CivilDate(year: 2026, month: 5, day: 31), since: at("2026-05-01T00:00:00Z"))
      ])
    s.set(
      TimerDefinition(name: "a", rule: try TimerRule(parsing: "07:30"), missed: .once),
      at: at("2026-06-03T08:00:00Z"))
    s.planFromCheckpoint(with: &p, at: at("2026-06-03T08:00:00Z"))
    let due = s.due(at: at("2026-06-03T08:00:00Z"), with: &p)
    #expect(due.firings.map(\.missed) == [3])  // June 1, 2 and 3
  }
}
