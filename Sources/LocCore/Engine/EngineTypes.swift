/// Identifies one client connection.
public struct SessionID: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// A number unique for the daemon's lifetime.
  public var raw: UInt64
  /// A session id.
  public init(_ raw: UInt64) { self.raw = raw }
  public static func < (a: SessionID, b: SessionID) -> Bool { a.raw < b.raw }
  public var description: String { "session \(raw)" }
}

/// Identifies one configured source (its index in the configuration).
public struct SourceID: Hashable, Sendable, Comparable {
  /// Index in `DaemonConfig.effectiveSources`.
  public var index: Int
  /// A source id.
  public init(_ index: Int) { self.index = index }
  public static func < (a: SourceID, b: SourceID) -> Bool { a.index < b.index }
}

/// A request id as the client sent it (JSON number or string), echoed in the reply.
public enum RequestID: Hashable, Sendable {
  case number(Int64)
  case string(String)
}

/// One request of one session, for answers that come later.
public struct RequestRef: Hashable, Sendable {
  /// The session.
  public var session: SessionID
  /// The request's id.
  public var id: RequestID
  /// A reference.
  public init(session: SessionID, id: RequestID) {
    self.session = session
    self.id = id
  }
}

/// The connection state of a source.
public enum SourceState: Sendable, Hashable {
  /// Opening (connecting, opening the device or file).
  case starting
  /// Connected and reading.
  case connected
  /// Lost; the next attempt is at `retryAt`.
  case reconnecting(retryAt: Instant)
  /// A replay that reached its end without looping.
  case finished
  /// Cannot work as configured (e.g. file missing); not retried.
  case failed
  /// Released while acquisition is idle: nothing open, nothing retried until fixes are
  /// wanted again (a serial device closed, a connection gpsd ended while unwatched).
  case idle

  /// The state's name on the wire.
  public var name: String {
    switch self {
    case .starting: return "starting"
    case .connected: return "connected"
    case .reconnecting: return "reconnecting"
    case .finished: return "finished"
    case .failed: return "failed"
    case .idle: return "idle"
    }
  }
}

/// A named counter.
public struct Counter: Sendable, Hashable {
  /// Counter name, e.g. "sentences".
  public var name: String
  /// Its value.
  public var value: Int
  /// A counter.
  public init(_ name: String, _ value: Int) {
    self.name = name
    self.value = value
  }
}

/// What the shell reports about one source.
public struct SourceSnapshot: Sendable, Hashable {
  /// Which source.
  public var id: SourceID
  /// Its URI (normalised; never contains coordinates).
  public var uri: String
  /// Connection state.
  public var state: SourceState
  /// Counters in a stable order (sentences, fixes, bad checksums, ...).
  public var counters: [Counter]
  /// The last error, e.g. "connect: Connection refused".
  public var lastError: String?
  /// Who can put fixes into it; a live source outranks every less trusted one.
  public var trust: SourceTrust
  /// Whether the source can deliver fixes (false for beacon sources: their state says
  /// nothing about where fixes come from).
  public var givesFixes: Bool

  /// A snapshot.
  public init(
    id: SourceID, uri: String, state: SourceState, counters: [Counter] = [], lastError: String? = nil,
    trust: SourceTrust = .system, givesFixes: Bool = true
  ) {
    self.id = id
    self.uri = uri
    self.state = state
    self.counters = counters
    self.lastError = lastError
    self.trust = trust
    self.givesFixes = givesFixes
  }
}

/// Counters of the socket server (connection-level problems the engine never sees).
public struct ServerCounters: Sendable, Hashable {
  /// Connections accepted in total.
  public var accepted = 0
  /// Connections refused because of `maxClients` (or because only the slots kept for
  /// administrators were free).
  public var refusedTooMany = 0
  /// Connections refused because their uid had `maxClientsPerUser` open.
  public var refusedPerUser = 0
  /// Connections answered `too-many-clients` because locd was out of file descriptors.
  public var refusedNoDescriptors = 0
  /// Clients dropped because their queue overflowed.
  public var droppedSlow = 0
  /// Clients dropped because they did not complete the handshake in time.
  public var droppedHandshake = 0
  /// Sessions closed because they could do nothing for `idleTimeout`.
  public var droppedIdle = 0
  /// Lines that were not valid JSON.
  public var invalidJSON = 0
  /// Lines that were JSON but not a valid request.
  public var invalidRequests = 0
  /// Lines longer than `maxRequestBytes`.
  public var tooLarge = 0
  /// Requests with an unknown method.
  public var unknownMethods = 0
  /// Requests before the handshake.
  public var beforeHandshake = 0
  /// Requests refused for lack of permission.
  public var permissionDenied = 0
  /// The counters in a stable order.
  public var all: [Counter] {
    [
      Counter("accepted", accepted), Counter("refusedTooMany", refusedTooMany),
      Counter("refusedPerUser", refusedPerUser), Counter("refusedNoDescriptors", refusedNoDescriptors),
      Counter("droppedSlow", droppedSlow), Counter("droppedHandshake", droppedHandshake),
      Counter("droppedIdle", droppedIdle),
      Counter("invalidJSON", invalidJSON), Counter("invalidRequests", invalidRequests),
      Counter("tooLarge", tooLarge), Counter("unknownMethods", unknownMethods),
      Counter("beforeHandshake", beforeHandshake), Counter("permissionDenied", permissionDenied),
    ]
  }
  /// All zero.
  public init() {}
}

