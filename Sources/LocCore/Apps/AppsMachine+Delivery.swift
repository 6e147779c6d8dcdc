/// Delivery: the index kept in step with the gate, events routed to the apps that may have
/// them, and events held or queued for apps until they may.
extension AppsMachine {
  /// Where events of a gated kind go among app sessions.
  struct Routing: Sendable {
    /// Sessions that get the event as it is.
    var full: [SessionID] = []
    /// Sessions with reduced accuracy, and the event as they get it.
    var reduced: (notice: Notice, sessions: [SessionID])? = nil
  }

  /// Recomputes the index entries of session `id` after something about it changed.
  mutating func reindex(_ id: SessionID, at now: Instant) {
    guard let s = sessions[id] else {
      index.remove(id)
      graceEnds[id] = nil
      return
    }
    let before = index.slot(id, .location)
    for kind in EventKind.allCases where kind.isGated {
      var slot: DeliveryIndex.Slot? = nil
      if s.kinds.contains(kind) {
        switch gate(s, kind, at: now) {
        case .deliver(.full): slot = .full
        case .deliver(.reduced): slot = .reduced
        case .hold: slot = .held
        case .refuse: slot = nil
        }
      }
      index.set(id, kind, slot)
      if kind == .location, slot == .full || slot == .reduced {
        records[s.key]?.lastUsed = now
        // It may have the location now and did not before: it gets the current answer at
        // once (a manual location may never change again).
        if slot != before { greetings.insert(id) }
      }
    }
    graceEnds[id] = s.graceEnds(after: now, grace: settings.inUseGrace)
  }

  /// Recomputes everything about `key` after something changed: its sessions' entries, a
  /// once-grant that ends because the app is no longer in use, whether its events are
  /// queued while it is not connected, its waiting events, and what its sessions are told.
  mutating func reindex(key: AppKey, at now: Instant, into outputs: inout [AppsOutput]) {
    for id in sessions(of: key) { reindex(id, at: now) }
    if let r = records[key], r.once, !anyInUse(key, at: now) {
      // Allow Once lasts while the app is in use; after that the app may ask again.
      var reset = AppRecord(key: key, firstSeen: r.firstSeen)
      reset.registrations = r.registrations
      reset.launchUnit = r.launchUnit
      reset.purpose = r.purpose
      reset.lastUsed = r.lastUsed
      reset.seenAs = r.seenAs
      records[key] = reset
      outputs.append(.decided(key, .notDetermined, by: "Allow Once ended"))
      for id in sessions(of: key) { reindex(id, at: now) }
    }
    let absent = sessions(of: key).isEmpty
    let background = authorization(key).allowsBackground
    for kind in EventKind.allCases where kind.needsAlways {
      let registered = records[key]?.registrations.contains(kind) == true
      index.setAbsent(key, kind, absent && background && registered)
    }
    settleWaiting(key, at: now, into: &outputs)
    tell(key, at: now, into: &outputs)
  }

  /// Tells each session of `key` that subscribed to `authorization` what changed for it.
  mutating func tell(_ key: AppKey, at now: Instant, into outputs: inout [AppsOutput]) {
    for id in sessions(of: key) {
      guard let report = report(id, at: now), sessions[id]?.lastTold != report else { continue }
      sessions[id]?.lastTold = report
      if sessions[id]?.kinds.contains(.authorization) == true { outputs.append(.authorization(id, report)) }
    }
  }

  /// Routes an event of a gated kind: who gets it at full and at reduced accuracy; it is
  /// held for provisional apps not in use and queued for always apps not connected.
  mutating func route(_ notice: Notice, at now: Instant, into outputs: inout [AppsOutput]) -> Routing {
    var routing = Routing()
    guard let kind = notice.kind else { return routing }
    if case .location(let r, _) = notice, let p = r.position { _ = grid.observe(p.coordinate) }
    let lists = index.lists(kind)
    let absent = index.absent[kind]
    guard !lists.isEmpty || absent != nil else { return routing }
    routing.full = lists.full
    if kind == .location, !filtered.isEmpty { routing.full = lists.full.filter { passesFilter($0, notice) } }
    if !lists.reduced.isEmpty, let reduced = reducedNotice(notice) {
      let recipients = kind == .location ? lists.reduced.filter { isNews($0, reduced) } : lists.reduced
      if !recipients.isEmpty { routing.reduced = (reduced, recipients) }
    }
    var keys = Set<AppKey>()
    for id in lists.held {
      if let key = sessions[id]?.key, keys.insert(key).inserted {
        hold(notice, for: key, at: now, into: &outputs)
      }
    }
    for key in absent ?? [] { wait(notice, for: key, at: now) }
    return routing
  }

