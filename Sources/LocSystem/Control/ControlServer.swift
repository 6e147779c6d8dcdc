import LocCore
import LocProtocol

/// The control socket: accepts clients (ControlServer+Accept), frames their lines, does the
/// version handshake, enforces every per-client limit and the limits on all clients
/// together (slots, queued output: ControlServer+Queues), and hands decoded requests to its
/// owner. It knows nothing of positions; the engine answers through `send(_:to:)`.
///
/// Fairness: sd-event dispatches one ready source per loop iteration, the one ready longest
/// first, and a client is served at most `bytesPerTurn` bytes and `requestsPerTurn` requests
/// per dispatch; what it sent beyond that waits for its next turn (ClientConnection), so a
/// client that pipelines requests cannot delay another by more than a turn of each.
public final class ControlServer {
  /// Limits that protect the daemon from clients.
  public struct Limits {
    /// Most clients at once.
    public var maxClients: Int
    /// Of `maxClients`, the slots only admin peers get.
    public var reservedAdminClients: Int
    /// Most connections of one uid below admin.
    public var maxClientsPerUser: Int
    /// Longest request line.
    public var maxRequestBytes: Int
    /// Most bytes queued for one client.
    public var maxQueuedBytes: Int
    /// Most bytes queued for all clients together.
    public var maxQueuedBytesTotal: Int
    /// Time allowed to complete the hello.
    public var handshakeTimeout: Duration
    /// How long a session that can do nothing stays.
    public var idleTimeout: Duration
    /// Limits from a configuration.
    public init(_ config: DaemonConfig) {
      maxClients = config.maxClients
      reservedAdminClients = config.reservedAdminClients
      maxClientsPerUser = config.maxClientsPerUser
      maxRequestBytes = config.maxRequestBytes
      maxQueuedBytes = config.maxQueuedBytesPerClient
      maxQueuedBytesTotal = config.maxQueuedBytesTotal
      handshakeTimeout = config.handshakeTimeout
      idleTimeout = config.idleTimeout
    }
  }

  /// Requests served per client per turn of the loop.
  static let requestsPerTurn = 16
  /// Bytes read per client per turn of the loop: one longest default request line.
  static let bytesPerTurn = 65536
  /// How long a dropped client's last words (`slow-consumer`, `idle-timeout`, ...) wait for
  /// the client to read enough to make room for them before the connection closes anyway.
  static let lastWordsTimeout: Duration = .seconds(10)

  /// What the server tells its owner.
  public struct Handlers {
    /// Access level for a peer: asked at accept (the slots kept for administrators) and at
    /// hello; `setAccess(_:of:)` changes it later.
    public var access: (Peer) -> AccessLevel
    /// A client said hello (the app id it claims, its name, the hello's id): the owner
    /// answers it (the engine opens the session, or refuses an app's claim).
    public var opened: (SessionID, Peer, AccessLevel, _ app: String?, _ client: String?, RequestID) -> Void
    /// A client sent a request.
    public var request: (SessionID, RequestID, Request) -> Void
    /// A client that had completed the hello went away.
    public var closed: (SessionID) -> Void
    /// Counters changed.
    public var counters: (ServerCounters) -> Void
    /// Log a line.
    public var log: (LogLevel, String) -> Void
    /// Handlers.
    public init(
      access: @escaping (Peer) -> AccessLevel,
      opened: @escaping (SessionID, Peer, AccessLevel, String?, String?, RequestID) -> Void,
      request: @escaping (SessionID, RequestID, Request) -> Void, closed: @escaping (SessionID) -> Void,
      counters: @escaping (ServerCounters) -> Void, log: @escaping (LogLevel, String) -> Void
    ) {
      self.access = access
      self.opened = opened
      self.request = request
      self.closed = closed
      self.counters = counters
      self.log = log
    }
  }

