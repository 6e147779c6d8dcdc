/// A decoded fix through the machines: acceptance, the position and its subscribers,
/// waiting `locate` requests, acquisition, the zone hysteresis, and a significant change.
extension Engine {
  mutating func handleFix(_ fix: Fix, from source: SourceID, at now: Instant, into effects: inout [Effect]) {
    var fix = fix
    if !fix.outOfBounds.isEmpty {
      noteOutOfBounds(fix.outOfBounds, from: positions.uri(of: source), .gnss, at: now, into: &effects)
      fix.outOfBounds = []
    }
    let position: Position
    switch positions.fix(fix, from: source, at: now, liveFor: config.freshFor) {
    case .rejected(let why, let consistent):
      if let c = consistent {
        // Consistent with the current fix, only less accurate: it still shows the position is stable.
        let transitions = acquisition.fix(c, of: fix, at: now)
        announce(transitions, into: &effects)
      }
      switch why {
      case .noFix where fix.quality == .simulated: effects.append(.log(.debug, "simulated fix dropped"))
      case .implausibleJump:
        effects.append(.log(.debug, "fix dropped: implausible jump from the current one"))
      case .future:
        // Once per run of drops: a source dated ahead of the clock is a wrong clock or a lie.
        if positions.reports[source]?.dropping?.count == 1 {
          let detail = positions.reports[source]?.dropping?.detail ?? ""
          effects.append(.log(.warning, "fixes from \(positions.uri(of: source)) dropped: \(detail)"))
        }
      default: break
      }
      return
    case .accepted(let accepted):
      position = accepted
    }
    let coordinate = position.coordinate
    effects.append(.arm(.freshness, at: now.adding(config.freshFor)))
    if config.logLevel >= .debug {  // formatting costs more than the rest of a fix
      effects.append(
        .log(.debug, "fix \(coordinate.latitude.value),\(coordinate.longitude.value) from \(position.source)")
      )
    }
    publish(.location(resolve(at: now), fix: fix), at: now, into: &effects)
    answerLocates(at: now, into: &effects)
    let zoneChanged = zones.observe(coordinate, time: fix.time, accuracy: fix.horizontalAccuracy)
    // The zone first: a candidate that still needs fixes keeps this attempt going.
    announce(acquisition.zoneWantsFixes(zones.wantsFixes, at: now), into: &effects)
    let transitions = acquisition.fix(coordinate, of: fix, at: now)
    announce(transitions, into: &effects)
    let regionEvents = regions.handle(.fix(fix), at: now)
    deliverRegions(regionEvents, at: now, into: &effects)

    guard
      let change = positions.significance(
        of: position, zoneChanged: zoneChanged, threshold: config.significantDistance)
    else { return }
    effects.append(.persist(positions.storedState))
    if let move = change.move {
      let what =
        move.distance.map { "significant move of \(Int($0.value)) m" } ?? "first position since start"
      effects.append(.log(.info, what))
    } else {
      effects.append(.log(.info, "entered time zone \(zones.adopted ?? "?")"))
    }
    publish(
      .significantChange(from: change.from, to: position, distance: change.distance), at: now, into: &effects)
    regenerate(change.move != nil ? .significantChange : .timezone, at: now, into: &effects)
  }
}
