/// Regeneration: recomputing what depends on the place and the time zone (the zone in effect,
/// today's and tomorrow's solar days, every timer deadline) and arming the instants at which
/// it must happen again without a move (local midnight, the next UTC-offset change).
extension Engine {
  /// Recomputes the zone, the solar days and the timer plans for the position and zone in
  /// effect at `now`, and tells subscribers what changed.
  mutating func regenerate(_ reason: RegenerationReason, at now: Instant, into effects: inout [Effect]) {
    let resolved = resolve(at: now)
    let zone = zones.report(for: resolved, configured: config.timeZone, at: now)
    let (rules, problem) = zones.planningRules(for: zone.id)
    if let problem { effects.append(.log(.warning, "\(problem); planning in UTC")) }

    let adoption = zones.adopt(zone, reason: reason, setSystemZone: config.setSystemTimeZone)
    if let change = adoption.change, let old = change.from {
      let offset = zone.offsetSeconds.map { " (UTC\(TimeFormat.utcOffset(seconds: $0)))" } ?? ""
      let was = old.offsetSeconds.map { " (UTC\(TimeFormat.utcOffset(seconds: $0)))" } ?? ""
      effects.append(.log(.notice, "time zone now \(zone.id)\(offset), was \(old.id)\(was)"))
      publish(.timezoneChanged(change), at: now, into: &effects)
      answerZoneWaits(change, into: &effects)
    }
    if let system = adoption.setSystemZone { effects.append(.setSystemTimeZone(system)) }

    if let solar = regeneration.regenerate(
      reason, zone: zone.id, rules: rules, coordinate: resolved.position?.coordinate,
      events: timers.solarEvents, at: now)
    {
      publish(.solarRegenerated(solar), at: now, into: &effects)
    }
    regenerateLightDark(reason, position: resolved.position?.coordinate, zone: rules, at: now, into: &effects)
    regeneration.lendPlanner(to: &timers) { $0.replan(with: &$1, at: now) }
    regeneration.lendPlanner(to: &waits) { $0.replan(with: &$1) }
    arm(.localMidnight, at: regeneration.nextMidnight(after: now), into: &effects)
    arm(.zoneTransition, at: regeneration.nextOffsetChange(after: now), into: &effects)
  }
}
