import CLocBusShim
import CLocShim
import LocCore

/// The GeoClue2 face: owns org.freedesktop.GeoClue2 on the system bus and serves the
/// Manager, Client and Location objects as GeoClue 2.6 does, for programs written against
/// GeoClue (gammastep, redshift, GNOME, the location portal). A thin adapter: each client's
/// active period is an engine session of its app (its DesktopId), in use and running
/// updates; the engine's replies and pushes come back through `reply` and `deliver`. The
/// contract is in docs/GEOCLUE.md, the mapping to apps in decision 0026.
public final class GeoClueService {
  /// What the face tells the daemon: the engine events it produces, what it asks the apps
  /// model, and log lines.
  public struct Handlers {
    /// A client became active: open an engine session for `peer`, as the app `identity`.
    public var opened: (SessionID, Peer, AppIdentity) -> Void
    /// A request of such a session (`set-activity`, `subscribe`, `start-updates`).
    public var request: (SessionID, RequestID, Request) -> Void
    /// The session ended (Stop, the client deleted, its connection gone, the face stopped).
    public var closed: (SessionID) -> Void
    /// The app a client of `peer` with this DesktopId is (its cgroup weighed against the
    /// claim), or why it may not start.
    public var identify: (Peer, String) -> Result<AppIdentity, RequestError>
    /// The authorization in effect for an app (policy, else the decision) and who decided it.
    public var authorization: (AppKey) -> (AppAuthorization, decidedBy: String?)
    /// The user's agent answered AuthorizeApp for an app without a decision: remember it.
    public var remember: (AppKey, AppChange) -> Void
    /// Whether `peer` has admin access (the client objects kept in reserve are its).
    public var isAdmin: (Peer) -> Bool
    /// Log a line (never with coordinates above debug).
    public var log: (LogLevel, String) -> Void
    /// What the position in effect came from (nil: none), for AvailableAccuracyLevel.
    public var provenance: () -> PositionProvenance?
    /// Handlers.
    public init(
      opened: @escaping (SessionID, Peer, AppIdentity) -> Void,
      request: @escaping (SessionID, RequestID, Request) -> Void, closed: @escaping (SessionID) -> Void,
      identify: @escaping (Peer, String) -> Result<AppIdentity, RequestError>,
      authorization: @escaping (AppKey) -> (AppAuthorization, decidedBy: String?),
      remember: @escaping (AppKey, AppChange) -> Void, isAdmin: @escaping (Peer) -> Bool,
      log: @escaping (LogLevel, String) -> Void, provenance: @escaping () -> PositionProvenance? = { nil }
    ) {
      self.provenance = provenance
      self.opened = opened
      self.request = request
      self.closed = closed
      self.identify = identify
      self.authorization = authorization
      self.remember = remember
      self.isAdmin = isAdmin
      self.log = log
    }
  }

  /// Where the face stands.
  public enum State: Sendable, Hashable {
    /// Not started, or stopped.
    case off
    /// Connected; asking for the name.
    case starting
    /// Owns the name and serves.
    case serving
    /// Someone else owns the name (geoclue itself?).
    case nameTaken
    /// The bus refused the name (its error): its policy has no rule for locd.
    case nameRefused(String)
    /// The bus could not be reached, or the connection was lost; retried later.
    case disconnected(String)
  }

  /// The well-known name.
  public static let busName = "org.freedesktop.GeoClue2"
  /// The Manager's path.
  static let managerPath = GeoClueFace.managerPath
  /// The face's limits.
  public typealias Limits = GeoClueFace.Limits
  /// What happened, counted (in `status`, as `geoclue.counters`).
  public typealias Counters = GeoClueFace.Counters
  let loop: EventLoop
  let handlers: Handlers
  /// The rules: every decision of the face (`GeoClueFace`); this class carries out its actions.
  var face: GeoClueFace
  /// What the face's numbers stand for on the bus: objects, held calls, timers, watches.
  var handles = GeoClueHandles()
  /// The connection, while there is one.
  private(set) var bus: BusConnection?
  public private(set) var state = State.off
  private var manager: GeoClueManagerObject?
  private var nameRequest: BusNameRequest?
  private var reconnectTimer: Timer?
  private var reconnectDelay: Duration = .seconds(1)
  lazy var peers = GeoCluePeerDirectory(vanished: { [unowned self] name in self.feed(.peerVanished(name)) })
  /// Where engine session ids come from (shared with the socket: the daemon's registry says
  /// which face holds a session, not its id).
  let sessionIDs: SessionIDs

  /// The limits (a reload may change them).
  var limits: Limits {
    get { face.limits }
    set { face.limits = newValue }
  }
  /// What happened, counted.
  public var counters: Counters { face.counters }

  /// A face on `loop`; nothing is opened until `start()`.
  public init(loop: EventLoop, limits: Limits, sessionIDs: SessionIDs = SessionIDs(), handlers: Handlers) {
    self.loop = loop
    self.sessionIDs = sessionIDs
    self.handlers = handlers
    face = GeoClueFace(limits: limits, apps: handlers.authorization)
  }

  deinit { teardown() }

