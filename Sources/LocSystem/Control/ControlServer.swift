import CLocShim
import LocCore
import LocProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// The control socket: accepts clients, frames their lines, does the version handshake,
/// enforces every per-client limit, and hands decoded requests to its owner. It knows
/// nothing of positions; the engine answers through `send(_:to:)`.
public final class ControlServer {
  /// Limits that protect the daemon from clients.
  public struct Limits {
    /// Most clients at once.
    public var maxClients: Int
    /// Longest request line.
    public var maxRequestBytes: Int
    /// Most bytes queued for one client.
    public var maxQueuedBytes: Int
    /// Time allowed to complete the hello.
    public var handshakeTimeout: Duration
    /// Limits from a configuration.
    public init(_ config: DaemonConfig) {
      maxClients = config.maxClients
      maxRequestBytes = config.maxRequestBytes
      maxQueuedBytes = config.maxQueuedBytesPerClient
      handshakeTimeout = config.handshakeTimeout
    }
  }

  /// What the server tells its owner.
  public struct Handlers {
    /// Access level for a peer (asked once, at hello).
    public var access: (Peer) -> AccessLevel
    /// A client completed the hello.
    public var opened: (SessionID, Peer, AccessLevel, String?) -> Void
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
      opened: @escaping (SessionID, Peer, AccessLevel, String?) -> Void,
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
  public var limits: Limits
  let handlers: Handlers
  let serverVersion: String
  /// The listening socket, owned by its watch.
  var listenWatch: IOWatch?
  /// One read buffer for every client (they are read one at a time): 16 KiB reads, at most
  /// 256 KiB per client per wakeup, so one busy client cannot starve the others.
  let reader = ReadBuffer(chunkSize: 16384, maxBytesPerWakeup: 16 * 16384)
  var clients: [SessionID: ClientConnection] = [:]
  var nextID: UInt64 = 1
  /// Connection-level counters.
  public private(set) var counters = ServerCounters()
  /// With the replay clock: clients over their queue limit pause the replay instead of
  /// being dropped at once (`enableFlowControl`).
  public private(set) var flowControl: FlowControl?

  /// A server on an already listening socket, which it owns from now on.
  public init(
    loop: EventLoop, listening socket: consuming FileDescriptor, limits: Limits, serverVersion: String,
    handlers: Handlers
  ) throws(Errno) {
    self.loop = loop
    self.limits = limits
    self.handlers = handlers
    self.serverVersion = serverVersion
    try socket.setNonBlocking()
    listenWatch = try loop.watch(socket, events: Epoll.input) { [weak self] _ in self?.acceptAll() }
  }

  /// Clients connected now (with or without hello).
  public var clientCount: Int { clients.count }

  /// Holds clients over their queue limit instead of dropping them, telling `congestion`
  /// when the producer should pause and go on (docs/SOURCES.md, "Replays and simulated time").
  public func enableFlowControl(stallLimit: Duration, congestion: @escaping (Bool) -> Void) -> FlowControl {
    let control = FlowControl(server: self, stallLimit: stallLimit, congestion: congestion)
    flowControl = control
    return control
  }

  func bump(_ change: (inout ServerCounters) -> Void) {
    change(&counters)
    handlers.counters(counters)
  }

  func acceptAll() {
    guard let listener = listenWatch else { return }
    while true {
      let accepted: FileDescriptor?
      do {
        accepted = try listener.descriptor.accept()
      } catch  where error.code == ECONNABORTED {
        continue
      } catch  where error.code == EMFILE || error.code == ENFILE {
        handlers.log(.warning, "accept: out of file descriptors, refusing connections for now")
        return
      } catch {
        handlers.log(.warning, "accept: \(error), ignoring")
        return
      }
      guard let socket = accepted else { return }
      bump { $0.accepted += 1 }
      guard clients.count < limits.maxClients else {
        bump { $0.refusedTooMany += 1 }
        let line =
          ServerMessage.failure(
            nil,
            RequestError(.tooManyClients, "locd serves \(limits.maxClients) clients already; try again later")
          ).line + "\n"
        // Best effort, and closed at once either way.
        _ = try? socket.send(Array(line.utf8))
        continue
      }
      guard let peer = UnixSocket.peer(of: socket) else { continue }
      let id = SessionID(nextID)
      nextID += 1
      do {
        let client = try ClientConnection(server: self, socket: socket, id: id, peer: peer)
        clients[id] = client
        client.send(ServerMessage.greeting(Greeting(serverVersion: serverVersion)).line)
      } catch {
        handlers.log(.warning, "client setup: \(error), dropping it")
      }
    }
  }