/// Kinds of pushed events a session can subscribe to.
public enum EventKind: String, Sendable, Hashable, CaseIterable, Comparable {
  /// Each accepted fix, and each change of the resolved position's tier.
  case location
  /// A significant move (or a change of zone).
  case significantChange = "significant-change"
  /// The time zone changed.
  case timezoneChanged = "timezone-changed"
  /// Solar days were recomputed.
  case solarRegenerated = "solar-regenerated"
  /// A timer fired.
  case timerFired = "timer-fired"
  /// A source connected, was lost, or failed.
  case sourceStatus = "source-status"
  /// Acquisition changed phase (idle, acquiring, settled), with the reason.
  case acquisition
  /// An app's own authorization changed (app sessions only).
  case authorization
  /// A prompt for the agent (sessions registered as an agent only).
  case agentPrompt = "agent-prompt"
  /// The session's own access changed (a reload); also sent, unasked, to a session that
  /// loses a subscription through the change.
  case accessChanged = "access-changed"
  /// The replay of `locd --clock replay` reached its end.
  case simulationFinished = "simulation-finished"
  /// One of the app's own regions was entered, left or dwelled in (app sessions only).
  case region
  /// The device arrived at or left a place it stays at (apps that monitor visits).
  case visit
  public static func < (a: EventKind, b: EventKind) -> Bool { a.rawValue < b.rawValue }
}

/// A pushed event's payload.
public enum Notice: Sendable, Hashable {
  /// The resolved position, after a fix or a tier change.
  case location(ResolvedPosition, fix: Fix?)
  /// Moved from `from` to `to` by `distance`.
  case significantChange(from: Position?, to: Position, distance: Meters?)
  /// A source changed state.
  case sourceStatus(SourceSnapshot)
  /// The time zone in effect or its UTC offset changed.
  case timezoneChanged(ZoneChange)
  /// Today's and tomorrow's solar days were recomputed.
  case solarRegenerated(SolarRegeneration)
  /// A timer fired; `zone` is the zone its deadline was planned in, `local` the deadline on
  /// that zone's wall clock.
  case timerFired(TimerFiring, zone: String, local: LocalDateTime)
  /// Acquisition changed phase.
  case acquisition(AcquisitionChange)
  /// An app's authorization, as it is told.
  case authorization(AppStatusReport)
  /// A prompt put to an agent.
  case agentPrompt(AppPrompt)
  /// A prompt taken back from an agent, and why.
  case agentPromptWithdrawn(PromptID, reason: String)
  /// The receiving session's access changed.
  case accessChanged(AccessChange)
  /// A monitored beacon region changed (sent to the session that monitors it).
  case beaconRegion(BeaconConstraint, BeaconRegionEvent, state: BeaconRegionState)
  /// A ranging list, nearest first (sent to the session that ranges).
  case beaconsRanged(BeaconConstraint, [RangedBeacon])
  /// The replay of `locd --clock replay` reached its end.
  case simulationFinished(SimulationReport)
  /// One of an app's regions changed (sent to that app's sessions only).
  case region(RegionNotice)
  /// A visit began or ended (sent to the apps that monitor visits).
  case visit(VisitEvent)

  /// The kind a subscriber asks for to get this; nil for notices that go to the session
  /// that asked for them (beacons), not to subscribers.
  public var kind: EventKind? {
    switch self {
    case .beaconRegion, .beaconsRanged: return nil
    case .location: return .location
    case .significantChange: return .significantChange
    case .sourceStatus: return .sourceStatus
    case .timezoneChanged: return .timezoneChanged
    case .solarRegenerated: return .solarRegenerated
    case .timerFired: return .timerFired
    case .acquisition: return .acquisition
    case .authorization: return .authorization
    case .agentPrompt, .agentPromptWithdrawn: return .agentPrompt
    case .accessChanged: return .accessChanged
    case .simulationFinished: return .simulationFinished
    case .region: return .region
    case .visit: return .visit
    }
  }
}

