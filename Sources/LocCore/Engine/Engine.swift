/// The functional core of locd: `handle(event, at: now) -> [Effect]`. It never reads a
/// clock, a file, a socket or the environment; the shell feeds it events and carries out
/// its effects. Every behaviour is a replayable list of (instant, event) pairs.
public struct Engine {
  /// The configuration in effect.
  public private(set) var config: DaemonConfig
  /// Looked-up data (zones, sun).
  public var environment: EngineEnvironment

  struct Session {
    var peer: Peer
    var access: AccessLevel
    var app: String?
    var subscriptions: Set<EventKind> = []
  }

  private(set) var sessions: [SessionID: Session] = [:]
  /// Sessions that may read, by the event kinds they subscribed to, in id order.
  private(set) var subscribers: [EventKind: [SessionID]] = [:]
  private(set) var sources: [SourceID: SourceSnapshot] = [:]
  /// Which fixes may move the position.
  var acceptance = FixAcceptance()
  /// Fixes dropped, by reason.
  var rejections: [FixAcceptance.Rejection: Int] = [:]
  /// The zone adopted from fixes, with border hysteresis.
  var hysteresis = ZoneHysteresis()
  /// The timers, their memory and plans.
  var scheduler = TimerScheduler()
  /// Plans for the place and zone of the last regeneration.
  var planner: TimerPlanner
  /// Problems of timer files that could not be loaded.
  var timerProblems: [String] = []
  /// Whether the timer files and store have been loaded (timers fire only after).
  var timersReady = false
  /// The zone in effect at the last regeneration (id, offset, abbreviation).
  var zoneInEffect: ZoneReport?
  /// Today's and tomorrow's solar days at the last regeneration.
  var solarDays: [SolarDaySummary] = []
  /// Instants armed for the regeneration and timer deadlines, to re-arm only on change.
  var armed: [EngineTimer: Instant] = [:]
  /// Whether this event already regenerated (a second reason in the same event adds nothing).
  var regeneratedThisEvent = false
  /// The system zone as locd last set it (or found it), for `SetSystemTimeZone=`.
  var systemZoneSet: String?
  /// When fixes are wanted (idle, acquiring, settled).
  var acquisition: Acquisition
  /// `locate` requests waiting for a fix, oldest first.
  var pendingLocates: [PendingLocate] = []
  /// The token the next `locate` request gets in `acquisition`.
  var nextLocateToken = 0
  /// What the shell was last told about receivers (nil: nothing yet).
  var receiversActive: Bool?
  /// The latest accepted fix and the position made from it.
  private(set) var latestFix: (fix: Fix, position: Position)?
  /// Last known position from the state file (or last persisted).
  private(set) var lastKnown: Position?
  /// What the state file holds now for the last known position.
  private var persistedLastKnown: Position?
  /// The manual location.
  private(set) var manual: Position?
  private var lastTier: PositionTier = .none
  private var serverCounters = ServerCounters()
  private var stateProblem: String?
  private var startedAt = Instant(microsecondsSinceEpoch: 0)
  private var sentSummaryKey: SummaryKey?
  private var sentSummaryAt = Instant(microsecondsSinceEpoch: 0)
  private var statusRefreshArmed = false
  /// Minimum time between two STATUS= updates that differ only in details (satellites).
  static let statusThrottle: Duration = .seconds(10)

  /// An engine with a configuration and its data.
  public init(config: DaemonConfig, environment: EngineEnvironment = EngineEnvironment()) {
    self.config = config
    self.environment = environment
    planner = TimerPlanner(zone: .utc, coordinate: nil)
    systemZoneSet = environment.systemZone
    acquisition = Acquisition(policy: config.acquisition)
    applySettings()
  }

  /// Hands the configuration's settings to the parts that use them.
  mutating func applySettings() {
    hysteresis.settings = config.zoneSwitch
    scheduler.missedAfter = config.missedAfter
  }