  /// Connects to the system bus ($DBUS_SYSTEM_BUS_ADDRESS, else the standard socket),
  /// publishes the Manager and asks for the name. Failures are logged and retried.
  public func start() {
    guard bus == nil else { return }
    // Not `off` from here: a failure below is a lost connection, logged and retried.
    state = .starting
    do {
      try connect()
    } catch {
      lost("cannot connect to the system bus: \(error)")
    }
  }

  /// Releases the name and every object; active clients' sessions are closed.
  public func stop() {
    reconnectTimer?.cancel()
    reconnectTimer = nil
    teardown()
    state = .off
  }

  private func connect() throws(Errno) {
    let b = try BusConnection.system(on: loop)
    bus = b
    do {
      try b.whenDisconnected { [weak self] in self?.lost("the system bus connection was lost") }
      let manager = GeoClueManagerObject(service: self)
      try manager.register(
        on: b, interface: "org.freedesktop.GeoClue2.Manager", vtable: locshim_geoclue_manager_vtable())
      self.manager = manager
      try requestName(on: b)
    } catch {
      teardown()
      throw error
    }
    state = .starting
  }

  /// Asks for the name without queueing: if it is taken, locd says so and leaves it.
  private func requestName(on bus: BusConnection) throws(Errno) {
    nameRequest = try bus.requestName(GeoClueService.busName) { [unowned self] reply in
      self.nameAnswered(reply)
    }
  }

  /// The answer to RequestName (dbus RequestName: 1 primary owner, 3 exists, 4 already owner).
  private func nameAnswered(_ reply: BusMessage?) {
    var refusal: State? = nil
    if let problem = reply?.errorText {
      refusal = .nameRefused(problem)
    } else if let code = try? reply?.readUInt32(), code == 1 || code == 4 {
      refusal = nil
    } else {
      refusal = .nameTaken
    }
    if let refusal {
      handlers.log(
        .warning,
        "GeoClue: cannot own \(GeoClueService.busName): \(refusal.reason ?? "?"); locd goes on without its GeoClue face"
      )
      teardown()
      state = refusal
      return
    }
    reconnectDelay = .seconds(1)
    state = .serving
    handlers.log(.notice, "GeoClue: serving \(GeoClueService.busName) on the system bus")
  }

  /// The connection is gone: clients and agents went with it; try again later.
  func lost(_ why: String) {
    guard bus != nil || state != .off else { return }
    handlers.log(.warning, "GeoClue: \(why); trying again in \(TimeFormat.duration(reconnectDelay))")
    teardown()
    state = .disconnected(why)
    if reconnectTimer == nil {
      reconnectTimer = try? loop.timer(clock: .monotonic, accuracyMicroseconds: 100_000) { [weak self] in
        self?.start()
      }
    }
    let delay = reconnectDelay
    reconnectDelay = min(reconnectDelay * 2, .seconds(60))
    let micros = UInt64(delay.components.seconds) * 1_000_000
    reconnectTimer?.arm(atMicroseconds: loop.monotonicMicroseconds + micros)
  }

  /// Drops everything tied to the connection and closes it.
  private func teardown() {
    if bus != nil { feed(.stopped("the GeoClue service stopped")) }
    for client in handles.clients.values { client.removeAll() }
    for timer in handles.timers.values { timer.cancel() }
    handles = GeoClueHandles()
    peers.removeAll()
    manager?.unregister()
    manager = nil
    nameRequest = nil
    bus?.close()
    bus = nil
  }

  /// Builds a message with `make` and sends it to `destination` (nil: broadcast); a failure
  /// is logged and otherwise ignored (the peer may have just left).
  func send(to destination: String?, path: String, _ make: (BusConnection) throws(Errno) -> BusMessage) {
    guard let bus else { return }
    do {
      try make(bus).send(on: bus, to: destination)
    } catch {
      handlers.log(
        .info, "GeoClue: cannot send to \(destination ?? "everyone") for \(path): \(error), ignoring")
    }
  }

  // MARK: From the engine

  /// The engine answered a request of one of this face's sessions: 0 the hello (refused if
  /// the user has too many apps), 1 the start of the updates.
  public func reply(_ session: SessionID, _ id: RequestID, _ result: Result<Response, RequestError>) {
    guard let number = handles.sessions[session] else { return }
    switch id {
    case GeoClueService.helloRequest:
      if case .failure = result { feed(.engineAnswered(number, result)) }
    case GeoClueService.updatesRequest: feed(.engineAnswered(number, result))
    default: break
    }
  }

  /// The engine pushed `notice` to these sessions (this face's): a location, or a change of
  /// the app's authorization (a client whose app may no longer have the location stops).
  public func deliver(_ notice: Notice, to sessions: [SessionID]) {
    let numbers = sessions.compactMap { handles.sessions[$0] }
    switch notice {
    case .location(let resolved, let fix):
      guard let values = GeoClueLocationValues(resolved, fix: fix) else { return }
      feed(.location(values, numbers))
    case .authorization(let report) where !report.authorization.allowsInUse:
      feed(.appLost(numbers, report.authorization.status))
    case .heading(let reading):
      feed(.heading(reading.magneticHeading, numbers))
    default: break
    }
  }
}
