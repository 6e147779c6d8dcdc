import CLocShim
import LocCore

/// An outgoing TCP connection that keeps itself up, shared by the gpsd and NMEA-over-TCP
/// clients: it resolves the host (`HostResolver`), connects without blocking to each
/// address in turn (IPv4 or IPv6, `connectTimeoutMicroseconds` each), reads whatever comes
/// into its owner, and after a failure or a loss tries again with `ReconnectBackoff`
/// (1 s doubling to 60 s, reset after a healthy connection), forever. An outage is logged
/// once when it begins, attempts only at debug level, and the recovery once.
final class StreamConnection {
  /// What the owner hears, always on the loop.
  struct Handlers {
    /// A connection is up (the owner may `send` now).
    var connected: () -> Void
    /// Bytes arrived.
    var bytes: (UnsafeRawBufferPointer) -> Void
    /// A connection that was up ended (before the retry is scheduled).
    var disconnected: () -> Void
    /// `state` or `lastError` changed without a connection coming up.
    var stateChanged: () -> Void
  }

  /// One address gets this long to accept a connection.
  static let connectTimeoutMicroseconds: UInt64 = 10_000_000
  /// Bound on bytes queued for sending; a peer that reads none of our (small) commands
  /// is dropped rather than queued for.
  static let outputLimit = 65_536
  /// Read buffer size, and the most bytes read per wakeup, so one busy peer cannot starve
  /// the loop.
  static let readChunk = 65_536
  static let readBytesPerWakeup = 16 * readChunk

  private enum Phase {
    case idle
    case resolving
    case connecting
    case connected
    case waiting
    /// Paused and not connected: no attempt until `resume`.
    case dormant
  }

  let host: String
  let port: Int
  /// The source's URI, for log lines.
  let name: String
  let loop: EventLoop
  let log: (LogLevel, String) -> Void
  /// Set by the owner before `start`.
  var handlers = Handlers(connected: {}, bytes: { _ in }, disconnected: {}, stateChanged: {})

  /// Connection state for the snapshot.
  private(set) var state: SourceState = .starting
  /// The last failure, cleared on connect.
  private(set) var lastError: String?
  /// Connections established.
  private(set) var connects = 0
  /// Established connections that ended.
  private(set) var disconnects = 0
  /// Attempts made after a failure (the first attempt of all is not a reconnect).
  private(set) var reconnectAttempts = 0
  /// Bytes read.
  private(set) var bytesRead = 0
  /// The address connected to, while connected.
  private(set) var peer: SocketAddress?
  /// Whether no new connection is wanted (acquisition idle): one that is up stays up, but
  /// nothing is attempted or retried until `resume`.
  private(set) var paused = false

  private var phase = Phase.idle
  /// The socket of the attempt or connection, owned by its watch.
  private var watch: IOWatch?
  private var timer: Timer?
  private let resolver: HostResolver
  private var addresses: [SocketAddress] = []
  private var nextAddress = 0
  private var attemptError = ""
  private var backoff = ReconnectBackoff()
  /// When the current outage began (monotonic) and the attempts since.
  private var outage: (since: UInt64, attempts: Int)?
  private var output: [UInt8] = []
  /// Bumped whenever a connection ends, so deferred work for an old one is dropped.
  private var generation = 0
  private let reader = ReadBuffer(
    chunkSize: StreamConnection.readChunk, maxBytesPerWakeup: StreamConnection.readBytesPerWakeup)

  /// A connection to `host`:`port`, not started.
  init(host: String, port: Int, name: String, loop: EventLoop, log: @escaping (LogLevel, String) -> Void) {
    self.host = host
    self.port = port
    self.name = name
    self.loop = loop
    self.log = log
    self.resolver = HostResolver(loop: loop)
  }

  deinit { stop() }

  /// Whether a connection is up.
  var isConnected: Bool { phase == .connected }

  /// Connection counters, named as `locctl status` shows them.
  var counters: [Counter] {
    [
      Counter("connects", connects), Counter("disconnects", disconnects),
      Counter("reconnectAttempts", reconnectAttempts), Counter("bytes", bytesRead),
    ]
  }