  /// Handles one event at `now` and returns what the shell must do, in order.
  public mutating func handle(_ event: EngineEvent, at now: Instant) -> [Effect] {
    var effects: [Effect] = []
    regeneratedThisEvent = false
    switch event {
    case .started(let state, let problem):
      startedAt = now
      lastKnown = state?.lastKnown
      persistedLastKnown = state?.lastKnown
      manual = state?.manual
      stateProblem = problem
      if let problem {
        effects.append(.log(.warning, "state file ignored: \(problem)"))
      }
      lastTier = resolve(at: now).tier
      if let c = lastKnown?.coordinate { hysteresis.reset(to: environment.zoneAt(c), at: now) }
      regenerate(.start, at: now, into: &effects)
      applyAcquisition(acquisition.trigger(.start, at: now), at: now, into: &effects)
      if config.acquisition.mode == .continuous {
        applyAcquisition(acquisition.trigger(.continuous, at: now), at: now, into: &effects)
      }
    case .fixDecoded(let fix, let source):
      handleFix(fix, from: source, at: now, into: &effects)
    case .sourceUpdated(let snapshot, let restarted):
      let old = sources[snapshot.id]
      sources[snapshot.id] = snapshot
      if restarted { acceptance.restarted(snapshot.id) }
      if old?.state != snapshot.state {
        publish(.sourceStatus(snapshot), at: now, into: &effects)
      }
    case .serverCountersChanged(let counters):
      // Permission refusals are counted here, not by the server.
      let denied = serverCounters.permissionDenied
      serverCounters = counters
      serverCounters.permissionDenied = denied
    case .sessionOpened(let id, let peer, let access, let app):
      sessions[id] = Session(peer: peer, access: access, app: app)
    case .requestReceived(let session, let id, let request):
      handleRequest(request, id: id, from: session, at: now, into: &effects)
    case .sessionClosed(let id):
      sessions[id] = nil
      indexSubscribers()
      dropLocates(of: id, at: now, into: &effects)
    case .timerFired(let timer):
      switch timer {
      case .freshness: break  // the tier check below does the work
      case .statusRefresh: statusRefreshArmed = false
      case .timers: armed[.timers] = nil  // afterEvent fires what is due
      case .zoneTransition: armed[.zoneTransition] = nil  // afterEvent sees the new offset
      case .localMidnight:
        armed[.localMidnight] = nil
        regenerate(.localMidnight, at: now, into: &effects)
      case .acquisitionTimeout:
        armed[.acquisitionTimeout] = nil
        applyAcquisition(acquisition.timedOut(at: now), at: now, into: &effects)
      case .acquisitionRefresh:
        armed[.acquisitionRefresh] = nil
        applyAcquisition(acquisition.refreshDue(at: now), at: now, into: &effects)
      case .locateDeadline:
        armed[.locateDeadline] = nil  // afterEvent answers what is due
      }
    case .timersLoaded(let files, let problems, let store):
      loadTimers(files, problems: problems, store: store, at: now, into: &effects)
    case .clockStepped:
      effects.append(.log(.notice, "the wall clock was stepped; re-planning"))
      if scheduler.wentBack(at: now) { scheduler.steppedBack(to: now) }
      regenerate(.clockStep, at: now, into: &effects)
      rebaseAcquisition(at: now, into: &effects)
    case .resumed(let slept):
      let how = slept.map { " after \(TimeFormat.duration($0))" } ?? ""
      effects.append(.log(.info, "resumed from suspend\(how); re-planning"))
      regenerate(.resume, at: now, into: &effects)
      applyAcquisition(acquisition.trigger(.resume, at: now), at: now, into: &effects)
    case .configReloaded(let result, let requester):
      switch result {
      case .success(let newConfig):
        config = newConfig
        applySettings()
        effects.append(.log(.notice, "configuration reloaded"))
        applyAcquisition(acquisition.update(newConfig.acquisition, at: now), at: now, into: &effects)
        regenerate(.configuration, at: now, into: &effects)
        if let r = requester { effects.append(.reply(r.session, r.id, .success(.done))) }
      case .failure(let failure):
        effects.append(
          .log(
            .error,
            "configuration not reloaded, keeping the old one: \(failure.problems.joined(separator: "; "))"))
        if let r = requester {
          effects.append(
            .reply(r.session, r.id, .failure(RequestError(.failed, failure.problems.joined(separator: "; "))))
          )
        }
      }
    case .stopping:
      if let latest = latestFix?.position, latest != persistedLastKnown {
        lastKnown = latest
        persistedLastKnown = latest
        effects.append(.persist(storedState))
      }
      if timersReady, !scheduler.names.isEmpty { effects.append(.persistTimers(timerStore(at: now))) }
    }
    afterEvent(at: now, into: &effects)
    return effects
  }