  /// Sessions whose updates have a distance filter.
  var filtered: Set<SessionID> {
    get { index.filtered }
    set { index.filtered = newValue }
  }

  /// Whether a location event passes session `id`'s distance filter (and notes it if so).
  mutating func passesFilter(_ id: SessionID, _ notice: Notice) -> Bool {
    guard filtered.contains(id), case .location(let r, _) = notice, let c = r.position?.coordinate,
      let filter = sessions[id]?.updates?.distanceFilter
    else { return true }
    if let last = sessions[id]?.lastDelivered, sessions[id]?.lastTier == r.tier,
      last.distance(to: c) < filter
    {
      return false
    }
    sessions[id]?.lastDelivered = c
    sessions[id]?.lastTier = r.tier
    return true
  }

  /// Whether a reduced location event tells session `id` something new (another cell or
  /// tier), and notes it if so: a device that stays in its cell is not reported again.
  mutating func isNews(_ id: SessionID, _ notice: Notice) -> Bool {
    guard case .location(let r, _) = notice else { return true }
    let c = r.position?.coordinate
    if sessions[id]?.lastDelivered == c, sessions[id]?.lastTier == r.tier { return false }
    sessions[id]?.lastDelivered = c
    sessions[id]?.lastTier = r.tier
    return true
  }

  /// The event as an app with reduced accuracy gets it (nil: nothing to tell it).
  func reducedNotice(_ notice: Notice) -> Notice? {
    switch notice {
    case .location(var r, _):
      r.position = r.position.map { grid.snapped($0) }
      return .location(r, fix: nil)
    case .significantChange(let from, let to, _):
      let f = from.map(ReducedGrid.snapped)
      let t = grid.snapped(to)
      if f?.coordinate == t.coordinate { return nil }
      return .significantChange(from: f, to: t, distance: f.map { $0.coordinate.distance(to: t.coordinate) })
    case .region, .visit:
      return nil  // they need precise positions (`EventKind.needsPrecise`)
    default:
      return notice
    }
  }

  /// Holds an event for a provisional always app not in use, and asks the person to upgrade.
  mutating func hold(_ notice: Notice, for key: AppKey, at now: Instant, into outputs: inout [AppsOutput]) {
    wait(notice, for: key, at: now)
    askUpgrade(key, at: now, into: &outputs)
  }

  /// Keeps an event for `key` (at the accuracy it has), dropping the oldest past the bound.
  mutating func wait(_ notice: Notice, for key: AppKey, at now: Instant) {
    let kept = authorization(key).accuracy == .reduced ? reducedNotice(notice) : notice
    guard let kept else { return }
    var events = waiting[key] ?? []
    events.append(WaitingEvent(kept, at: now))
    if events.count > settings.maxQueuedEvents {
      events.removeFirst(events.count - settings.maxQueuedEvents)
      counters.overflowDropped += 1
    }
    waiting[key] = events
  }

  /// Settles `key`'s waiting events: too old ones are dropped; with always they go to the
  /// sessions that subscribed to their kind (or wait for one); provisional, they wait for the
  /// person's answer; otherwise they are discarded.
  mutating func settleWaiting(_ key: AppKey, at now: Instant, into outputs: inout [AppsOutput]) {
    guard var events = waiting[key] else { return }
    let fresh = events.filter { now.duration(since: $0.at) < settings.maxEventAge }
    if fresh.count < events.count {
      counters.staleDropped += events.count - fresh.count
      outputs.append(.dropped(key, count: events.count - fresh.count, why: "older than MaxEventAge="))
      events = fresh
    }
    let a = authorization(key)
    if a.allowsBackground {
      var kept: [WaitingEvent] = []
      for kind in Set(events.compactMap(\.notice.kind)).sorted() {
        let ofKind = events.filter { $0.notice.kind == kind }
        let to = sessions(of: key).filter { sessions[$0]?.kinds.contains(kind) == true }
        if to.isEmpty { kept += ofKind } else { outputs.append(.deliver(to, ofKind)) }
      }
      events = kept.sorted { $0.at < $1.at }
    } else if !a.provisional, !events.isEmpty {
      counters.heldDiscarded += events.count
      outputs.append(.dropped(key, count: events.count, why: "the app may not have them while not in use"))
      events = []
    }
    waiting[key] = events.isEmpty ? nil : events
    if waiting[key] == nil { forgetIfIdle(key) }
  }
}
