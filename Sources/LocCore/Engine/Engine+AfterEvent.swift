/// What every event ends with, whatever it was: time going back caught, the zone's drift
/// regenerated, due timers fired, acquisition kept in step, a change of tier announced,
/// and the STATUS= line kept current.
extension Engine {
  mutating func afterEvent(at now: Instant, into effects: inout [Effect]) {
    syncNetwork(at: now, into: &effects)
    if timers.wentBack(at: now) {
      // Time went back without the shell noticing a step (or before it did): plan again
      // from here; handled dates keep fired occurrences from firing twice.
      timers.steppedBack(to: now)
      effects.append(.log(.notice, "time went back; re-planning"))
      regenerate(.clockStep, at: now, into: &effects)
      let transitions = acquisition.clockStepped(at: now)
      announce(transitions, into: &effects)
    }
    // Nothing below changes the position, so it and its zone are worked out once per event.
    let resolved = resolve(at: now)
    let zone = zones.report(for: resolved, configured: config.timeZone, at: now)
    if let why = zones.drift(zone) { regenerate(why, at: now, into: &effects) }
    fireDueTimers(at: now, into: &effects)
    answerDueWaits(at: now, into: &effects)
    arm(.timers, at: earliestDeadline, into: &effects)
    syncAcquisition(at: now, into: &effects)
    // A subscriber that came or left in this event starts or stops the follow now.
    syncWifiFollow(at: now, into: &effects)
    syncHeading(at: now, into: &effects)
    syncRegions(at: now, into: &effects)
    arm(.apps, at: appsDeadline, into: &effects)
    arm(.lightDark, at: lightDark.deadline, into: &effects)
    if appAuthorization.takeStoreChanged() { effects.append(.persistApps) }
    if let was = positions.tierChange(resolved) {
      effects.append(
        .log(.info, "position now from tier '\(resolved.tier.rawValue)' (was '\(was.rawValue)')"))
      // A tier change is news even without a fix (fix went stale, manual set, ...).
      if !effects.contains(where: { if case .push(_, .location, _) = $0 { true } else { false } }) {
        publish(.location(resolved, fix: positions.latest?.fix), at: now, into: &effects)
      }
    }
    let summary = StatusSummary(resolved, fix: positions.latest?.fix, zone: zone.id)
    switch statusLine.observe(summary, at: now) {
    case .send(let line)?: effects.append(.notifyStatus(line))
    case .armRefresh(let at)?: effects.append(.arm(.statusRefresh, at: at))
    case nil: break
    }
  }
}