  let loop: EventLoop
  /// The limits in effect (a reload changes them; connections already open keep theirs).
  public var limits: Limits {
    didSet {
      slots.maxClients = limits.maxClients
      slots.reservedForAdmin = limits.reservedAdminClients
      slots.maxPerUser = limits.maxClientsPerUser
    }
  }
  let handlers: Handlers
  /// The listening socket and what accepting needs: the spare descriptor, the shortage,
  /// the retry and its backoff, the greeting's version (ControlServer+Accept).
  let listening: ListeningSide
  /// One read buffer for every client (they are read one at a time).
  let reader = ReadBuffer(chunkSize: 16384, maxBytesPerWakeup: ControlServer.bytesPerTurn)
  /// Clients served, with or without hello.
  var clients = ConnectionTable<ClientConnection>()
  /// Dropped clients whose last words are being written; they keep their slot until closed.
  var lingering: [SessionID: ClientConnection] = [:]
  var slots: ClientSlots
  /// Bytes queued for all clients, and whether one line is going to many (ControlServer+Queues).
  var queues = QueuedBytes()
  /// Where session ids come from (shared with the daemon's other faces).
  let sessionIDs: SessionIDs
  /// Protocol errors, refusals and drops are logged, but only so many per second.
  var throttles = ServerLogThrottles()
  /// Connection-level counters.
  public private(set) var counters = ServerCounters()
  /// With the replay clock: clients over their queue limit pause the replay instead of
  /// being dropped at once (`enableFlowControl`).
  public private(set) var flowControl: FlowControl?

  /// A server on an already listening socket, which it owns from now on.
  public init(
    loop: EventLoop, listening socket: consuming FileDescriptor, limits: Limits, serverVersion: String,
    sessionIDs: SessionIDs = SessionIDs(), handlers: Handlers
  ) throws(Errno) {
    self.loop = loop
    self.sessionIDs = sessionIDs
    self.limits = limits
    self.handlers = handlers
    listening = ListeningSide(serverVersion: serverVersion)
    slots = ClientSlots(
      maxClients: limits.maxClients, reservedForAdmin: limits.reservedAdminClients,
      maxPerUser: limits.maxClientsPerUser)
    try socket.setNonBlocking()
    listening.watch = try loop.watch(socket, events: Epoll.input) { [weak self] _ in self?.acceptAll() }
    listening.spare = try? FileIO.openForReading(path: "/dev/null")
  }

  /// Clients connected now (with or without hello).
  public var clientCount: Int { clients.count }

  /// The sessions after hello: who they are and the access they have now.
  public var openSessions: [(id: SessionID, peer: Peer, access: AccessLevel)] {
    clients.ordered.filter { $0.phase == .open }.map { ($0.id, $0.peer, $0.access) }
  }

  /// Changes an open session's access (a reload changed the groups, or an authorization
  /// changed); a session that can do nothing from now on is closed after `idleTimeout`.
  public func setAccess(_ access: AccessLevel, of id: SessionID) {
    guard let client = clients[id], client.phase == .open else { return }
    client.access = access
    client.reviewIdleness()
  }

  /// Holds clients over their queue limit instead of dropping them, telling `congestion`
  /// when the producer should pause and go on (docs/SOURCES.md, "Replays and simulated time").
  public func enableFlowControl(stallLimit: Duration, congestion: @escaping (Bool) -> Void) -> FlowControl {
    let control = FlowControl(host: self, scheduler: loop, stallLimit: stallLimit, congestion: congestion)
    flowControl = control
    return control
  }

  func bump(_ change: (inout ServerCounters) -> Void) {
    change(&counters)
    handlers.counters(counters)
  }

  /// Logs `message` unless too many lines went out lately (`throttles`).
  func logThrottled(_ level: LogLevel, _ message: String) {
    let now = loop.monotonicMicroseconds
    let admitted = level == .debug ? throttles.debug.admit(at: now) : throttles.notice.admit(at: now)
    guard let held = admitted else { return }
    handlers.log(level, held > 0 ? "\(message) (\(held) similar lines held back)" : message)
  }