  /// Starts connecting (or, paused, waits for `resume`).
  func start() {
    guard phase == .idle else { return }
    if timer == nil {
      do {
        timer = try loop.timer(clock: .monotonic, accuracyMicroseconds: 10_000) { [weak self] in
          self?.timerFired()
        }
      } catch {
        failed("timer: \(error)")
        return
      }
    }
    if paused {
      goDormant()
      return
    }
    attempt()
  }

  /// Wants no new connection: one that is up stays up (its owner quiets it); an attempt in
  /// progress or a pending retry is dropped, so nothing runs until `resume`.
  func pause() {
    guard !paused else { return }
    paused = true
    switch phase {
    case .resolving, .connecting, .waiting:
      resolver.cancel()
      timer?.disarm()
      closeSocket()
      goDormant()
    case .idle, .connected, .dormant:
      break
    }
  }

  /// Wants a connection again: connects at once if none is up.
  func resume() {
    guard paused else { return }
    paused = false
    if phase == .dormant { attempt() }
  }

  private func goDormant() {
    phase = .dormant
    state = .idle
    handlers.stateChanged()
  }

  /// Closes everything; nothing is reported any more.
  func stop() {
    resolver.cancel()
    timer?.cancel()
    timer = nil
    closeSocket()
    phase = .idle
  }

  /// Queues `bytes` for the peer; false when not connected. Too much queued drops the connection.
  @discardableResult func send(_ bytes: [UInt8]) -> Bool {
    guard phase == .connected else { return false }
    if output.isEmpty, let watch {
      let sent: Int
      do { sent = try watch.descriptor.send(bytes) ?? 0 } catch {
        drop("write: \(error)")
        return false
      }
      if sent == bytes.count { return true }
      output.append(contentsOf: bytes[sent...])
    } else {
      output.append(contentsOf: bytes)
    }
    if output.count > StreamConnection.outputLimit {
      drop("peer does not read (\(output.count) bytes queued)")
      return false
    }
    watch?.setEvents(Epoll.input | Epoll.output)
    return true
  }

  /// Ends the connection because of something the peer said; safe from inside a `bytes`
  /// handler (the loss is handled on the next iteration). A retry follows, with backoff.
  func drop(_ reason: String) {
    guard phase == .connected else { return }
    let current = generation
    loop.soon { [weak self] in
      guard let self, self.generation == current, self.phase == .connected else { return }
      self.lost(reason)
    }
  }

  // MARK: Connecting

  private func attempt() {
    if var o = outage {
      o.attempts += 1
      outage = o
      reconnectAttempts += 1
    }
    phase = .resolving
    resolver.resolve(host: host, port: port, socketType: SocketAddress.streamSocket, passive: false) {
      [weak self] outcome in
      guard let self else { return }
      switch outcome {
      case .success(let list):
        self.addresses = list
        self.nextAddress = 0
        self.attemptError = "no address"
        self.tryNextAddress()
      case .failure(let error):
        self.failed(error.description)
      }
    }
  }

  private func tryNextAddress() {
    guard nextAddress < addresses.count else {
      failed(attemptError)
      return
    }
    let address = addresses[nextAddress]
    nextAddress += 1
    log(.debug, "source \(name): connecting to \(address)")
    let started: InetSocket.ConnectStart
    do throws(Errno) {
      let attempt = try InetSocket.connect(to: address)
      started = attempt.start
      watch = try loop.watch(attempt.socket, events: Epoll.output) { [weak self] events in self?.ready(events)
      }
    } catch {
      attemptError = error.description
      closeSocket()
      tryNextAddress()
      return
    }
    peer = address
    phase = .connecting
    if case .connected = started {
      established()
    } else {
      timer?.arm(atMicroseconds: loop.monotonicMicroseconds + StreamConnection.connectTimeoutMicroseconds)
    }
  }

