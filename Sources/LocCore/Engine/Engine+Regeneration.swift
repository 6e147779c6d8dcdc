/// Regeneration: recomputing what depends on the place and the time zone (the zone in effect,
/// today's and tomorrow's solar days, every timer deadline) and arming the instants at which
/// it must happen again without a move (local midnight, the next UTC-offset change).
extension Engine {
  /// The solar events every regeneration computes: the standard nine plus the timers' own.
  var plannerEvents: [SolarEvent] {
    var events = SolarEvent.standard
    for name in scheduler.names {
      if let e = scheduler.entries[name]?.definition.rule.solarEvent, !events.contains(e) { events.append(e) }
    }
    return events
  }

  /// Recomputes the zone, the solar days and the timer plans for the position and zone in
  /// effect at `now`, and tells subscribers what changed.
  mutating func regenerate(_ reason: RegenerationReason, at now: Instant, into effects: inout [Effect]) {
    regeneratedThisEvent = true
    let resolved = resolve(at: now)
    let zone = zone(for: resolved, at: now)
    var rules = environment.rules(zone.id)
    if rules == nil {
      effects.append(.log(.warning, "no rules for time zone '\(zone.id)'; planning in UTC"))
      rules = .utc
    }
    let coordinate = resolved.position?.coordinate
    planner = TimerPlanner(zone: rules!, coordinate: coordinate, events: plannerEvents)

    let old = zoneInEffect
    zoneInEffect = zone
    if let old, old.id != zone.id || old.offsetSeconds != zone.offsetSeconds {
      let why: RegenerationReason = old.id == zone.id ? .utcOffset : reason
      let offset = zone.offsetSeconds.map { " (UTC\(TimeFormat.utcOffset(seconds: $0)))" } ?? ""
      let was = old.offsetSeconds.map { " (UTC\(TimeFormat.utcOffset(seconds: $0)))" } ?? ""
      effects.append(.log(.notice, "time zone now \(zone.id)\(offset), was \(old.id)\(was)"))
      publish(.timezoneChanged(ZoneChange(from: old, to: zone, reason: why)), at: now, into: &effects)
    }
    if config.setSystemTimeZone, zone.origin == "position", zone.id != systemZoneSet {
      systemZoneSet = zone.id
      effects.append(.setSystemTimeZone(zone.id))
    }

    var days: [SolarDaySummary] = []
    if coordinate != nil {
      let today = rules!.localDate(at: now)
      for date in [today, today.adding(days: 1)] {
        if let day = planner.solarDay(date, including: .sunrise) {
          days.append(SolarDaySummary(day, events: SolarEvent.standard))
        }
      }
    }
    let before = solarDays
    solarDays = days
    if days != before || (reason == .significantChange && !days.isEmpty) {
      publish(
        .solarRegenerated(SolarRegeneration(reason: reason, zone: zone.id, before: before, after: days)),
        at: now,
        into: &effects)
    }

    if timersReady { scheduler.replan(with: &planner, at: now) }
    setArm(.localMidnight, at: rules!.startOfDay(rules!.localDate(at: now).adding(days: 1)), into: &effects)
    setArm(.zoneTransition, at: rules!.nextTransition(after: now)?.instant, into: &effects)
  }

  /// Arms `timer` at `instant` (disarms for nil), only when that changes what is armed.
  mutating func setArm(_ timer: EngineTimer, at instant: Instant?, into effects: inout [Effect]) {
    if let instant {
      guard armed[timer] != instant else { return }
      armed[timer] = instant
      effects.append(.arm(timer, at: instant))
    } else if armed[timer] != nil {
      armed[timer] = nil
      effects.append(.disarm(timer))
    }
  }

}