  // MARK: Fixes

  private mutating func handleFix(
    _ fix: Fix, from source: SourceID, at now: Instant, into effects: inout [Effect]
  ) {
    if case .reject(let why) = acceptance.judge(fix, from: source) {
      rejections[why, default: 0] += 1
      if why == .insideAccuracy, let c = fix.coordinate {
        // Consistent with the current fix, only less accurate: it still shows the position is stable.
        applyAcquisition(
          acquisition.fix(c, accuracy: fix.horizontalAccuracy, at: now), at: now, into: &effects)
      }
      switch why {
      case .noFix where fix.quality == .simulated: effects.append(.log(.debug, "simulated fix dropped"))
      case .implausibleJump:
        effects.append(.log(.debug, "fix dropped: implausible jump from the current one"))
      default: break
      }
      return
    }
    guard let coordinate = fix.coordinate else { return }
    let uri = sources[source]?.uri ?? "source \(source.index)"
    let position = Position(
      coordinate: coordinate, accuracy: fix.horizontalAccuracy, altitude: fix.altitudeMSL, time: fix.time,
      receivedAt: now, source: uri)
    latestFix = (fix, position)
    effects.append(.arm(.freshness, at: now.adding(config.freshFor)))
    if config.logLevel >= .debug {  // formatting costs more than the rest of a fix
      effects.append(
        .log(.debug, "fix \(coordinate.latitude.value),\(coordinate.longitude.value) from \(uri)"))
    }
    publish(.location(resolve(at: now), fix: fix), at: now, into: &effects)
    answerLocates(at: now, into: &effects)
    applyAcquisition(
      acquisition.fix(coordinate, accuracy: fix.horizontalAccuracy, at: now), at: now, into: &effects)

    let before = hysteresis.adopted
    let adopted = hysteresis.observe(
      environment.zoneAt(coordinate), at: coordinate, time: fix.time, accuracy: fix.horizontalAccuracy,
      borderDistance: environment.borderDistance?(coordinate))
    let zoneChanged = adopted != nil && adopted != before && before != nil
    let move = SignificancePolicy(threshold: config.significantDistance).evaluate(
      from: persistedLastKnown, to: position)
    guard move != nil || zoneChanged else { return }
    let from = persistedLastKnown
    let distance = from.map { $0.coordinate.distance(to: coordinate) }
    lastKnown = position
    persistedLastKnown = position
    effects.append(.persist(storedState))
    if let move {
      effects.append(
        .log(
          .info,
          move.distance.map { "significant move of \(Int($0.value)) m" } ?? "first position since start"))
    } else {
      effects.append(.log(.info, "entered time zone \(adopted ?? "?")"))
    }
    publish(.significantChange(from: from, to: position, distance: distance), at: now, into: &effects)
    regenerate(move != nil ? .significantChange : .timezone, at: now, into: &effects)
  }

  // MARK: Requests

