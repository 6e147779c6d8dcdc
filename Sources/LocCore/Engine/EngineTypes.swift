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

  /// A snapshot.
  public init(
    id: SourceID, uri: String, state: SourceState, counters: [Counter] = [], lastError: String? = nil
  ) {
    self.id = id
    self.uri = uri
    self.state = state
    self.counters = counters
    self.lastError = lastError
  }
}

/// Counters of the socket server (connection-level problems the engine never sees).
public struct ServerCounters: Sendable, Hashable {
  /// Connections accepted in total.
  public var accepted = 0
  /// Connections refused because of `maxClients`.
  public var refusedTooMany = 0
  /// Clients dropped because their queue overflowed.
  public var droppedSlow = 0
  /// Clients dropped because they did not complete the handshake in time.
  public var droppedHandshake = 0
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
      Counter("droppedSlow", droppedSlow), Counter("droppedHandshake", droppedHandshake),
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

  /// The kind a subscriber asks for to get this.
  public var kind: EventKind {
    switch self {
    case .location: return .location
    case .significantChange: return .significantChange
    case .sourceStatus: return .sourceStatus
    case .timezoneChanged: return .timezoneChanged
    case .solarRegenerated: return .solarRegenerated
    case .timerFired: return .timerFired
    case .acquisition: return .acquisition
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
}

/// A successful answer.
public enum Response: Sendable, Hashable {
  /// The status report.
  case status(StatusReport)
  /// The session's subscriptions after the change.
  case subscriptions(Set<EventKind>)
  /// The manual location now in effect (nil after clearing).
  case manualLocation(Position?)
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
}

/// Timers the engine asks the shell to arm (one of each at a time).
public enum EngineTimer: Hashable, Sendable {
  /// The current fix stops being fresh.
  case freshness
  /// A throttled systemd STATUS= update is due.
  case statusRefresh
  /// The earliest user timer deadline.
  case timers
  /// The next local midnight: the solar days move on.
  case localMidnight
  /// The zone's next change of UTC offset (daylight-saving transition).
  case zoneTransition
  /// The current acquisition attempt gives up.
  case acquisitionTimeout
  /// The next periodic acquisition (or retry after a timeout).
  case acquisitionRefresh
  /// The earliest `locate` request is due to be answered with what there is.
  case locateDeadline
}

/// Something that happened, fed to `Engine.handle(_:at:)`.
public enum EngineEvent: Sendable {
  /// The daemon started with this state file content (or a problem reading it).
  case started(StoredState?, stateProblem: String?)
  /// A source decoded a fix.
  case fixDecoded(Fix, source: SourceID)
  /// A source changed state or counters. `restarted` marks a new stream (reconnect,
  /// replay loop): fix times may start over.
  case sourceUpdated(SourceSnapshot, restarted: Bool)
  /// The server's counters changed.
  case serverCountersChanged(ServerCounters)
  /// A client completed the hello.
  case sessionOpened(SessionID, Peer, AccessLevel, app: String?)
  /// A client sent a request.
  case requestReceived(SessionID, RequestID, Request)
  /// A client went away (or was dropped).
  case sessionClosed(SessionID)
  /// A timer the engine armed fired.
  case timerFired(EngineTimer)
  /// The configuration was reloaded (by SIGHUP or a `reload` request): `result` is the new
  /// config or the problems that kept the old one.
  case configReloaded(Result<DaemonConfig, ReloadFailure>, requestedBy: RequestRef?)
  /// The timer files were (re)loaded: the timers they define and the problems of those that
  /// could not be; at start also the timer store of the previous run (`store`).
  case timersLoaded([TimerDefinition], problems: [String], store: TimerStore?)
  /// The wall clock was stepped (the shell saw TFD_TIMER_CANCEL_ON_SET fire); `now` is the new time.
  case clockStepped
  /// The machine resumed after sleeping about `sleptFor`, if known.
  case resumed(sleptFor: Duration?)
  /// The daemon is stopping.
  case stopping
}

/// Why a reload kept the old configuration.
public struct ReloadFailure: Error, Sendable, Hashable {
  /// The problems, each `file:line: message`.
  public var problems: [String]
  /// A failure.
  public init(problems: [String]) { self.problems = problems }
}

/// What the engine asks the shell to do.
public enum Effect: Sendable, Hashable {
  /// Answer request `id` of `session`.
  case reply(SessionID, RequestID, Result<Response, RequestError>)
  /// Push an event to `session`.
  case push([SessionID], Notice, at: Instant)
  /// Arm (or re-arm) `timer` at `at` on the wall clock.
  case arm(EngineTimer, at: Instant)
  /// Disarm `timer`.
  case disarm(EngineTimer)
  /// Write the state file (atomically, mode 0600).
  case persist(StoredState)
  /// Send `STATUS=` to systemd.
  case notifyStatus(String)
  /// Re-read the configuration file, then feed `.configReloaded`.
  case reloadConfiguration(requestedBy: RequestRef?)
  /// Log a message. Messages above debug level never contain coordinates.
  case log(LogLevel, String)
  /// Write the timer store (`timers.json`, atomically, mode 0600).
  case persistTimers(TimerStore)
  /// Start a systemd unit for timer `timer` (StartUnit, mode "replace").
  case startUnit(String, timer: String)
  /// Run a program for timer `timer`, without a shell, as `user`, with `environment`
  /// (`LOCD_*` variables) added to a minimal one.
  case runCommand(argv: [String], user: String, environment: [String], timer: String)
  /// Set the system time zone (org.freedesktop.timedate1 SetTimezone).
  case setSystemTimeZone(String)
  /// Keep the receivers powered and reporting (true), or let them sleep (false): gpsd's
  /// watch off, serial devices closed, push sources' input ignored (docs/SOURCES.md).
  case receivers(active: Bool)
}
