import LocCore
import LocProtocol

/// One client connection: bounded line framing in, served a budget per turn of the loop; a
/// queue of lines out, counted by the server (ControlServer+Queues); and one deadline at a
/// time: the hello, the end of a session that can do nothing, or the last words of a
/// dropped client.
final class ClientConnection: SessionKeyed {
  /// Where the connection is.
  enum Phase: Equatable {
    /// Greeted, waiting for the hello.
    case greeting
    /// Hello done: a session.
    case open
    /// Dropped; only its last words are written, nothing is read.
    case closing
    /// Its descriptor is closed.
    case closed
  }

  /// What the connection's one timer waits for.
  enum Deadline {
    /// The hello must come (`handshakeTimeout`).
    case hello
    /// A session that can do nothing ends (`idleTimeout`).
    case idle
    /// The last words must be written (`lastWordsTimeout`).
    case lastWords
  }

  unowned let server: ControlServer
  let id: SessionID
  let peer: Peer
  /// The peer's access: from the policy at accept and at hello, then as the owner sets it.
  var access: AccessLevel
  private(set) var phase = Phase.greeting
  /// The client's socket, owned by its watch; nil once shut down.
  private var watch: IOWatch?
  /// The one timer of the connection and its deadline (ClientConnection+Deadlines); nil
  /// only while `init` makes it.
  var timer: ConnectionTimer?
  /// Request lines from the bytes read (LocProtocol's ControlLineFramer).
  private var framer = ControlLineFramer()
  /// Bytes read but not yet framed: what came after the request that spent a turn's budget.
  /// While there are any, the socket is not read (its data waits in the kernel).
  private var backlog: [UInt8] = []
  /// Set while the backlog waits for the client to read its replies (`takesRequests`).
  private var backlogWaitsForOutput = false
  /// Lines waiting to be written (OutputQueue: shared with every other queue the same
  /// event waits in).
  private var queue = OutputQueue()
  /// Bytes waiting to be written.
  var queuedBytes: Int { queue.byteCount }

  init(server: ControlServer, socket: consuming FileDescriptor, id: SessionID, peer: Peer) throws(Errno) {
    self.server = server
    self.id = id
    self.peer = peer
    access = server.handlers.access(peer)
    // Unowned, not weak: the watch and the timer leave the loop in `release` (at the latest in
    // deinit), so neither calls back once the connection is gone; and a weak reference would
    // move the connection's reference count to a side table, making every retain and release
    // of it (each event sent to it) take the runtime's slow path.
    watch = try server.loop.watch(socket, events: Epoll.input) { [unowned self] revents in
      self.ready(revents)
    }
    timer = ConnectionTimer(
      try server.loop.timer(clock: .monotonic, accuracyMicroseconds: 100_000) { [unowned self] in
        self.deadlinePassed()
      })
    arm(.hello, after: server.limits.handshakeTimeout)
  }

  /// Whether requests are read and served (greeting or open).
  var isServed: Bool { phase == .greeting || phase == .open }

  /// Set when the session has a reason to stay open without access: its hello named an app
  /// (its position comes through the app's authorization, docs/APPS.md), or it registered as
  /// its user's agent (it waits for prompts). Anyone can claim either, but the per-user
  /// limit (`MaxClientsPerUser=`) and the administrators' reserve still bound them.
  private var engaged = false

  /// A session that can do nothing: no access, not an app, not an agent. It cannot
  /// subscribe either (that needs read access), so it only holds a slot.
  var canDoNothing: Bool { access == .none && !engaged }

  // MARK: Input

  private func ready(_ revents: UInt32) {
    if phase == .closing, revents & (Epoll.hangup | Epoll.error) != 0 {
      // Gone before reading its last words: nobody is left to tell.
      server.finish(self)
      return
    }
    if revents & Epoll.output != 0 { flush() }
    guard isServed, backlog.isEmpty, takesRequests else { return }
    if revents & (Epoll.input | Epoll.hangup | Epoll.error) != 0 { readAvailable() }
  }