  private mutating func handleRequest(
    _ request: Request, id: RequestID, from sessionID: SessionID, at now: Instant,
    into effects: inout [Effect]
  ) {
    guard let session = sessions[sessionID] else { return }
    func deny(_ needed: AccessLevel) {
      let what =
        needed == .admin
        ? "changing locd's state needs root or the admin group"
        : "reading locd's state needs root or the socket group"
      effects.append(.reply(sessionID, id, .failure(RequestError(.permissionDenied, what))))
    }
    let needed: AccessLevel
    switch request {
    // Asking for a fresh fix needs no more than reading it: a reader can already keep the
    // receiver on by subscribing to `location` (docs/PRIVACY.md).
    case .status, .subscribe, .unsubscribe, .listTimers, .showTimer, .locate, .refresh: needed = .read
    case .setLocation, .clearLocation, .reload, .addTimer, .removeTimer: needed = .admin
    }
    guard session.access >= needed else {
      serverCounters.permissionDenied += 1
      deny(needed)
      return
    }
    switch request {
    case .status:
      effects.append(.reply(sessionID, id, .success(.status(status(at: now)))))
    case .subscribe(let kinds):
      sessions[sessionID]?.subscriptions.formUnion(kinds)
      indexSubscribers()
      effects.append(.reply(sessionID, id, .success(.subscriptions(sessions[sessionID]!.subscriptions))))
      if kinds.contains(.location) {
        // A new subscriber gets the current answer at once instead of waiting for a fix.
        effects.append(.push([sessionID], .location(resolve(at: now), fix: latestFix?.fix), at: now))
      }
    case .unsubscribe(let kinds):
      sessions[sessionID]?.subscriptions.subtract(kinds)
      indexSubscribers()
      effects.append(.reply(sessionID, id, .success(.subscriptions(sessions[sessionID]!.subscriptions))))
    case .setLocation(let coordinate, let name, let accuracy):
      manual = Position(
        coordinate: coordinate, accuracy: accuracy, time: now, receivedAt: now, source: "manual", name: name)
      effects.append(.persist(storedState))
      effects.append(.log(.notice, "manual location set by uid \(session.peer.uid)"))
      effects.append(.reply(sessionID, id, .success(.manualLocation(manual))))
      regenerate(.manualLocation, at: now, into: &effects)
    case .clearLocation:
      manual = nil
      effects.append(.persist(storedState))
      effects.append(.log(.notice, "manual location cleared by uid \(session.peer.uid)"))
      effects.append(.reply(sessionID, id, .success(.manualLocation(nil))))
      regenerate(.manualLocation, at: now, into: &effects)
    case .reload:
      effects.append(.reloadConfiguration(requestedBy: RequestRef(session: sessionID, id: id)))
    case .listTimers, .showTimer, .addTimer, .removeTimer:
      handleTimerRequest(request, id: id, from: sessionID, at: now, into: &effects)
    case .locate(let timeout, let accuracy):
      handleLocate(
        RequestRef(session: sessionID, id: id), timeout: timeout ?? config.acquisition.timeout,
        accuracy: accuracy ?? config.acquisition.accuracy, at: now, into: &effects)
    case .refresh:
      let uid = session.peer.uid
      effects.append(.log(.info, "fresh fix requested by uid \(uid)"))
      applyAcquisition(acquisition.trigger(.manual, at: now), at: now, into: &effects)
      let report = acquisition.report(pendingLocates: pendingLocates.count)
      effects.append(.reply(sessionID, id, .success(.acquisition(report))))
    }
  }

  // MARK: After every event

