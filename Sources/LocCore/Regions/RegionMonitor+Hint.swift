extension RegionMonitor {
  /// Boundaries further than this are not looked for: beyond it the hint plans as if one
  /// lay exactly there (earlier than needed, never later). It bounds the coarse cells one
  /// hint visits to about (2 × 300 km / 64 km + 1)³ ≈ 1,000 even with a day-long ceiling.
  public static let hintSearchLimit = Meters(200_000)

  /// When the next fix could first change a region's state, seen from the last fix:
  /// - no fix yet: now;
  /// - regions of unknown state: the next fix (so the floor after the last);
  /// - a crossing waiting for confirmation: when the confirmation is due;
  /// - else the nearest boundary (distance `b` from the last fix, accuracy `a`): the device
  ///   cannot reach it before `(b - a) / maxSpeed` after the last fix;
  /// - with more than `hintWorkLimit` regions inside or confirming: the floor, unexamined.
  /// The earliest of these, clamped to floor...ceiling after the last fix and to `now` at
  /// the earliest. `nil` when no region is monitored.
  public func acquisitionHint(at now: Instant, policy: FixHintPolicy) -> FixHint? {
    guard store.count > 0 else { return nil }
    guard let last = lastFix else { return FixHint(due: now, reason: .noPosition) }
    // Each candidate is clamped before they are compared, so that on the floor a state
    // waiting for a fix (unknown, confirming) is named rather than a boundary.
    func clamped(_ due: Instant, _ reason: FixHint.Reason) -> FixHint {
      var hint = FixHint(due: due, reason: reason)
      if due < last.at.adding(policy.floor) {
        hint.due = last.at.adding(policy.floor)
        hint.bound = .floor
      } else if due > last.at.adding(policy.ceiling) {
        hint.due = last.at.adding(policy.ceiling)
        hint.bound = .ceiling
      }
      return hint
    }
    var best: FixHint?
    if undetermined > 0 { best = clamped(last.at, .undetermined(regions: undetermined)) }
    let speed = max(policy.maxSpeed.value, 0.1)
    if active.count > Self.hintWorkLimit {
      // So many regions inside or confirming that the next fix is wanted at the floor
      // anyway; going through all of them after every event (every registration among
      // them) made registering n regions cost n² (issue 28, finding 4).
      let reason = FixHint.Reason.boundary(nil, distance: Meters(0), speed: MetersPerSecond(speed))
      var hint = FixHint.earliest(best, clamped(last.at, reason))!
      if hint.due < now { hint.due = now }
      return hint
    }
    for entry in active {
      guard let since = entry.pendingSince else { continue }
      let key = RegionKey(RegionOwner(store.slots[Int(entry.slot)].owner), store.id(entry.slot))
      let hint = clamped(since.adding(configuration.rule.confirmation), .confirming(key, since: since))
      best = FixHint.earliest(best, hint)
    }
    let searchTo = min(policy.ceiling.seconds * speed, Self.hintSearchLimit.value)
    // Stop looking once a boundary is so close that the floor decides anyway.
    let enough = policy.floor.seconds * speed + last.accuracy.value
    if let (s, distance) = nearestBoundary(last.coordinate, within: searchTo, enough: enough) {
      let travel = max(0, distance - last.accuracy.value)
      let key = s.map { RegionKey(RegionOwner(store.slots[Int($0)].owner), store.id($0)) }
      let reason = FixHint.Reason.boundary(key, distance: Meters(distance), speed: MetersPerSecond(speed))
      best = FixHint.earliest(best, clamped(last.at.adding(seconds: travel / speed), reason))
    } else {
      let reason = FixHint.Reason.noBoundaryWithin(Meters(searchTo))
      best = FixHint.earliest(best, clamped(last.at.adding(seconds: searchTo / speed), reason))
    }
    guard var hint = best else { return nil }
    if hint.due < now { hint.due = now }
    return hint
  }

  /// Regions the hint's search examines at most; past it the hint uses the index's lower
  /// bound for what is left (earlier than needed, never later). A crowd of 100,000 regions
  /// just beyond the floor distance would otherwise cost a millisecond a hint.
  static let hintWorkLimit = 4096

  /// The region whose boundary is nearest to `p` and its distance, if one is within
  /// `limit`: active regions exactly, idle ones from the coarse cells, nearest cell first;
  /// unknown ones not at all (they have their own reason). Stops at a boundary within
  /// `enough`, and after `hintWorkLimit` regions with the lower bound of the rest (region nil).
  func nearestBoundary(_ p: Coordinate, within limit: Double, enough: Double) -> (Int32?, Double)? {
    var best: (Int32?, Double)?
    for entry in active {
      let slot = store.slots[Int(entry.slot)]
      let gap = abs(p.distance(to: slot.centre).value - slot.radius)
      if gap < limit, best.map({ gap < $0.1 }) ?? true { best = (entry.slot, gap) }
    }
    let point = EarthPoint(p)
    let maxRadius = store.maxRadius
    // A region of radius r centred in a cell at chord distance c from p has its boundary at
    // least c - r away: cells further than limit + maxRadius hold nothing within limit.
    var cells: [(lowerBound: Double, head: Int32)] = []
    RegionGrid.forEachCell(
      level: RegionGrid.coarseLevel, around: point, reach: limit + maxRadius + RegionGrid.slack
    ) { key in
      let head = store.coarse.head(key)
      guard head >= 0 else { return }
      let bound = RegionGrid.chordDistance(from: point, toCell: key) - maxRadius - RegionGrid.slack
      if bound < limit { cells.append((bound, head)) }
    }
    cells.sort { $0.lowerBound < $1.lowerBound }
    var work = 0
    for cell in cells {
      if cell.lowerBound >= best?.1 ?? limit { break }
      var s = cell.head
      while s >= 0 {
        let bar = best?.1 ?? limit
        if bar <= enough { return best }
        work += 1
        if work > Self.hintWorkLimit {
          // Everything not examined is at least this cell's bound away.
          if let found = best, found.1 <= cell.lowerBound { return found }
          return (nil, max(0, cell.lowerBound))
        }
        let current = s
        let slot = store.slots[Int(s)]
        s = slot.coarseNext
        guard slot.list < 0 else { continue }
        // The chord is at most the great-circle distance: a cheap lower bound first.
        let chord = point.chordSquared(store.entry(current).point).squareRoot()
        if chord - slot.radius - RegionGrid.slack >= bar { continue }
        let gap = p.distance(to: slot.centre).value - slot.radius
        if gap < bar { best = (current, gap) }
      }
    }
    return best
  }
}