  private func readAvailable() {
    guard let watch else { return }
    var budget = ControlServer.requestsPerTurn
    let outcome = server.reader.readAvailable(from: watch.descriptor) { chunk in
      let used = consume(chunk, budget: &budget)
      guard isServed else { return false }
      if used < chunk.count {
        backlog.append(contentsOf: chunk[used...])
        return false
      }
      return true
    }
    switch outcome {
    case .endOfFile: server.drop(self, reason: "closed by peer", level: .debug)
    case .failed(let error): server.drop(self, reason: error.description, level: .debug)
    case .wouldBlock, .shortRead, .budgetSpent, .stopped: break
    }
    if isServed, !backlog.isEmpty { waitForNextTurn() }
  }

  /// The turn's budget is spent with requests left: stop reading and serve them at a
  /// later iteration, after every other source that is ready had its turn.
  private func waitForNextTurn() {
    updateEvents()
    server.loop.soon { [weak self] in self?.serveBacklog() }
  }

  /// Whether more requests are served: not while a turn's worth of replies waits unread.
  /// A client that pipelines requests without reading the answers is held back (its
  /// requests wait in the kernel, which stops its writes) instead of growing its queue
  /// until it is dropped; events still queue, and a client that never reads them is dropped.
  private var takesRequests: Bool { queuedBytes <= ControlServer.bytesPerTurn }

  private func serveBacklog() {
    guard isServed, !backlog.isEmpty else { return }
    guard takesRequests else {
      backlogWaitsForOutput = true
      return
    }
    let work = backlog
    backlog = []
    var budget = ControlServer.requestsPerTurn
    let used = work.withUnsafeBytes { consume($0, budget: &budget) }
    guard isServed else { return }
    if used < work.count {
      backlog = Array(work[used...])
      waitForNextTurn()
    } else {
      updateEvents()
    }
  }

  /// Frames `bytes` into lines and handles each, until the budget is spent or the client
  /// is dropped; returns how many bytes were used (the rest waits in the backlog).
  /// A line and an overlong line that ended each spend one of the budget; the framer's
  /// access ends before a frame is handled, which may drop the client.
  private func consume(_ bytes: UnsafeRawBufferPointer, budget: inout Int) -> Int {
    var start = 0
    while start < bytes.count {
      guard budget > 0, isServed else { return start }
      switch framer.next(bytes, from: &start, limit: server.limits.maxRequestBytes) {
      case .line(let line)?:
        budget -= 1
        handle(line)
      case .overlong(let ended)?:
        if ended { budget -= 1 }
        overlong()
      case nil:
        break
      }
    }
    return bytes.count
  }

  /// A line over the limit (the framer skips the rest of it): counted and refused.
  private func overlong() {
    server.bump { $0.tooLarge += 1 }
    refuse(
      nil,
      RequestError(
        .requestTooLarge, "request line longer than \(server.limits.maxRequestBytes) bytes; skipped"))
  }

  /// Answers a request with an error, and logs it (debug, throttled).
  private func refuse(_ requestID: RequestID?, _ error: RequestError) {
    server.logThrottled(
      .debug, "client \(id.raw) (pid \(peer.pid), uid \(peer.uid)): \(error.code.rawValue): \(error.message)")
    send(ServerMessage.failure(requestID, error).line)
  }

  private func handle(_ line: [UInt8]) {
    switch WireRequest.decode(line) {
    case .failure(let failure):
      switch failure.error.code {
      case .invalidJSON: server.bump { $0.invalidJSON += 1 }
      case .unknownMethod: server.bump { $0.unknownMethods += 1 }
      default: server.bump { $0.invalidRequests += 1 }
      }
      refuse(failure.id, failure.error)
    case .success((let requestID, .hello(let major, let app, let client))):
      guard major == ProtocolVersion.major else {
        let why = "locd speaks protocol \(ProtocolVersion.current), not \(major)"
        refuse(requestID, RequestError(.unsupportedVersion, why))
        return
      }
      guard phase == .greeting else {
        server.bump { $0.invalidRequests += 1 }
        refuse(requestID, RequestError(.invalidRequest, "hello was already done"))
        return
      }
      hello(requestID, app: app, client: client)
    case .success((let requestID, .request(let request))):
      guard phase == .open else {
        server.bump { $0.beforeHandshake += 1 }
        refuse(requestID, RequestError(.handshakeRequired, "send hello with the protocol version first"))
        return
      }
      // An agent waits for prompts, a follower of a light/dark schedule for its events: both
      // have a reason to stay without access.
      if !engaged, request == .registerAgent || request.follows {
        engaged = true
        reviewIdleness()
      }
      server.handlers.request(id, requestID, request)
    }
  }

