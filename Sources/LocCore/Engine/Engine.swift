/// The functional core of locd: `handle(event, at: now) -> [Effect]`. It never reads a
/// clock, a file, a socket or the environment; the shell feeds it events and carries out
/// its effects. Every behaviour is a replayable list of (instant, event) pairs.
///
/// A small dispatcher over focused state machines (`EngineMachine`), each owning one
/// concern's state: it routes each event to the machines it concerns, in order, and turns
/// their outputs into effects. Its stored properties are the configuration and one per
/// machine, nothing else (docs/decisions/0012-engine-machines.md).
public struct Engine {
  /// The configuration in effect: the one copy the daemon has (the shell reads it here).
  public private(set) var config: DaemonConfig
  /// Sources, fix acceptance, the latest fix, last known and manual positions.
  var positions = PositionMachine()
  /// When fixes are wanted, and `locate` requests waiting for one.
  var acquisition: AcquisitionMachine
  /// Zone data, the zone adopted from fixes, the zone in effect, the system zone.
  var zones: ZoneMachine
  /// The planner and solar days of the last regeneration.
  var regeneration = RegenerationMachine()
  /// User timers.
  var timers: TimerMachine
  /// `wait` requests waiting for a rule's occurrence or a zone change.
  var waits = WaitMachine()
  /// Connected clients, their access and subscriptions.
  var sessions = SessionMachine()
  /// Apps' authorization: policy, decisions and records, the bound per user, apps.json.
  var appAuthorization: AppAuthorizationMachine
  /// The users' agents and the prompts put to them.
  var appPrompts: AppPromptMachine
  /// App sessions, the delivery gate's index, the reduced grid, events waiting for apps.
  var appDelivery: AppDeliveryMachine
  /// The systemd STATUS= line and its throttle.
  var statusLine = StatusLineMachine()
  /// Beacon monitors and ranging requests of the sessions.
  var beacons = BeaconSessionMachine()
  /// Every app's regions and the device's visits.
  var regions: RegionsMachine
  /// Which of the shell's timers are armed, and for when.
  var armed = ArmedTimers()
  /// The geolocation service: lookups, their cache, interval and backoff.
  var network: NetworkLookupMachine
  /// Who wants the compass's heading, who may have it, and whether the compass is claimed.
  var heading = HeadingMachine()
  /// The users' light/dark schedules, their overrides and followers.
  var lightDark = LightDarkMachine()
  /// Who reads satellites: whether the sources should assemble skies, `sky` requests waiting.
  var skyDemand = SkyDemandMachine()

  /// An engine with a configuration and its data.
  public init(config: DaemonConfig, environment: EngineEnvironment = EngineEnvironment()) {
    self.config = config
    acquisition = AcquisitionMachine(policy: config.acquisition)
    zones = ZoneMachine(environment: environment, settings: config.zoneSwitch)
    timers = TimerMachine(missedAfter: config.missedAfter)
    appAuthorization = AppAuthorizationMachine(settings: config.apps)
    appPrompts = AppPromptMachine(settings: config.apps)
    appDelivery = AppDeliveryMachine(settings: config.apps)
    regions = RegionsMachine(settings: config.regions)
    network = NetworkLookupMachine(settings: config.network)
  }

