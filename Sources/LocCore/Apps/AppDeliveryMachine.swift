/// Delivery to apps: the connected sessions of apps (in use, updates, subscriptions), the
/// index of who may receive each kind of event now (`DeliveryIndex`, the gate's verdict
/// cached per session and kind), the reduced-accuracy grid, grace windows, the sessions to
/// greet with the current answer, and events waiting (held or queued) for an app.
///
/// Its state is private. The gate needs an app's authorization, which the engine takes from
/// `AppAuthorizationMachine` and hands in (`reindex`, `verdict`, `settle`).
struct AppDeliveryMachine: EngineMachine {
  /// The `[Apps]` settings (`InUseGrace=`, `MaxEventAge=`, `MaxQueuedEvents=`).
  private var settings: AppsSettings
  /// Connected app sessions.
  private var sessions: [SessionID: AppSession] = [:]
  /// The sessions of each app, in id order.
  private var sessionsOf: [AppKey: [SessionID]] = [:]
  /// Who may receive what now.
  private var index = DeliveryIndex()
  /// The reduced-accuracy cell.
  private var grid = ReducedGrid()
  /// Grace windows running out, by session.
  private var graceEnds: [SessionID: Instant] = [:]
  /// Sessions that may have the location now and did not (or restarted their updates):
  /// the engine gives each the current answer once (`takeGreetings`).
  private var greetings: Set<SessionID> = []
  /// Events waiting for an app (held or queued), oldest first.
  private var waiting: [AppKey: [WaitingEvent]] = [:]
  /// Counters: waiting events dropped, and why.
  private var counters = Counters()

  /// A machine with `settings`, no sessions.
  init(settings: AppsSettings) { self.settings = settings }

  // MARK: Queries

  /// The gate's verdict for session `id` (nil: not an app session this machine knows).
  func verdict(_ id: SessionID, _ kind: EventKind, _ a: AppAuthorization, at now: Instant) -> Verdict? {
    sessions[id].map { Self.gate($0, a, kind, at: now, grace: settings.inUseGrace) }
  }

  /// The app of session `id`.
  func key(of id: SessionID) -> AppKey? { sessions[id]?.key }

  /// Who session `id` is.
  func identity(of id: SessionID) -> AppIdentity? { sessions[id]?.identity }

  /// The sessions of `key`, in id order.
  func sessions(of key: AppKey) -> [SessionID] { sessionsOf[key] ?? [] }

  /// The kinds session `id` subscribed to (nil: not known).
  func kinds(of id: SessionID) -> Set<EventKind>? { sessions[id]?.kinds }

  /// Whether session `id` runs location updates.
  func hasUpdates(_ id: SessionID) -> Bool { sessions[id]?.updates != nil }

  /// Whether session `id` is in use now.
  func inUse(_ id: SessionID, at now: Instant) -> Bool {
    sessions[id]?.inUse(at: now, grace: settings.inUseGrace) == true
  }

  /// Whether any session of `key` is in use.
  func anyInUse(_ key: AppKey, at now: Instant) -> Bool { sessions(of: key).contains { inUse($0, at: now) } }

  /// Whether events wait for `key`.
  func hasWaiting(_ key: AppKey) -> Bool { waiting[key] != nil }

  /// The accuracy at which session `id` receives location events now (nil: it does not).
  func locationAccuracy(of id: SessionID) -> AccuracyAuthorization? {
    let lists = index.lists(.location)
    if lists.full.contains(id) { return .full }
    return lists.reduced.contains(id) ? .reduced : nil
  }

  /// How many app sessions receive location events now.
  func locationHolders() -> Int { index.lists(.location).full.count + index.lists(.location).reduced.count }

  /// App sessions connected.
  func connectedCount() -> Int { sessions.count }

  /// `position` snapped to the reduced-accuracy grid.
  func snapped(_ position: Position) -> Position { grid.snapped(position) }

  /// The apps receiving positions now, in key order (the counterpart of the arrow).
  func using() -> [AppUse] {
    let location = index.lists(.location)
    var using: [AppUse] = []
    for (ids, accuracy) in [(location.full, AccuracyAuthorization.full), (location.reduced, .reduced)] {
      for id in ids {
        guard let s = sessions[id] else { continue }
        using.append(
          AppUse(
            key: s.key, verification: s.identity.verification, accuracy: accuracy,
            background: s.activity == .background))
      }
    }
    return using.sorted { $0.key < $1.key }
  }