  /// Queues a line for a client; unknown (already gone) sessions are ignored.
  public func send(_ line: String, to id: SessionID) {
    var bytes = Array(line.utf8)
    bytes.append(0x0A)
    clients[id]?.send(bytes: bytes)
  }

  /// Queues an encoded line (ending in a newline) for a client; for one event sent to many.
  public func send(bytes: [UInt8], to id: SessionID) {
    clients[id]?.send(bytes: bytes)
  }

  /// Drops a client, e.g. after `slow-consumer`.
  func drop(_ client: ClientConnection, reason: String, level: LogLevel = .info) {
    guard clients[client.id] != nil else { return }
    clients[client.id] = nil
    handlers.log(
      level, "client \(client.id.raw) (pid \(client.peer.pid), uid \(client.peer.uid)) dropped: \(reason)")
    let wasOpen = client.handshaken
    client.shutdown()
    flowControl?.forget(client.id)
    if wasOpen { handlers.closed(client.id) }
  }

  /// Drops a client that does not read: counted, told `slow-consumer` (best effort: its
  /// socket buffer may well be full), logged.
  func dropSlow(_ client: ClientConnection, why: String) {
    bump { $0.droppedSlow += 1 }
    let reason =
      ServerMessage.failure(
        nil,
        RequestError(
          .slowConsumer, "events were not read; queue of \(limits.maxQueuedBytes) bytes overflowed")
      ).line + "\n"
    if let watch = client.watch { _ = try? watch.descriptor.send(Array(reason.utf8)) }
    drop(client, reason: "not reading (\(why))", level: .warning)
  }

  /// Closes every client and stops listening (the socket file, if locd made one, is the
  /// caller's to remove).
  public func stop() {
    for client in clients.values { client.shutdown() }
    clients.removeAll()
    listenWatch?.cancel()
    listenWatch = nil
  }
}

/// One client connection: bounded line framing in, bounded queue out.
final class ClientConnection {
  unowned let server: ControlServer
  let id: SessionID
  let peer: Peer
  var handshaken = false
  /// The client's socket, owned by its watch; nil once shut down.
  var watch: IOWatch?
  var handshakeTimer: Timer?
  /// Bytes of an unfinished request line.
  var pending: [UInt8] = []
  /// Set while skipping the rest of an overlong line.
  var discarding = false
  /// Bytes waiting to be written, from `outOffset`.
  var out: [UInt8] = []
  var outOffset = 0
  var closed = false

  init(server: ControlServer, socket: consuming FileDescriptor, id: SessionID, peer: Peer) throws(Errno) {
    self.server = server
    self.id = id
    self.peer = peer
    watch = try server.loop.watch(socket, events: Epoll.input) { [weak self] revents in self?.ready(revents) }
    let timer = try server.loop.timer(clock: .monotonic, accuracyMicroseconds: 100_000) { [weak self] in
      guard let self, !self.handshaken else { return }
      self.server.bump { $0.droppedHandshake += 1 }
      self.send(
        ServerMessage.failure(nil, RequestError(.handshakeTimeout, "no hello within the time allowed")).line)
      self.flush()
      self.server.drop(self, reason: "no hello in time")
    }
    let timeout = UInt64(max(0, server.limits.handshakeTimeout.seconds) * 1_000_000)
    timer.arm(atMicroseconds: server.loop.monotonicMicroseconds + timeout)
    handshakeTimer = timer
  }

  var queuedBytes: Int { out.count - outOffset }

  func ready(_ revents: UInt32) {
    if revents & Epoll.output != 0 { flush() }
    if closed { return }
    if revents & (Epoll.input | Epoll.hangup | Epoll.error) != 0 {
      readAvailable()
    }
  }

  func readAvailable() {
    guard let watch else { return }
    let outcome = server.reader.readAvailable(from: watch.descriptor) { chunk in
      consume(chunk)
      return !closed
    }
    switch outcome {
    case .endOfFile: server.drop(self, reason: "closed by peer", level: .debug)
    case .failed(let error): server.drop(self, reason: error.description, level: .debug)
    case .wouldBlock, .shortRead, .budgetSpent, .stopped: break
    }
  }

  func consume(_ bytes: UnsafeRawBufferPointer) {
    var start = bytes.startIndex
    while start < bytes.endIndex {
      guard let newline = bytes[start...].firstIndex(of: 0x0A) else {
        if !discarding {
          pending.append(contentsOf: bytes[start...])
          if pending.count > server.limits.maxRequestBytes { overlong() }
        }
        return
      }
      if discarding {
        discarding = false
      } else {
        pending.append(contentsOf: bytes[start..<newline])
        if pending.count > server.limits.maxRequestBytes {
          overlong()
          discarding = false
        } else {
          var line = pending
          pending.removeAll(keepingCapacity: pending.count <= 4096)
          if line.last == 0x0D { line.removeLast() }
          if !line.isEmpty { handle(line) }
          if closed { return }
        }
      }
      start = bytes.index(after: newline)
    }
  }