  /// Handles one event at `now` and returns what the shell must do, in order.
  public mutating func handle(_ event: EngineEvent, at now: Instant) -> [Effect] {
    var effects: [Effect] = []
    switch event {
    case .started(let state, let problem):
      start(state, problem: problem, at: now, into: &effects)
    case .fixDecoded(let fix, let source):
      handleFix(fix, from: source, at: now, into: &effects)
    case .staticFileRead(let path, let contents, let problem):
      handleStaticFile(path, contents: contents, problem: problem, at: now, into: &effects)
    case .geolocateAnswered(let outcome):
      handleGeolocate(outcome, at: now, into: &effects)
    case .wifiScanned(let accessPoints, let problem, let unread):
      network.scanned(accessPoints, unread: unread, problem: problem, at: now)
      if let problem { effects.append(.log(.info, "no Wi-Fi scan: \(problem)")) }
      if unread > 0 {
        effects.append(
          .log(
            .info,
            "Wi-Fi scan: \(unread) access points not read (at most \(WifiAccessPoint.scanLimit) are, in a bounded time)"
          ))
      }
    case .wifiPublished(let accessPoints, let unread):
      network.published(accessPoints, unread: unread, at: now)
    case .cellsSeen(let cells, let source):
      network.cellsSeen(cells, from: source)
    case .skyDecoded(let sky, let source):
      // Satellites are no position, but they are the receiver's business: debug only.
      if config.logLevel >= .debug {
        let s = sky.summary
        effects.append(.log(.debug, "sky from \(positions.uri(of: source)): \(s.used) of \(s.inView) used"))
      }
      if let due = positions.sky(sky, from: source, at: now) { publish(.sky(due), at: now, into: &effects) }
      skyCame(from: source, into: &effects)
    case .sourceUpdated(let snapshot, let restarted):
      if let news = positions.sourceUpdated(snapshot, restarted: restarted, at: now) {
        publish(.sourceStatus(news), at: now, into: &effects)
      }
    case .sessionOpened(let id, let hello, let reply):
      open(id, hello, reply: reply, at: now, into: &effects)
    case .requestReceived(let session, let id, let request):
      handleRequest(request, ref: RequestRef(session: session, id: id), at: now, into: &effects)
    case .accessChanged(let id, let level, let reason):
      accessChanged(id, to: level, reason: reason, at: now, into: &effects)
    case .headingMeasured(let degrees, let source):
      headingMeasured(degrees, from: source, at: now, into: &effects)
    case .beaconHeard(let sighting, _):
      deliver(beacons.handle(.heard(sighting), at: now), at: now, into: &effects)
    case .sessionClosed(let id):
      close(id, at: now, into: &effects)
      deliver(beacons.handle(.closed(id), at: now), at: now, into: &effects)
      headingClosed(id, at: now, into: &effects)
      lightDark.closed(id)
      waits.drop(id)
      skyDemand.drop(id)
      settleSkyDemand(at: now, into: &effects)
      let transitions = acquisition.drop(id, at: now)
      announce(transitions, into: &effects)
    case .timerFired(let timer):
      timerFired(timer, at: now, into: &effects)
    case .timersLoaded(let files, let problems, let store):
      loadTimers(files, problems: problems, store: store, at: now, into: &effects)
    case .clockStepped:
      // The engine's clock: the wall clock, or under --clock replay the simulated one (whose
      // start is a step too); the time it stepped to says which.
      effects.append(.log(.notice, "the clock was stepped to \(now.iso8601()); re-planning"))
      if timers.wentBack(at: now) { timers.steppedBack(to: now) }
      regenerate(.clockStep, at: now, into: &effects)
      let transitions = acquisition.clockStepped(at: now)
      announce(transitions, into: &effects)
    case .resumed(let slept):
      let how = slept.map { " after \(TimeFormat.duration($0))" } ?? ""
      effects.append(.log(.info, "resumed from suspend\(how); re-planning"))
      regenerate(.resume, at: now, into: &effects)
      let transitions = acquisition.trigger(.resume, at: now)
      announce(transitions, into: &effects)
    case .configReloaded(let result, let requester):
      reloaded(result, requestedBy: requester, at: now, into: &effects)
    case .appsLoaded(let store, let problem):
      loadApps(store, problem: problem, at: now, into: &effects)
    case .appPolicyLoaded(let policy, let problems):
      for p in problems { effects.append(.log(.warning, "app policy file ignored: \(p)")) }
      var outputs: [AppsOutput] = []
      configureApps(config.apps, policy: (policy, problems), at: now, into: &outputs)
      carryOut(outputs, at: now, into: &effects)
    case .appDecided(let key, let change):
      agentDecided(key, change, at: now, into: &effects)
    case .timeZoneDataChanged(let catalog):
      zones.replace(catalog)
      let unusable = catalog.entries.count - catalog.readable
      effects.append(
        .log(
          .notice,
          "time-zone data read again (\(catalog.readable) zones, \(unusable) unreadable); re-planning"))
      regenerate(.timeZoneData, at: now, into: &effects)
    case .simulationFinished(let report):
      publish(.simulationFinished(report), at: now, into: &effects)
    case .timerActionEnded(let name, let succeeded, let detail):
      timers.actionEnded(name, TimerActionOutcome(succeeded: succeeded, at: now, detail: detail))
    case .systemZoneSet(let zone, let problem):
      arm(.systemZone, at: zones.systemZoneSet(zone, problem: problem, at: now), into: &effects)
    case .stopping:
      if let state = positions.stopping() { effects.append(.persist(state)) }
      // Last use is kept in memory and written with the next decision, or here (a machine
      // without apps gets no apps.json).
      if appAuthorization.isLoaded(), !appAuthorization.store().records.isEmpty {
        effects.append(.persistApps)
      }
      if timers.hasReadyTimers {
        effects.append(.persistTimers(timers.store(at: now)))
      }
    }
    // A status or sky question and a compass reading change no position, zone, timer or
    // acquisition: what every other event ends with depends on time alone, and the armed
    // timers bring it when it is due. A client polling status, or a compass turning several
    // times a second, does not run it (and writes nothing to order below).
    guard event.needsBookkeeping else { return effects }
    afterEvent(at: now, into: &effects)
    // What the list writes to disk goes ahead of whatever could acknowledge it (a reply, an
    // event other than the position stream), the rest in its order. A fix's location events
    // go out before its last-known write: they acknowledge nothing, and waiting for the disk
    // doubled the slowest deliveries (issue 22).
    guard let first = effects.firstIndex(where: \.acknowledges),
      effects[first...].contains(where: \.writesStateFile)
    else { return effects }
    let rest = effects[first...]
    return Array(effects[..<first]) + rest.filter(\.writesStateFile) + rest.filter { !$0.writesStateFile }
  }

