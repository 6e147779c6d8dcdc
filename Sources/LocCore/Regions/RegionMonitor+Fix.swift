extension RegionMonitor {
  /// Evaluates one fix: every active region, every unknown one, then the regions the index
  /// offers whose circle could hold the fix by the margin. A region that leaves the lists in
  /// the first two passes had a verdict other than inside, so the third pass, which acts
  /// only on inside verdicts (and skips listed regions), cannot act on it twice.
  mutating func evaluate(
    _ fix: Coordinate, _ accuracy: Meters, at now: Instant, into out: inout [RegionOutput]
  ) {
    guard accuracy.value.isFinite, accuracy.value >= 0 else {
      counters.ignoredFixes += 1
      return
    }
    counters.fixes += 1
    lastFix = LastFix(coordinate: fix, accuracy: accuracy, at: now)
    let margin = configuration.rule.margin(accuracy: accuracy)
    let p = EarthPoint(fix)
    var i = 0
    while i < active.count {
      let s = active[i].slot
      step(s, verdict(s, fix, p, margin: margin), at: now, into: &out)
      // A slot that left the list had the last entry swapped into place i.
      if store.slots[Int(s)].list >= 0 { i += 1 }
    }
    i = 0
    while i < unknown.count {
      let s = unknown[i]
      let verdict = verdict(s, fix, p, margin: margin)
      step(s, verdict, at: now, into: &out)
      if verdict == .straddling { i += 1 }
    }
    searchIndex(fix, p, margin: margin, at: now, into: &out)
  }

  /// The rule's verdict for one region, exactly as `RegionRule.verdict` on
  /// `Coordinate.distance`, with the exact distance skipped when the chord already decides:
  /// the great-circle distance d and the chord c satisfy c <= d <= c + c³ / (23 R²) for
  /// chords under 1,000 km (the arcsine's series), the stored centre is within
  /// `RegionGrid.slack` of the true one, and the stored radius (the true one rounded up to
  /// a `Float`) is above the true one by at most 2^-21 of itself.
  private mutating func verdict(_ s: Int32, _ fix: Coordinate, _ p: EarthPoint, margin: Double)
    -> RegionRule.Verdict
  {
    verdict(s, store.entry(s), fix, p, margin: margin)
  }

  /// The verdict for slot `s` whose packed entry is `entry`: the slot's cold part is read
  /// only when the chord does not decide.
  private mutating func verdict(
    _ s: Int32, _ entry: PackedCells.Entry, _ fix: Coordinate, _ p: EarthPoint, margin: Double
  ) -> RegionRule.Verdict {
    let c = p.chordSquared(entry.point).squareRoot()
    let upper = Double(entry.radius)
    if c - RegionGrid.slack >= upper + margin { return .outside }
    let lower = upper * (1 - 0x1p-21)
    let r = Coordinate.meanEarthRadius.value
    if c < 1_000_000, c + c * c * c / (23 * r * r) + RegionGrid.slack <= lower - margin {
      return .inside
    }
    counters.distances += 1
    let slot = store.slots[Int(s)]
    let d = fix.distance(to: slot.centre).value
    return RegionRule.verdict(distance: d, radius: slot.radius, margin: margin)
  }

  /// The second pass: regions not on the active list (so outside, with no crossing being
  /// confirmed) whose circle holds the fix by the margin. At each level the cells within
  /// the level's reach are probed, a level only when it may have a region near: for the
  /// fine levels the coarse cells around the fix say which have any (their tags).
  private mutating func searchIndex(
    _ fix: Coordinate, _ p: EarthPoint, margin: Double, at now: Instant, into out: inout [RegionOutput]
  ) {
    // A region enters only if d <= r - m, and the chord is at most d: the reach of level L
    // is its largest radius less the margin (nothing to find when that is not positive).
    let maxRadius = store.levelMaxRadius
    func reach(_ level: Int) -> Double { maxRadius[level] - margin + RegionGrid.slack }
    var wanted: UInt16 = 0
    for level in 0..<RegionGrid.levels where store.levelCount[level] > 0 && maxRadius[level] > margin {
      wanted |= 1 << UInt16(level)
    }
    var probed = 0
    let fine = wanted & RegionGrid.maskedLevels
    if fine != 0 {
      var near: UInt16 = 0
      let fineReach = (0...RegionGrid.maskedTop).reduce(0.0) { max($0, reach($1)) }
      RegionGrid.forEachCell(level: RegionGrid.coarseLevel, around: p, reach: fineReach) { key in
        probed += 1
        let tag = store.coarse.tag(key) & fine
        guard tag != 0 else { return }
        let distance = RegionGrid.chordDistance(from: p, toCell: key)
        for level in 0...RegionGrid.maskedTop
        where tag & (1 << UInt16(level)) != 0 && reach(level) >= distance {
          near |= 1 << UInt16(level)
        }
      }
      wanted = (wanted & ~RegionGrid.maskedLevels) | near
    }
    // The runs of the cells near the fix are looked up first, all of them, then read: the
    // lookups do not depend on one another, nor the reads, so their cache misses overlap
    // (a fix in a new place finds none of them in the cache: bench/70-regions.sh,
    // scattered fixes), and each cell's regions lie side by side (`PackedCells`).
    var runs = scratch.runs
    var found = scratch.found
    scratch = SearchScratch()
    runs.removeAll(keepingCapacity: true)
    found.removeAll(keepingCapacity: true)
    for level in 0..<RegionGrid.levels where wanted & (1 << UInt16(level)) != 0 {
      let r = reach(level)
      // A cell of the box around the fix that lies farther than the reach holds no region
      // that could take the fix in (a centre lies in its cell; the metre covers the `Float`
      // storage of centres, under 0.4 m): it is not looked up.
      let far = r + 1
      RegionGrid.forEachCell(level: level, around: p, reach: r) { key in
        guard RegionGrid.chordDistance(from: p, toCell: key) <= far else { return }
        probed += 1
        let run = store.cells.run(key)
        if run.count > 0 { runs.append(run) }
      }
    }
    // Found in the order of the runs (cells in probe order), each run in its order.
    var offered = 0
    store.cells.entries.withUnsafeBufferPointer { entries in
      for (start, count) in runs {
        offered += count
        for k in Int(start)..<Int(start) + count {
          let entry = entries[k]
          let inner = Double(entry.radius) - margin + RegionGrid.slack
          if inner > 0, p.chordSquared(entry.point) <= inner * inner { found.append(entry) }
        }
      }
    }
    counters.cellsProbed += probed
    counters.candidates += offered
    // The slots of what was found are read in one tight pass first, so that their cache
    // misses overlap instead of waiting one behind another between the steps below (a step
    // changes the list of no slot but its own).
    var kept = 0
    store.slots.withUnsafeBufferPointer { slots in
      for k in found.indices where slots[Int(found[k].slot)].list < 0 {
        found[kept] = found[k]
        kept += 1
      }
    }
    for entry in found[..<kept] where verdict(entry.slot, entry, fix, p, margin: margin) == .inside {
      step(entry.slot, .inside, at: now, into: &out)
    }
    scratch = SearchScratch(runs: runs, found: found)
  }

  /// One region's state machine, for one verdict. See `RegionRule`.
  private mutating func step(
    _ s: Int32, _ verdict: RegionRule.Verdict, at now: Instant, into out: inout [RegionOutput]
  ) {
    let slot = store.slots[Int(s)]
    let state = RegionStore.state(slot.state)
    let confirmation = configuration.rule.confirmation
    switch (state, verdict) {
    case (.unknown, .inside):
      forgetUnknown(s)
      enter(s, since: now, from: .unknown, at: now, into: &out)
    case (.unknown, .outside):
      forgetUnknown(s)
      store.setState(s, .outside)
      report(s, from: .unknown, to: .outside, at: now, firstSeen: now, into: &out)
    case (.unknown, .straddling):
      break
    case (.inside, .outside):
      let i = Int(slot.list)
      let since = active[i].pendingSince ?? now
      active[i].pendingSince = since
      if now.duration(since: since) >= confirmation {
        store.setState(s, .outside)
        deactivate(s)
        report(s, from: .inside, to: .outside, at: now, firstSeen: since, into: &out)
      }
    case (.inside, _):
      active[Int(slot.list)].pendingSince = nil
      checkDwell(Int(slot.list), at: now, into: &out)
    case (.outside, .inside):
      if slot.list < 0 { activate(s, Active(slot: s, pendingSince: now)) }
      let i = Int(store.slots[Int(s)].list)
      let since = active[i].pendingSince ?? now
      active[i].pendingSince = since
      if now.duration(since: since) >= confirmation {
        enter(s, since: since, from: .outside, at: now, into: &out)
      }
    case (.outside, _):
      deactivate(s)
    }
  }

  /// Moves a region inside: the stay starts at `since` (its first fix inside).
  private mutating func enter(
    _ s: Int32, since: Instant, from: RegionState, at now: Instant, into out: inout [RegionOutput]
  ) {
    store.setState(s, .inside)
    if store.slots[Int(s)].list < 0 { activate(s, Active(slot: s)) }
    let i = Int(store.slots[Int(s)].list)
    active[i] = Active(slot: s, pendingSince: nil, insideSince: since, dwellDone: false)
    report(s, from: from, to: .inside, at: now, firstSeen: since, into: &out)
    checkDwell(i, at: now, into: &out)
  }

  private mutating func report(
    _ s: Int32, from: RegionState, to: RegionState, at now: Instant, firstSeen: Instant,
    into out: inout [RegionOutput]
  ) {
    let slot = store.slots[Int(s)]
    let notify: Bool
    switch (from, to) {
    case (_, .inside): notify = slot.flags & RegionStore.Slot.entryBit != 0
    case (.inside, .outside): notify = slot.flags & RegionStore.Slot.exitBit != 0
    default: notify = false
    }
    counters.transitions += 1
    out.append(
      .transition(
        RegionTransition(
          owner: RegionOwner(slot.owner), id: store.id(s), from: from, to: to, at: now,
          firstSeen: firstSeen, notify: notify)))
  }

  /// Reports the dwell of active entry `i` when it is due: inside, no exit being confirmed,
  /// not reported in this stay, and `dwell` after the stay began.
  private mutating func checkDwell(_ i: Int, at now: Instant, into out: inout [RegionOutput]) {
    let entry = active[i]
    // The active entry first: the slot's dwell is in the part of it a fix does not read.
    guard !entry.dwellDone, entry.pendingSince == nil, let since = entry.insideSince else { return }
    let slot = store.slots[Int(entry.slot)]
    guard slot.dwellMicros > 0, now >= since.adding(microseconds: slot.dwellMicros) else { return }
    active[i].dwellDone = true
    counters.dwells += 1
    out.append(.dwelled(RegionOwner(slot.owner), store.id(entry.slot), since: since))
  }

  /// A tick: every dwell that is due.
  mutating func checkDwells(at now: Instant, into out: inout [RegionOutput]) {
    for i in active.indices where store.slots[Int(active[i].slot)].state == RegionStore.code(.inside) {
      checkDwell(i, at: now, into: &out)
    }
  }
}

/// The buffers of a fix's search: the runs of the cells near it, the entries found in them.
struct SearchScratch: Sendable {
  var runs: [(start: Int32, count: Int)] = []
  var found: [PackedCells.Entry] = []
}