  func overlong() {
    server.bump { $0.tooLarge += 1 }
    pending.removeAll()
    discarding = true
    send(
      ServerMessage.failure(
        nil,
        RequestError(
          .requestTooLarge, "request line longer than \(server.limits.maxRequestBytes) bytes; skipped")
      ).line)
  }

  func handle(_ line: [UInt8]) {
    switch WireRequest.decode(line) {
    case .failure(let failure):
      switch failure.error.code {
      case .invalidJSON: server.bump { $0.invalidJSON += 1 }
      case .unknownMethod: server.bump { $0.unknownMethods += 1 }
      default: server.bump { $0.invalidRequests += 1 }
      }
      send(ServerMessage.failure(failure.id, failure.error).line)
    case .success((let requestID, .hello(let major, let app))):
      guard major == ProtocolVersion.major else {
        send(
          ServerMessage.failure(
            requestID,
            RequestError(.unsupportedVersion, "locd speaks protocol \(ProtocolVersion.current), not \(major)")
          ).line)
        return
      }
      guard !handshaken else {
        server.bump { $0.invalidRequests += 1 }
        send(ServerMessage.failure(requestID, RequestError(.invalidRequest, "hello was already done")).line)
        return
      }
      handshaken = true
      handshakeTimer?.cancel()
      handshakeTimer = nil
      let access = server.handlers.access(peer)
      let result = HelloResult(session: id.raw, access: access)
      send(ServerMessage.reply(id: requestID, result: result.json).line)
      server.handlers.opened(id, peer, access, app)
    case .success((let requestID, .request(let request))):
      guard handshaken else {
        server.bump { $0.beforeHandshake += 1 }
        send(
          ServerMessage.failure(
            requestID, RequestError(.handshakeRequired, "send hello with the protocol version first")
          ).line)
        return
      }
      server.handlers.request(id, requestID, request)
    }
  }

  func send(_ line: String) {
    var bytes = Array(line.utf8)
    bytes.append(0x0A)
    send(bytes: bytes)
  }

  /// Sends a line (with its newline): straight from the caller's bytes when nothing is
  /// queued, so one event to many clients is never copied per client.
  func send(bytes: [UInt8]) {
    guard !closed, let watch else { return }
    if out.count == outOffset {
      guard let written = sendNow(bytes, from: 0), written < bytes.count else { return }
      out.removeAll(keepingCapacity: true)
      outOffset = 0
      out.append(contentsOf: bytes[written...])
      watch.setEvents(Epoll.input | Epoll.output)
      return
    }
    // Over the limit: dropped, unless flow control holds it and pauses the producer.
    if queuedBytes + bytes.count > server.limits.maxQueuedBytes,
      server.flowControl?.hold(self, adding: bytes.count) != true
    {
      server.dropSlow(self, why: "queue over \(server.limits.maxQueuedBytes) bytes")
      return
    }
    if outOffset > 65536, outOffset * 2 > out.count {
      out.removeFirst(outOffset)
      outOffset = 0
    }
    out.append(contentsOf: bytes)
    flush()
  }

  func flush() {
    guard let watch, let sent = sendNow(out, from: outOffset) else { return }
    let progressed = sent > outOffset
    outOffset = sent
    if outOffset < out.count {
      watch.setEvents(Epoll.input | Epoll.output)
    } else {
      out.removeAll(keepingCapacity: out.count <= 65536)
      outOffset = 0
      watch.setEvents(Epoll.input)
    }
    server.flowControl?.flushed(self, progressed: progressed)
  }

  /// Sends as much of `bytes[offset...]` as the socket takes now; returns the offset
  /// reached, or nil when sending failed and the client was dropped.
  private func sendNow(_ bytes: [UInt8], from offset: Int) -> Int? {
    guard let watch else { return nil }
    var offset = offset
    do {
      while offset < bytes.count, let sent = try watch.descriptor.send(bytes, from: offset) { offset += sent }
    } catch {
      server.drop(self, reason: error.description, level: .debug)
      return nil
    }
    return offset
  }

  func shutdown() {
    guard !closed else { return }
    closed = true
    watch?.cancel()
    // Closes the socket, or, during a read round of this client, right after it.
    watch = nil
    handshakeTimer?.cancel()
    handshakeTimer = nil
  }

  deinit { shutdown() }
}
