/// The schedule by the Sun alone, for one pair of rules at one place (the planner's), as of
/// one instant: the mode the rules give, since when, and the next two transitions.
///
/// The mode is the one of the rule that happened last: after a sunset, dark until a sunrise.
/// Two different elevations make a hysteresis (light above +3° rising, dark below -3°
/// setting): a night that stays above -3° brings no dark at all. The next transition from a
/// mode is the next occurrence of the other mode's rule (occurrences of its own rule change
/// nothing). Polar days and nights need no special case: the last sunset may be months ago and
/// the next sunrise months ahead; the planner searches a year and a bit each way.
///
/// Times are whole seconds: each event is rounded up to the second (so the mode changes at
/// the second shown, never before the event), and the plan is made as of `now` rounded down
/// to the second, so that an event counts as past exactly when its rounded time is.
struct LightDarkPlan: Sendable, Hashable {
  /// The mode the rules give (nil: unknown).
  var scheduled: LightDarkMode?
  /// When it began, if within the search.
  var since: Instant?
  /// The next transitions, soonest first (at most two).
  var transitions: [LightDarkTransition]
  /// Why the mode is unknown or the next transition is far off.
  var note: String?
  /// The whole second it was made as of.
  var madeAt: Instant

  /// A transition further off than this gets its planner's reason as the note (a polar day
  /// or night, an elevation the Sun does not reach for a while).
  static let farOff: Int64 = 36 * 3_600_000_000

  /// Whether the plan still holds at `now`: time went on from when it was made without
  /// reaching its first transition.
  func holds(at now: Instant) -> Bool {
    guard now >= madeAt else { return false }
    guard let first = transitions.first else { return true }
    return now < first.at
  }

  /// The plan of `rules` with `planner` (its zone and place) as of `now`.
  static func make(_ rules: LightDarkRules, with planner: inout TimerPlanner, at now: Instant)
    -> LightDarkPlan
  {
    let t = LightDarkPlan.floorSecond(now)
    guard planner.coordinate != nil else {
      return LightDarkPlan(
        scheduled: nil, since: nil, transitions: [],
        // The way to a position is status's "To fix" (FallbackAdvice), which knows what this
        // machine has; a fixed remedy here said "connect a receiver" while the demo's
        // receiver waited for its first subscriber.
        note: "no position: locd needs one to know when the Sun sets (see 'To fix' in 'locctl status')",
        madeAt: t)
    }
    let lastDark = latest(rules.dark, with: &planner, upTo: t)
    let lastLight = latest(rules.light, with: &planner, upTo: t)
    let mode: LightDarkMode
    var since: Instant? = nil
    switch (lastDark, lastLight) {
    case (let d?, let l?):
      mode = d >= l ? .dark : .light
      let other = mode == .dark ? l : d
      since = planner.next(rules.rule(for: mode), after: other, handledDate: nil).next.map {
        ceilSecond($0.instant)
      }
    case (.some, nil): mode = .dark
    case (nil, .some): mode = .light
    case (nil, nil):
      return LightDarkPlan(
        scheduled: nil, since: nil, transitions: [],
        note: "neither \(rules.dark) nor \(rules.light) happened here within \(TimerPlanner.searchDays) days",
        madeAt: t)
    }
    var transitions: [LightDarkTransition] = []
    var note: String? = nil
    var from = t
    var current = mode
    for index in 0..<2 {
      let plan = planner.next(rules.rule(for: current.opposite), after: from, handledDate: nil)
      guard let occurrence = plan.next else {
        if index == 0 { note = plan.reason }
        break
      }
      let at = ceilSecond(occurrence.instant)
      if index == 0, at.microsecondsSinceEpoch - t.microsecondsSinceEpoch > farOff { note = plan.reason }
      transitions.append(LightDarkTransition(mode: current.opposite, at: at))
      from = occurrence.instant
      current = current.opposite
    }
    return LightDarkPlan(scheduled: mode, since: since, transitions: transitions, note: note, madeAt: t)
  }

  /// The latest occurrence of `rule` at or before `t`: in the last two days, else in the last
  /// year and a bit (a polar day or night).
  private static func latest(_ rule: TimerRule, with planner: inout TimerPlanner, upTo t: Instant) -> Instant?
  {
    for days in [2, TimerPlanner.searchDays] {
      let from = t.adding(microseconds: -Int64(days) * 86_400_000_000)
      if let o = planner.occurrences(of: rule, from: from, to: t, handledDate: nil, limit: 1).last {
        return o.instant
      }
    }
    return nil
  }

  /// `t` rounded down to the whole second.
  static func floorSecond(_ t: Instant) -> Instant {
    let us = t.microsecondsSinceEpoch
    let floored = us >= 0 ? us / 1_000_000 : (us - 999_999) / 1_000_000
    return Instant(microsecondsSinceEpoch: floored * 1_000_000)
  }

  /// `t` rounded up to the whole second.
  static func ceilSecond(_ t: Instant) -> Instant {
    let floor = floorSecond(t)
    return floor == t ? t : floor.adding(microseconds: 1_000_000)
  }
}
