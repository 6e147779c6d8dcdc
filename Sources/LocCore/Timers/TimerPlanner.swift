/// Turns timer rules into occurrences for one place and zone: the pure planning behind every
/// deadline. It caches the solar days it computes (all the events its timers need, in one scan
/// per day), so planning a thousand timers costs a few solar days, not a thousand.
///
/// Wall times follow RFC 5545 §3.3.5 where the clocks change: a time that happens twice (the
/// autumn fold) means the first; a time that does not exist (the spring gap) is read with the
/// offset from before the gap (02:30 on the EU spring night fires at 03:30 summer time).
public struct TimerPlanner: Sendable {
  /// The zone whose local days and wall times the rules use.
  public let zone: ZoneRules
  /// Where solar events are computed; `nil`: solar rules have no occurrence.
  public let coordinate: Coordinate?
  /// The solar events computed for each day (the union of the timers' events).
  public let events: [SolarEvent]
  private let calculator: SolarCalculator?
  private var days: [CivilDate: SolarDay] = [:]

  /// Longest search for the next occurrence: a year and a bit, enough for polar nights.
  public static let searchDays = 370
  /// Most days cached; past it the cache starts over (long polar searches fill it).
  static let cacheLimit = 1024

  /// A planner for `zone` at `coordinate`, computing `events` in each solar day.
  public init(zone: ZoneRules, coordinate: Coordinate?, events: [SolarEvent] = []) {
    self.zone = zone
    self.coordinate = coordinate
    self.events = events
    calculator = coordinate.map { SolarCalculator(coordinate: $0) }
  }

  /// What a rule gives on one local date.
  public enum DayOutcome: Hashable, Sendable {
    /// It fires then.
    case at(TimerOccurrence)
    /// The date is not one of the rule's weekdays.
    case otherWeekday
    /// The solar event does not happen that local day (polar day or night, or just outside it).
    case absent(SolarDay.Absence)
    /// A solar rule without a position.
    case noPosition
  }

  /// The solar day of `date` with this planner's events (and `event`, if it is not among them).
  public mutating func solarDay(_ date: CivilDate, including event: SolarEvent) -> SolarDay? {
    guard let calculator else { return nil }
    if let cached = days[date], cached[event] != nil { return cached }
    if days.count >= TimerPlanner.cacheLimit { days.removeAll(keepingCapacity: true) }
    var wanted = events
    if !wanted.contains(event) { wanted.append(event) }
    if let cached = days[date] {
      for e in cached.events where !wanted.contains(e) { wanted.append(e) }
    }
    let day = calculator.day(date, in: zone, events: wanted)
    days[date] = day
    return day
  }

  /// The occurrence of `rule` on local date `date`, or why there is none.
  public mutating func occurrence(of rule: TimerRule, on date: CivilDate) -> DayOutcome {
    guard rule.weekdays.contains(date) else { return .otherWeekday }
    switch rule.anchor {
    case .solar(let event, let offset):
      guard let day = solarDay(date, including: event) else { return .noPosition }
      switch day[event] {
      case .at(let instant)?:
        return .at(TimerOccurrence(date: date, instant: instant.adding(offset), eventInstant: instant))
      case .never(let why)?:
        return .absent(why)
      case nil:
        return .absent(.otherDay)
      }
    case .wallClock(let secondOfDay):
      guard
        let local = LocalDateTime(
          date: date, hour: secondOfDay / 3600, minute: secondOfDay / 60 % 60, second: secondOfDay % 60)
      else { return .absent(.otherDay) }
      let instants = zone.instants(at: local)
      if let first = instants.first {
        let note =
          instants.count > 1
          ? "\(TimerPlanner.clock(secondOfDay)) happens twice on \(date) (clocks go back); it fires at the first"
          : nil
        return .at(TimerOccurrence(date: date, instant: first, note: note))
      }
      let instant = gapInstant(local)
      let note =
        "\(TimerPlanner.clock(secondOfDay)) does not exist on \(date) (clocks jump forward); read with the offset before the jump (RFC 5545)"
      return .at(TimerOccurrence(date: date, instant: instant, note: note))
    }
  }

  /// A wall time in a gap, read with the offset in effect before the gap (RFC 5545 §3.3.5).
  private func gapInstant(_ local: LocalDateTime) -> Instant {
    let l = local.microsecondsSinceLocalEpoch
    var cursor = Instant(microsecondsSinceEpoch: l - 2 * 86_400_000_000)
    let end = Instant(microsecondsSinceEpoch: l + 2 * 86_400_000_000)
    while let t = zone.nextTransition(after: cursor), t.instant < end {
      let before = Int64(t.before.utcOffsetSeconds) * 1_000_000
      let after = Int64(t.after.utcOffsetSeconds) * 1_000_000
      let start = t.instant.microsecondsSinceEpoch
      if after > before, l >= start + before, l < start + after {
        return Instant(microsecondsSinceEpoch: l - before)
      }
      cursor = t.instant
    }
    // Not in any gap after all (cannot happen for a time with no instant): the local reading.
    return Instant(
      microsecondsSinceEpoch: l - Int64(zone.utcOffsetSeconds(at: Instant(microsecondsSinceEpoch: l)))
        * 1_000_000)
  }