  /// The daemon started with this state file content (or a problem reading it).
  private mutating func start(
    _ state: StoredState?, problem: String?, at now: Instant, into effects: inout [Effect]
  ) {
    statusLine.started(at: now)
    positions.started(state, problem: problem)
    if let problem { effects.append(.log(.warning, "state file ignored: \(problem)")) }
    _ = positions.tierChange(resolve(at: now))
    zones.started(from: positions.lastKnownCoordinate, at: now)
    regenerate(.start, at: now, into: &effects)
    let transitions = acquisition.trigger(.start, at: now)
    announce(transitions, into: &effects)
    if config.acquisition.mode == .continuous {
      let transitions = acquisition.trigger(.continuous, at: now)
      announce(transitions, into: &effects)
    }
  }

  /// One of the shell's timers fired.
  private mutating func timerFired(_ timer: EngineTimer, at now: Instant, into effects: inout [Effect]) {
    armed.fired(timer)
    switch timer {
    case .freshness: break  // the tier check after every event does the work
    case .networkLookup, .wifiRescan: break  // after every event, a lookup or scan that is due goes out
    case .statusRefresh: statusLine.refreshFired()
    case .timers: break  // after every event, what is due fires
    case .zoneTransition: break  // after every event, the new offset is seen
    case .localMidnight: regenerate(.localMidnight, at: now, into: &effects)
    case .acquisitionTimeout:
      let transitions = acquisition.timedOut(at: now)
      announce(transitions, into: &effects)
    case .acquisitionRefresh:
      let transitions = acquisition.refresh(at: now)
      announce(transitions, into: &effects)
    case .locateDeadline: break  // after every event, what is due is answered
    case .apps:
      var outputs: [AppsOutput] = []
      appsTimerFired(at: now, into: &outputs)
      carryOut(outputs, at: now, into: &effects)
    case .beacons: deliver(beacons.handle(.tick, at: now), at: now, into: &effects)
    case .regions: regionsTimerFired(at: now, into: &effects)
    case .regionsFix: regionsFixDue(at: now, into: &effects)
    case .systemZone:
      if config.setSystemTimeZone, let zone = zones.retrySystemZone() {
        effects.append(.setSystemTimeZone(zone))
      }
    case .lightDark: lightDarkDue(at: now, into: &effects)
    case .skies: skiesDue(at: now, into: &effects)
    }
  }

  /// The configuration was reloaded, or could not be.
  private mutating func reloaded(
    _ result: Result<DaemonConfig, ReloadFailure>, requestedBy requester: RequestRef?, at now: Instant,
    into effects: inout [Effect]
  ) {
    switch result {
    case .success(let newConfig):
      config = newConfig
      zones.configure(newConfig.zoneSwitch)
      timers.configure(missedAfter: newConfig.missedAfter)
      regions.configure(newConfig.regions)
      network.configure(newConfig.network)
      var outputs: [AppsOutput] = []
      configureApps(newConfig.apps, policy: nil, at: now, into: &outputs)
      carryOut(outputs, at: now, into: &effects)
      effects.append(.log(.notice, "configuration reloaded"))
      let transitions = acquisition.update(newConfig.acquisition, at: now)
      announce(transitions, into: &effects)
      regenerate(.configuration, at: now, into: &effects)
      // A system zone that was refused is asked for again: the reload may follow the
      // administrator's fix (a polkit rule).
      if newConfig.setSystemTimeZone, let zone = zones.retrySystemZone() {
        effects.append(.setSystemTimeZone(zone))
      }
      if let r = requester { effects.append(.reply(r.session, r.id, .success(.done))) }
    case .failure(let failure):
      let problems = failure.problems.joined(separator: "; ")
      effects.append(.log(.error, "configuration not reloaded, keeping the old one: \(problems)"))
      if let r = requester {
        effects.append(.reply(r.session, r.id, .failure(RequestError(.failed, problems))))
      }
    }
  }

  /// Pushes `notice` to the plain sessions subscribed to its kind and, through the apps
  /// machine's gate, to the app sessions that may have it now: one effect for everyone who
  /// gets it as it is (serialized once), one for the apps with reduced accuracy. (Mutating
  /// also so that calling it from the engine's mutating paths does not copy the engine.)
  mutating func publish(_ notice: Notice, at now: Instant, into effects: inout [Effect]) {
    guard let kind = notice.kind else { return }
    var recipients = sessions.recipients(of: kind)
    guard kind.isGated else {
      if !recipients.isEmpty { effects.append(.push(recipients, notice, at: now)) }
      return
    }
    var outputs: [AppsOutput] = []
    let routing = routeToApps(notice, at: now, into: &outputs)
    recipients += routing.full
    if !recipients.isEmpty { effects.append(.push(recipients, notice, at: now)) }
    if let reduced = routing.reduced { effects.append(.push(reduced.sessions, reduced.notice, at: now)) }
    if !outputs.isEmpty { carryOut(outputs, at: now, into: &effects) }
  }

  /// Asks the shell to arm `timer` at `instant` (or to disarm it), when that changes.
  mutating func arm(_ timer: EngineTimer, at instant: Instant?, into effects: inout [Effect]) {
    switch armed.want(timer, at: instant) {
    case .arm(let at)?: effects.append(.arm(timer, at: at))
    case .disarm?: effects.append(.disarm(timer))
    case nil: break
    }
  }
}