  private mutating func afterEvent(at now: Instant, into effects: inout [Effect]) {
    if scheduler.wentBack(at: now) {
      // Time went back without the shell noticing a step (or before it did): plan again
      // from here; handled dates keep fired occurrences from firing twice.
      scheduler.steppedBack(to: now)
      effects.append(.log(.notice, "time went back; re-planning"))
      regenerate(.clockStep, at: now, into: &effects)
      rebaseAcquisition(at: now, into: &effects)
    }
    // Nothing below changes the position, so it and its zone are worked out once per event.
    let resolved = resolve(at: now)
    let zone = zone(for: resolved, at: now)
    if let current = zoneInEffect {
      let z = zone
      if z.id != current.id || z.offsetSeconds != current.offsetSeconds {
        regenerate(z.id != current.id ? .timezone : .utcOffset, at: now, into: &effects)
      }
    }
    fireDueTimers(at: now, into: &effects)
    armTimers(into: &effects)
    syncAcquisition(at: now, into: &effects)
    if resolved.tier != lastTier {
      effects.append(
        .log(.info, "position now from tier '\(resolved.tier.rawValue)' (was '\(lastTier.rawValue)')"))
      lastTier = resolved.tier
      // A tier change is news even without a fix (fix went stale, manual set, ...).
      if !effects.contains(where: {
        if case .push(_, .location, _) = $0 { return true } else { return false }
      }) {
        publish(.location(resolved, fix: latestFix?.fix), at: now, into: &effects)
      }
    }
    // The STATUS= line is built only when what it says changes: this runs on every fix.
    let key = SummaryKey(resolved, fix: latestFix?.fix, zone: zone.id)
    guard key != sentSummaryKey else { return }
    // A change of tier, fix mode or zone is reported at once; details (satellites,
    // accuracy, age) at most every `statusThrottle`.
    let major = key.major != sentSummaryKey?.major
    if major || now.duration(since: sentSummaryAt) >= Engine.statusThrottle {
      sentSummaryKey = key
      sentSummaryAt = now
      effects.append(.notifyStatus(key.line))
    } else if !statusRefreshArmed {
      statusRefreshArmed = true
      effects.append(.arm(.statusRefresh, at: sentSummaryAt.adding(Engine.statusThrottle)))
    }
  }

  mutating func publish(_ notice: Notice, at now: Instant, into effects: inout [Effect]) {
    // One effect for every recipient: the notice is copied and serialized once.
    if let recipients = subscribers[notice.kind], !recipients.isEmpty {
      effects.append(.push(recipients, notice, at: now))
    }
  }

  /// Recomputes `subscribers` after sessions or subscriptions change (rare; publishing is not).
  private mutating func indexSubscribers() {
    var index: [EventKind: [SessionID]] = [:]
    for (id, s) in sessions where s.access >= .read {
      for kind in s.subscriptions { index[kind, default: []].append(id) }
    }
    for kind in index.keys { index[kind]!.sort() }
    subscribers = index
  }

  // MARK: Queries

  private var storedState: StoredState { StoredState(lastKnown: persistedLastKnown, manual: manual) }

  /// Why fixes are not coming, from the sources' states.
  private var sourceProblem: String? {
    let snapshots = sources.values.sorted(by: { $0.id < $1.id })
    if snapshots.contains(where: { $0.state == .connected || $0.state == .idle }) {
      return acquisition.isAcquiring ? nil : "receivers idle between refreshes"
    }
    guard let first = snapshots.first else { return nil }
    let detail = first.lastError.map { " (\($0))" } ?? ""
    return "source \(first.uri): \(first.state.name)\(detail)"
  }

  /// The resolver's answer at `now`.
  public func resolve(at now: Instant) -> ResolvedPosition {
    PositionResolver.resolve(
      fix: latestFix?.position, lastKnown: lastKnown, manual: manual, freshFor: config.freshFor, now: now,
      sourceProblem: sourceProblem)
  }

  /// The zone in effect at `now` for a resolved position.
  public func zone(for resolved: ResolvedPosition, at now: Instant) -> ZoneReport {
    var id = environment.systemZone
    var origin = "system"
    var reason: String? = nil
    switch resolved.tier {
    case .manual:
      if let c = resolved.position?.coordinate, let z = environment.zoneAt(c) {
        id = z
        origin = "position"
        reason = "\(z) at the manual location"
      }
    case .fix, .cached:
      if let z = hysteresis.adopted {
        id = z
        origin = "position"
        reason = hysteresis.explanation
      }
    case .none:
      break
    }
    if origin == "system", let configured = config.timeZone {
      id = configured
      origin = "configured"
    }
    let rules = environment.rules(id)
    return ZoneReport(
      id: id, origin: origin, offsetSeconds: rules?.utcOffsetSeconds(at: now),
      abbreviation: rules?.abbreviation(at: now),
      reason: reason)
  }