  /// The owner (the engine) answers the hello: it opens the session or refuses an app's claim.
  private func hello(_ requestID: RequestID, app: String?, client: String?) {
    phase = .open
    disarm()
    access = server.handlers.access(peer)
    engaged = app != nil
    server.handlers.opened(id, peer, access, app, client, requestID)
    reviewIdleness()
  }

  // MARK: Output

  func send(_ line: String) {
    var bytes = Array(line.utf8)
    bytes.append(0x0A)
    send(bytes: bytes)
  }

  /// Sends a line (with its newline): straight from the caller's bytes when nothing is
  /// queued; else queued (the array itself, shared, not copied) and counted.
  func send(bytes: [UInt8]) {
    guard isServed, let watch else { return }
    var offset = 0
    if queuedBytes == 0 {
      do {
        while offset < bytes.count, let sent = try watch.descriptor.send(bytes, from: offset) {
          offset += sent
        }
      } catch {
        server.drop(self, reason: error.description, level: .debug)
        return
      }
      if offset == bytes.count { return }
    }
    enqueue(bytes, from: offset)
    server.queueGrew(self)
  }

  private func enqueue(_ bytes: [UInt8], from offset: Int) {
    server.queues.total += queue.append(bytes, from: offset)
    updateEvents()
  }

  /// Writes what the socket takes of the queue.
  private func flush() {
    guard let watch else { return }
    let before = queuedBytes
    defer {
      if phase == .open {
        server.flowControl?.flushed(id, queued: queuedBytes, progressed: queuedBytes < before)
      }
    }
    while let oldest = queue.first {
      let sent: Int?
      do { sent = try watch.descriptor.send(oldest.line, from: oldest.offset) } catch {
        if phase == .closing {
          server.finish(self)
        } else {
          server.drop(self, reason: "\(error)", level: .debug)
        }
        return
      }
      guard let sent else { break }
      queue.wrote(sent)
      server.queues.total -= sent
    }
    queue.compact()
    if phase == .closing, queuedBytes == 0 {
      server.finish(self)
      return
    }
    if backlogWaitsForOutput, takesRequests {
      backlogWaitsForOutput = false
      waitForNextTurn()
    } else {
      updateEvents()
    }
  }

  /// Forgets everything queued (and its count in the server's total).
  private func discardQueue() {
    server.queues.total -= queuedBytes
    queue.removeAll()
  }

  /// Dropped with last words: the queue is replaced by `line`, nothing more is read, and
  /// the connection closes once it is written (or at the deadline).
  func closeAfter(lastWords line: [UInt8]) {
    guard isServed else { return }
    phase = .closing
    // A line partly written is finished first, or the last words would read as garbage.
    let unfinished = queue.unfinished
    discardQueue()
    backlog = []
    framer.dropPending()
    if !unfinished.isEmpty { enqueue(unfinished, from: 0) }
    enqueue(line, from: 0)
    arm(.lastWords, after: ControlServer.lastWordsTimeout)
    flush()
  }

  /// What the socket is watched for: input while requests are read, none wait in the
  /// backlog and the replies are read (`takesRequests`), output while something is queued.
  private func updateEvents() {
    guard let watch else { return }
    var events: UInt32 = 0
    if isServed, backlog.isEmpty, takesRequests { events |= Epoll.input }
    if queuedBytes > 0 { events |= Epoll.output }
    watch.setEvents(events)
  }

  /// locd is stopping: what is queued and then `line` are written as far as the socket
  /// takes them now (nothing waits for the client), before `shutdown`.
  func sayGoodbye(_ line: [UInt8]) {
    guard phase == .open, let watch else { return }
    flush()
    guard phase == .open, queuedBytes == 0 else { return }
    var offset = 0
    while offset < line.count, let sent = try? watch.descriptor.send(line, from: offset) { offset += sent }
  }

  /// Closes the connection now.
  func shutdown() {
    guard phase != .closed else { return }
    phase = .closed
    discardQueue()
    backlog = []
    release()
  }

  /// Leaves the loop: the socket closes (during a read round of this client, right after
  /// it) and the timer is freed.
  private func release() {
    watch?.cancel()
    watch = nil
    timer?.cancel()
  }

  // The server may be gone already: only the loop's resources are given back.
  deinit { release() }
}