  /// The earliest instant something changes by itself: a grace window ends, a waiting event
  /// grows too old.
  func nextDeadline() -> Instant? {
    var earliest = graceEnds.values.min()
    for events in waiting.values {
      if let first = events.first {
        let d = first.at.adding(settings.maxEventAge)
        earliest = min(earliest ?? d, d)
      }
    }
    return earliest
  }

  /// The counters, as status names them.
  func counterList() -> [Counter] { counters.all }

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

  // MARK: Sessions

  /// The `[Apps]` settings changed (start, reload).
  mutating func configure(_ settings: AppsSettings) { self.settings = settings }

  /// An app session opened.
  mutating func add(_ id: SessionID, _ identity: AppIdentity) {
    sessions[id] = AppSession(identity: identity)
    sessionsOf[identity.key, default: []].append(id)
  }

  /// An app session closed: its app, whether it was receiving positions, and whether it was
  /// the app's last session (nil: not an app session).
  mutating func remove(_ id: SessionID) -> (key: AppKey, wasUsing: Bool, last: Bool)? {
    guard let s = sessions.removeValue(forKey: id) else { return nil }
    let wasUsing = locationAccuracy(of: id) != nil
    index.remove(id)
    graceEnds[id] = nil
    sessionsOf[s.key]?.removeAll { $0 == id }
    let last = sessionsOf[s.key]?.isEmpty == true
    if last { sessionsOf[s.key] = nil }
    return (s.key, wasUsing, last)
  }

  /// `set-activity`: the app is in the foreground or not. Returns its app.
  mutating func setActivity(_ activity: AppActivity, of id: SessionID, at now: Instant) -> AppKey? {
    guard var s = sessions[id] else { return nil }
    if activity == .background, s.activity == .foreground { s.leftForegroundAt = now }
    if activity == .foreground { s.leftForegroundAt = nil }
    s.activity = activity
    sessions[id] = s
    return s.key
  }

  /// Location updates with `updates`' options start for session `id`. Returns its app.
  mutating func startUpdates(_ updates: AppSession.Updates, for id: SessionID, at now: Instant) -> AppKey? {
    guard var s = sessions[id] else { return nil }
    var u = updates
    u.startedInUse = s.inUse(at: now, grace: settings.inUseGrace)
    s.updates = u
    s.kinds.insert(.location)
    s.lastDelivered = nil
    s.lastTier = nil
    sessions[id] = s
    if u.distanceFilter != nil { index.filtered.insert(id) } else { index.filtered.remove(id) }
    return s.key
  }

  /// Started (again) while it may have the location: the current answer at once.
  mutating func greetIfDelivering(_ id: SessionID) {
    if let slot = index.slot(id, .location), slot != .held { greetings.insert(id) }
  }

  /// Location updates stop for session `id`. Returns its app.
  mutating func stopUpdates(for id: SessionID) -> AppKey? {
    guard var s = sessions[id] else { return nil }
    s.updates = nil
    s.kinds.remove(.location)
    sessions[id] = s
    index.filtered.remove(id)
    return s.key
  }

  /// Session `id` subscribes to `kinds`.
  mutating func addKinds(_ kinds: Set<EventKind>, to id: SessionID) { sessions[id]?.kinds.formUnion(kinds) }

  /// Session `id` unsubscribes from `kinds`.
  mutating func removeKinds(_ kinds: Set<EventKind>, from id: SessionID) {
    sessions[id]?.kinds.subtract(kinds)
  }

  /// Notes `report` as told to session `id`; false when it was told that already.
  mutating func noteTold(_ report: AppStatusReport, to id: SessionID) -> Bool {
    guard sessions[id] != nil, sessions[id]?.lastTold != report else { return false }
    sessions[id]?.lastTold = report
    return true
  }

  /// The sessions to give the current answer to, in id order; emptied.
  mutating func takeGreetings() -> [SessionID] {
    defer { greetings = [] }
    return greetings.sorted().filter { sessions[$0] != nil }
  }

  // MARK: The index