  /// Queues a line for a client; unknown (already gone) sessions are ignored.
  public func send(_ line: String, to id: SessionID) {
    var bytes = Array(line.utf8)
    bytes.append(0x0A)
    clients[id]?.send(bytes: bytes)
  }

  /// Queues an encoded line (ending in a newline) for a client; for one event sent to many,
  /// the one array is shared by every queue it waits in.
  public func send(bytes: [UInt8], to id: SessionID) {
    clients[id]?.send(bytes: bytes)
  }

  /// Sends one line to many sessions (a pushed event), checking the total of all queues
  /// once at the end rather than after each client's: the biggest queues are shed in one
  /// pass, not one sort of every client per queued copy.
  public func send(bytes: [UInt8], to ids: [SessionID]) {
    queues.sendingToMany = true
    // A copy (two references): a send may drop its client, which changes `clients`.
    let table = clients
    table.forEach(among: ids) { $0.send(bytes: bytes) }
    queues.sendingToMany = false
    checkQueuedTotal()
  }

  /// Drops a client: it stops being served at once (its owner hears `closed`). With
  /// `lastWords`, everything queued for it is discarded and only that error is written,
  /// as soon as the client reads enough to make room (at most `lastWordsTimeout`); then,
  /// or at once without last words, the connection closes.
  func drop(
    _ client: ClientConnection, reason: String, level: LogLevel = .info, lastWords: RequestError? = nil
  ) {
    guard clients[client.id] != nil else { return }
    clients.remove(client.id)
    let line = "client \(client.id.raw) (pid \(client.peer.pid), uid \(client.peer.uid)) dropped: \(reason)"
    if level == .debug { handlers.log(level, line) } else { logThrottled(level, line) }
    let wasOpen = client.phase == .open
    flowControl?.forget(client.id)
    if let lastWords {
      lingering[client.id] = client
      client.closeAfter(lastWords: Array((ServerMessage.failure(nil, lastWords).line + "\n").utf8))
    } else {
      finish(client)
    }
    if wasOpen { handlers.closed(client.id) }
  }

  /// No hello within `handshakeTimeout`.
  func helloTimedOut(_ client: ClientConnection) {
    bump { $0.droppedHandshake += 1 }
    drop(
      client, reason: "no hello in time",
      lastWords: RequestError(.handshakeTimeout, "no hello within the time allowed"))
  }

  /// A session that could do nothing for `idleTimeout`.
  func idleTimedOut(_ client: ClientConnection) {
    bump { $0.droppedIdle += 1 }
    let span = TimeFormat.duration(limits.idleTimeout)
    drop(
      client, reason: "could do nothing (no access) for \(span)",
      lastWords: RequestError(
        .idleTimeout, "this session has no access, so it can do nothing; closed after \(span)"))
  }

  /// Closes a dropped client's descriptor and gives its slot back.
  func finish(_ client: ClientConnection) {
    guard client.phase != .closed else { return }
    client.shutdown()
    lingering[client.id] = nil
    slots.release(uid: client.peer.uid)
    descriptorFreed()
  }

  /// Closes every client and stops listening (the socket file, if locd made one, is the
  /// caller's to remove). With `notice`, each open session is sent it as its last line
  /// (an error with id null, `daemon-stopping`), as far as its socket takes it now.
  public func stop(notice: RequestError? = nil) {
    if let notice {
      let line = Array((ServerMessage.failure(nil, notice).line + "\n").utf8)
      for client in clients.ordered { client.sayGoodbye(line) }
    }
    for client in clients.ordered + Array(lingering.values) { client.shutdown() }
    clients.removeAll()
    lingering.removeAll()
    listening.watch?.cancel()
    listening.watch = nil
    listening.retry?.cancel()
    listening.retry = nil
    listening.spare = nil
  }
}