  /// The first occurrence after `instant` whose date is later than `handledDate` (the date
  /// of the last occurrence fired or deliberately skipped).
  public mutating func next(_ rule: TimerRule, after instant: Instant, handledDate: CivilDate?) -> TimerPlan {
    if rule.solarEvent != nil, coordinate == nil {
      return TimerPlan(
        next: nil,
        reason: "no position: solar timers need one (see 'To fix' in 'locctl status')")
    }
    // An occurrence of the day before can still be ahead (offsets reach 12 hours).
    var date = zone.localDate(at: instant).adding(days: -1)
    if let handledDate, handledDate >= date { date = handledDate.adding(days: 1) }
    var absentFrom: (date: CivilDate, why: SolarDay.Absence)? = nil
    var absentTo = date
    for _ in 0..<TimerPlanner.searchDays {
      switch occurrence(of: rule, on: date) {
      case .at(let occurrence) where occurrence.instant > instant:
        var reason = describe(rule, occurrence)
        if let from = absentFrom, from.date.adding(days: 1) < date || from.date >= zone.localDate(at: instant)
        {
          let name = TimerRule.ruleName(rule.solarEvent ?? .sunset)
          let span = from.date == absentTo ? "on \(from.date)" : "\(from.date)..\(absentTo)"
          reason = "no \(name) \(span) (\(TimerPlanner.explain(from.why))); then " + reason
        }
        return TimerPlan(next: occurrence, reason: reason)
      case .absent(let why) where why != .otherDay:
        if absentFrom == nil || absentFrom?.why != why { absentFrom = (date, why) }
        absentTo = date
      case .noPosition:
        return TimerPlan(next: nil, reason: "no position for solar timers")
      default:
        break
      }
      date = date.adding(days: 1)
    }
    let what = rule.solarEvent.map { TimerRule.ruleName($0) } ?? rule.description
    let why = absentFrom.map { " (\(TimerPlanner.explain($0.why)))" } ?? ""
    return TimerPlan(next: nil, reason: "no \(what) within \(TimerPlanner.searchDays) days here\(why)")
  }

  /// Occurrences with `from < instant <= to` and a date later than `handledDate`, oldest
  /// first, at most `limit` (the most recent ones if there are more).
  public mutating func occurrences(
    of rule: TimerRule, from: Instant, to: Instant, handledDate: CivilDate?, limit: Int = 100
  ) -> [TimerOccurrence] {
    guard to > from else { return [] }
    var date = zone.localDate(at: from).adding(days: -1)
    if let handledDate, handledDate >= date { date = handledDate.adding(days: 1) }
    let last = zone.localDate(at: to).adding(days: 1)
    var out: [TimerOccurrence] = []
    // Each date is one solar scan: a year's outage costs 365 of them, once.
    if last.daysSinceEpoch - date.daysSinceEpoch > 4 * TimerPlanner.searchDays {
      date = last.adding(days: -4 * TimerPlanner.searchDays)
    }
    while date <= last {
      if case .at(let o) = occurrence(of: rule, on: date), o.instant > from, o.instant <= to {
        out.append(o)
        if out.count > limit { out.removeFirst() }
      }
      date = date.adding(days: 1)
    }
    return out
  }

  /// "sunset on 2026-06-21 at 21:52:10 CEST, 30m earlier"; "07:30 on 2026-06-22 (Mon)".
  public func describe(_ rule: TimerRule, _ o: TimerOccurrence) -> String {
    var text: String
    switch rule.anchor {
    case .solar(let event, let offset):
      let at = o.eventInstant.map { " at \(localClock($0))" } ?? ""
      text = "\(TimerRule.ruleName(event)) on \(o.date)\(at)"
      let s = offset.components.seconds
      if s != 0 { text += ", \(TimerRule.formatSpan(abs(s))) \(s < 0 ? "earlier" : "later")" }
    case .wallClock:
      text = "\(localClock(o.instant)) on \(o.date) (\(Weekdays.names[o.date.weekday]))"
    }
    if let note = o.note { text += "; \(note)" }
    return text
  }

  /// `21:52:10 CEST`: the wall time of `instant` in this zone, with its abbreviation.
  public func localClock(_ instant: Instant) -> String {
    let l = zone.localDateTime(at: instant)
    let clock = TimeFormat.clock(secondOfDay: l.hour * 3600 + l.minute * 60 + l.second, seconds: true)
    return "\(clock) \(zone.abbreviation(at: instant))"
  }

  static func clock(_ secondOfDay: Int) -> String {
    TimeFormat.clock(secondOfDay: secondOfDay)
  }

  static func explain(_ why: SolarDay.Absence) -> String {
    switch why {
    case .polarDay: return "polar day: the Sun stays above that elevation"
    case .polarNight: return "polar night: the Sun stays below that elevation"
    case .otherDay: return "it falls just outside the local day"
    }
  }
}