  /// Recomputes the index entries of session `id` (its app has authorization `a`) after
  /// something about it changed. Returns whether it may have the location now (its app's
  /// last use is then now).
  mutating func reindex(_ id: SessionID, _ a: AppAuthorization, at now: Instant) -> Bool {
    guard let s = sessions[id] else {
      index.remove(id)
      graceEnds[id] = nil
      return false
    }
    var using = false
    let before = index.slot(id, .location)
    for kind in EventKind.allCases where kind.isGated {
      var slot: DeliveryIndex.Slot? = nil
      if s.kinds.contains(kind) {
        switch Self.gate(s, a, kind, at: now, grace: settings.inUseGrace) {
        case .deliver(.full): slot = .full
        case .deliver(.reduced): slot = .reduced
        case .hold: slot = .held
        case .refuse: slot = nil
        }
      }
      index.set(id, kind, slot)
      if kind == .location, slot == .full || slot == .reduced {
        using = true
        // It may have the location now and did not before: it gets the current answer at
        // once (a manual location may never change again).
        if slot != before { greetings.insert(id) }
      }
    }
    graceEnds[id] = s.graceEnds(after: now, grace: settings.inUseGrace)
    return using
  }

  /// Whether events of `kind` are queued for `key` while it is not connected.
  mutating func setAbsent(_ key: AppKey, _ kind: EventKind, _ queued: Bool) {
    index.setAbsent(key, kind, queued)
  }

  /// The apps whose grace windows ended or whose waiting events grew too old by `now`
  /// (ended windows are forgotten).
  mutating func expire(at now: Instant) -> Set<AppKey> {
    var keys = Set<AppKey>()
    for (id, end) in graceEnds where end <= now {
      graceEnds[id] = nil
      if let key = sessions[id]?.key { keys.insert(key) }
    }
    for (key, events) in waiting
    where events.first.map({ now.duration(since: $0.at) >= settings.maxEventAge }) == true {
      keys.insert(key)
    }
    return keys
  }

  // MARK: Routing

  /// Routes an event of a gated kind: who gets it at full and at reduced accuracy, and the
  /// apps for which the engine holds it (provisional, not in use) or queues it (not connected).
  mutating func route(_ notice: Notice) -> Routing {
    var routing = Routing()
    guard let kind = notice.kind else { return routing }
    if case .location(let r, _) = notice, let p = r.position { _ = grid.observe(p.coordinate) }
    let lists = index.lists(kind)
    let absent = index.absent[kind]
    guard !lists.isEmpty || absent != nil else { return routing }
    routing.full = lists.full
    if kind == .location, !index.filtered.isEmpty {
      routing.full = lists.full.filter { passesFilter($0, notice) }
    }
    if !lists.reduced.isEmpty, let reduced = reducedNotice(notice) {
      let recipients = kind == .location ? lists.reduced.filter { isNews($0, reduced) } : lists.reduced
      if !recipients.isEmpty { routing.reduced = (reduced, recipients) }
    }
    var keys = Set<AppKey>()
    for id in lists.held {
      if let key = sessions[id]?.key, keys.insert(key).inserted { routing.held.append(key) }
    }
    routing.absent = Array(absent ?? [])
    return routing
  }

  /// Whether a location event passes session `id`'s distance filter (and notes it if so).
  mutating func passesFilter(_ id: SessionID, _ notice: Notice) -> Bool {
    guard index.filtered.contains(id), case .location(let r, _) = notice, let c = r.position?.coordinate,
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

  // MARK: Waiting events

  /// Keeps an event for `key` (at `accuracy`, its app's), dropping the oldest past the bound.
  mutating func wait(_ notice: Notice, for key: AppKey, accuracy: AccuracyAuthorization, at now: Instant) {
    let kept = accuracy == .reduced ? reducedNotice(notice) : notice
    guard let kept else { return }
    var events = waiting[key] ?? []
    events.append(WaitingEvent(kept, at: now))
    if events.count > settings.maxQueuedEvents {
      events.removeFirst(events.count - settings.maxQueuedEvents)
      counters.overflowDropped += 1
    }
    waiting[key] = events
  }

  /// Settles `key`'s waiting events (its app has authorization `a`): too old ones are
  /// dropped; with always they go to the sessions that subscribed to their kind (or wait for
  /// one); provisional, they wait for the person's answer; otherwise they are discarded.
  /// Returns whether events were waiting and none wait now.
  mutating func settle(
    _ key: AppKey, _ a: AppAuthorization, at now: Instant, into outputs: inout [AppsOutput]
  )
    -> Bool
  {
    guard var events = waiting[key] else { return false }
    let fresh = events.filter { now.duration(since: $0.at) < settings.maxEventAge }
    if fresh.count < events.count {
      counters.staleDropped += events.count - fresh.count
      outputs.append(.dropped(key, count: events.count - fresh.count, why: "older than MaxEventAge="))
      events = fresh
    }
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
    return waiting[key] == nil
  }
}