  private func ready(_ events: UInt32) {
    switch phase {
    case .connecting:
      guard let watch else { return }
      if let error = watch.descriptor.connectResult("connect \(peer.map { $0.description } ?? host)") {
        attemptError = error.description
        closeSocket()
        phase = .resolving
        tryNextAddress()
        return
      }
      established()
    case .connected:
      if events & Epoll.output != 0 { flushOutput() }
      if phase == .connected, events & (Epoll.input | Epoll.hangup | Epoll.error) != 0 { readAvailable() }
    default:
      break
    }
  }

  private func established() {
    timer?.disarm()
    phase = .connected
    connects += 1
    output.removeAll()
    if let watch {
      InetSocket.enableKeepAlive(watch.descriptor)
      watch.setEvents(Epoll.input)
    }
    let now = loop.monotonicMicroseconds
    backoff.connected(at: now)
    let address = peer.map { $0.description } ?? host
    if let o = outage {
      let seconds = Double((now - o.since) / 100_000) / 10
      log(.info, "source \(name) connected to \(address) again after \(seconds) s (\(o.attempts) attempts)")
    } else {
      log(.info, "source \(name) connected to \(address)")
    }
    outage = nil
    lastError = nil
    state = .connected
    handlers.connected()
  }

  // MARK: Connected

  private func readAvailable() {
    // The local reference keeps the socket open while its bytes are handed on, even if a
    // handler closes the connection meanwhile; the generation check then stops the round.
    guard let watch else { return }
    let current = generation
    let outcome = reader.readAvailable(from: watch.descriptor) { chunk in
      bytesRead += chunk.count
      handlers.bytes(chunk)
      return generation == current && phase == .connected
    }
    switch outcome {
    case .endOfFile: lost("closed by \(peer.map { $0.description } ?? host)")
    case .failed(let error): lost(error.description)
    case .wouldBlock, .shortRead, .budgetSpent, .stopped: break
    }
  }

  private func flushOutput() {
    guard let watch else { return }
    while !output.isEmpty {
      let sent: Int?
      do { sent = try watch.descriptor.send(output) } catch {
        lost("write: \(error)")
        return
      }
      guard let sent else { return }  // the socket buffer is full: wait for EPOLLOUT
      output.removeFirst(sent)
    }
    watch.setEvents(Epoll.input)
  }

  private func lost(_ reason: String) {
    closeSocket()
    disconnects += 1
    phase = .waiting
    handlers.disconnected()
    if paused {
      // Expected while idle (gpsd ends connections that send no command for 15 min):
      // connect again when fixes are wanted, not now.
      log(.info, "source \(name): \(reason) while idle; connecting again when fixes are wanted")
      lastError = nil
      outage = nil
      goDormant()
      return
    }
    failed(reason)
  }

  // MARK: Waiting

  private func failed(_ reason: String) {
    closeSocket()
    lastError = reason
    if paused {
      log(.debug, "source \(name): \(reason); trying again when fixes are wanted")
      goDormant()
      return
    }
    phase = .waiting
    let now = loop.monotonicMicroseconds
    let delay = backoff.delayAfterFailure(at: now)
    if outage == nil {
      outage = (now, 0)
      log(
        .warning,
        "source \(name): \(reason); reconnecting (backoff from 1 s doubling to 60 s, logged again when back)")
    } else {
      log(.debug, "source \(name): \(reason); next attempt in \(delay / 1_000_000) s")
    }
    state = .reconnecting(retryAt: loop.now.adding(microseconds: Int64(delay)))
    timer?.arm(atMicroseconds: now + delay)
    handlers.stateChanged()
  }

  private func timerFired() {
    switch phase {
    case .connecting:
      attemptError = "connect \(peer.map { $0.description } ?? host): timed out"
      closeSocket()
      phase = .resolving
      tryNextAddress()
    case .waiting:
      attempt()
    default:
      break
    }
  }

  private func closeSocket() {
    generation += 1
    watch?.cancel()
    watch = nil  // closes the socket (unless a read round still holds it: then after it)
    peer = nil
    output.removeAll()
  }
}