/// A request after the protocol layer decoded and validated its shape.
public enum Request: Sendable, Hashable {
  /// The full status.
  case status
  /// Start pushing these kinds of events.
  case subscribe(Set<EventKind>)
  /// Stop pushing these kinds.
  case unsubscribe(Set<EventKind>)
  /// Set the manual location.
  case setLocation(Coordinate, name: String?, accuracy: Meters?)
  /// Forget the manual location.
  case clearLocation
  /// Reload the configuration file.
  case reload
  /// Every timer with its next deadline.
  case listTimers
  /// One timer.
  case showTimer(String)
  /// Add a runtime timer (event and unit actions only).
  case addTimer(TimerDefinition)
  /// Remove a runtime timer.
  case removeTimer(String)
  /// The best position within `timeout` (nil: the policy's), waiting for a fresh fix at
  /// least `accuracy` accurate (nil: the policy's); answered when one comes or at the timeout.
  case locate(timeout: Duration?, accuracy: Meters?)
  /// Acquire a fresh fix now (`locctl refresh`).
  case refresh
  /// An app asks to use the location, saying why.
  case requestAuthorization(AuthorizationLevel, purpose: String)
  /// An app says whether it is in the foreground.
  case setActivity(AppActivity)
  /// An app starts location updates.
  case startUpdates(AppSession.Updates)
  /// An app stops them.
  case stopUpdates
  /// The session becomes the agent of its user.
  case registerAgent
  /// The agent answers a prompt (`precise`: full accuracy).
  case answerPrompt(PromptID, AgentAnswer, precise: Bool)
  /// The apps of a user (nil: the caller's own; an admin's: everyone's).
  case listApps(uid: UInt32?)
  /// Grant, deny or reset an app of a user (nil: the caller).
  case changeApp(AppID, uid: UInt32?, AppChange)
  /// Start ranging beacons matching the constraint (about once a second, to this session).
  case rangeBeacons(BeaconConstraint)
  /// Stop ranging them.
  case stopRangingBeacons(BeaconConstraint)
  /// Start monitoring the beacon region of the constraint (nil: ExitAfter's default, 30 s).
  case monitorBeacons(BeaconConstraint, exitAfter: Duration?)
  /// Stop monitoring it.
  case stopMonitoringBeacons(BeaconConstraint)
  /// Answer when a rule's next occurrence comes, or the zone changes (`locctl wait`).
  case wait(WaitTarget)
  /// `register-region` (app sessions).
  case registerRegion(CircularRegion)
  /// `unregister-region` (app sessions).
  case unregisterRegion(RegionID)
  /// `region-state`: one region's state, or every region of the app (nil).
  case regionState(RegionID?)
  /// `monitor-visits`: start (true) or stop.
  case monitorVisits(Bool)
  /// `set-launch-unit`: the service started for an always app's waiting events (nil: none).
  case setLaunchUnit(String?)
}

/// What `locctl apps grant|deny|reset` does to an app.
public enum AppChange: Sendable, Hashable {
  /// Grant `level` at `accuracy` (capped by the policy).
  case grant(AuthorizationLevel, AccuracyAuthorization)
  /// Deny.
  case deny
  /// Forget the decision and registrations: the app may ask again.
  case reset
}

/// A successful answer.
public enum Response: Sendable, Hashable {
  /// The status report.
  case status(StatusReport)
  /// The session's subscriptions after the change.
  case subscriptions(Set<EventKind>)
  /// The manual location now in effect (nil after clearing), and the one before.
  case manualLocation(Position?, previous: Position?)
  /// Done, nothing to report.
  case done
  /// Every timer, and the problems of timer files that could not be loaded.
  case timers([TimerStatus], problems: [String])
  /// One timer.
  case timer(TimerStatus)
  /// The answer to `locate`.
  case located(LocateAnswer)
  /// The acquisition state (after `refresh`).
  case acquisition(AcquisitionReport)
  /// The answer to `hello`.
  case hello(HelloAnswer)
  /// An app's authorization.
  case appStatus(AppStatusReport)
  /// The agent is registered for `uid`; `pending` prompts wait.
  case agent(uid: UInt32, pending: Int)
  /// Apps, in key order.
  case apps([AppListing])
  /// One app after a change.
  case app(AppListing)
  /// Ranging of the constraint started (or went on).
  case beaconRanging(BeaconConstraint)
  /// Monitoring of the constraint started (or restarted): the region's state now.
  case beaconMonitor(BeaconConstraint, state: BeaconRegionState, exitAfter: Duration)
  /// What a `wait` waited for happened.
  case waited(WaitOutcome)
  /// An app's regions with their states (`register-region`, `region-state`).
  case regions([RegionMonitor.Monitored])
}

/// The answer to `hello`.
public struct HelloAnswer: Sendable, Hashable {
  /// The session's number.
  public var session: SessionID
  /// What it may do (for an app session: what its uid may do without an app id; apps get
  /// the position only through their authorization).
  public var access: AccessLevel
  /// For an app session: who it is and its authorization.
  public var app: AppStatusReport?
  /// The peer's unit, when it is in one (shown to plain sessions too).
  public var unit: String?
}