  /// Today's sunrise and sunset (local day of `zone`) at the resolved position.
  func sunToday(at coordinate: Coordinate, zone: String, now: Instant) -> SunReport? {
    guard let rules = environment.rules(zone) else { return nil }
    let date = rules.localDate(at: now)
    let day = SolarCalculator(coordinate: coordinate).day(date, in: rules, events: [.sunrise, .sunset])
    var notes: [String] = []
    for event in [SolarEvent.sunrise, .sunset] {
      if case .never(let why)? = day[event] {
        let name = event == .sunrise ? "sunrise" : "sunset"
        switch why {
        case .polarDay: notes.append("no \(name) today: the sun stays up (polar day)")
        case .polarNight: notes.append("no \(name) today: the sun stays down (polar night)")
        case .otherDay: notes.append("no \(name) in this local day (it falls just outside midnight)")
        }
      }
    }
    return SunReport(
      date: date, sunrise: day[.sunrise]?.instant, sunset: day[.sunset]?.instant,
      note: notes.isEmpty ? nil : notes.joined(separator: "; "))
  }

  /// The full status at `now`.
  public func status(at now: Instant) -> StatusReport {
    let resolved = resolve(at: now)
    var zone = zone(for: resolved, at: now)
    if zone.origin == "position", let c = resolved.position?.coordinate,
      let d = environment.borderDistance?(c),
      d.value < 10_000
    {
      zone.borderDistance = d
    }
    let sun = resolved.position.flatMap { sunToday(at: $0.coordinate, zone: zone.id, now: now) }
    let fix = latestFix.map {
      FixSummary(
        mode: $0.fix.mode, quality: $0.fix.quality, satellitesUsed: $0.fix.satellitesUsed,
        satellitesInView: $0.fix.satellitesInView, accuracy: $0.fix.horizontalAccuracy, hdop: $0.fix.hdop,
        time: $0.fix.time)
    }
    return StatusReport(
      position: resolved, fix: fix, sources: sources.values.sorted(by: { $0.id < $1.id }), timeZone: zone,
      sun: sun, server: serverCounters, sessions: sessions.count, startedAt: startedAt,
      stateProblem: stateProblem, summary: SummaryKey(resolved, fix: latestFix?.fix, zone: zone.id).line,
      timers: scheduler.names.count,
      nextTimer: nextTimerStatus(),
      rejectedFixes: FixAcceptance.Rejection.allCases.map { Counter($0.rawValue, rejections[$0] ?? 0) },
      acquisition: acquisition.report(pendingLocates: pendingLocates.count))
  }

  /// What the STATUS= line says, as values: compared on every event, turned into text only
  /// when it changes.
  struct SummaryKey: Equatable {
    var tier: PositionTier
    var mode: FixMode?
    var quality: FixQuality?
    var satellites: Int?
    var accuracy: Int?
    var age: String?
    var zone: String
    var reason: String?

    init(_ resolved: ResolvedPosition, fix: Fix?, zone: String) {
      tier = resolved.tier
      self.zone = zone
      switch resolved.tier {
      case .fix:
        mode = fix?.mode
        quality = fix?.quality
        satellites = fix?.satellitesUsed
        accuracy = fix?.horizontalAccuracy.map { Int($0.value.rounded()) }
      case .cached: age = TimeFormat.coarseAge(resolved.age)
      case .manual: break
      case .none: reason = resolved.reason
      }
    }

    /// The parts reported at once when they change.
    var major: [String] { [tier.rawValue, mode.map { "\($0.rawValue)" } ?? "", zone] }

    var line: String {
      var parts: [String] = []
      switch tier {
      case .fix:
        var head = mode == .threeD ? "3D fix" : "2D fix"
        if let q = quality, q != .gps { head += " (\(q.rawValue))" }
        parts.append(head)
        if let n = satellites { parts.append("\(n) sats") }
        if let a = accuracy { parts.append("±\(a) m") }
      case .cached: parts.append("cached position, \(age ?? "unknown") old")
      case .manual: parts.append("manual location")
      case .none: parts.append("no position")
      }
      parts.append(zone)
      if let reason { parts.append(reason) }
      return parts.joined(separator: ", ")
    }
  }

}
