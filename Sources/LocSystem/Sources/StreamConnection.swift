import CLocShim
import LocCore

/// An outgoing TCP connection that keeps itself up, shared by the gpsd and NMEA-over-TCP
/// clients: it resolves the host (`AddressDialer`), connects without blocking to each
/// address in turn (IPv4 or IPv6, `connectTimeoutMicroseconds` each; a `StreamSocket` for
/// each attempt), reads whatever comes into its owner, and after a failure or a loss tries again on a `ReconnectSchedule`
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
    /// A line for the log.
    var log: (LogLevel, String) -> Void
    /// The owner stands for a service that may not be installed or started yet (the default
    /// source): an outage that begins with nothing listening is a wait, logged at info.
    var waitsWhenNobodyListens = false
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

  /// The source's URI, for log lines.
  let name: String
  let loop: EventLoop
  /// Set by the owner before `start`.
  var handlers = Handlers(
    connected: {}, bytes: { _ in }, disconnected: {}, stateChanged: {}, log: { _, _ in })

  /// Connection state for the snapshot.
  private(set) var state: SourceState = .starting
  /// The last failure, cleared on connect: its words, and whether it was that nothing listens
  /// at the address (every address of the round refused the connection, ECONNREFUSED).
  private var failure: (reason: String, nobodyListens: Bool)?
  /// The last failure's words, e.g. "connect 127.0.0.1:2947: Connection refused".
  var lastError: String? { failure?.reason }
  /// Whether the last failure was that nothing listens at the address.
  var nobodyListens: Bool { failure?.nobodyListens ?? false }
  /// Connections, losses, retries and bytes, for the snapshot.
  private(set) var tally = ConnectionCounters()
  /// Whether no new connection is wanted (acquisition idle): one that is up stays up, but
  /// nothing is attempted or retried until `resume`.
  private(set) var paused = false

  private var phase = Phase.idle
  /// The host, its addresses and the one to try next.
  private let dialer: AddressDialer
  /// The socket of the attempt or connection; replaced for each attempt, so deferred work
  /// for an old one sees it is gone.
  private var socket: StreamSocket?
  /// The connect timeout, and the wait before the next attempt.
  private var timer: Timer?
  /// The backoff and the outage in progress.
  private var retry = ReconnectSchedule()

  /// A connection to `host`:`port`, not started.
  init(host: String, port: Int, name: String, loop: EventLoop) {
    self.name = name
    self.loop = loop
    self.dialer = AddressDialer(host: host, port: port, loop: loop)
  }

  deinit { stop() }

  /// Whether a connection is up.
  var isConnected: Bool { phase == .connected }

  /// Connection counters, named as `locctl status` shows them.
  var counters: [Counter] { tally.counters }

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
      dialer.cancel()
      timer?.disarm()
      closeSocket()
      goDormant()
    case .idle, .connected, .dormant:
      break
    }
  }

  /// Wants no connection at all until `resume`: pauses, and closes one that is up, on
  /// purpose (counted in `releases`, not `disconnects`, and no retry). For a push feed that
  /// cannot be told to stop sending (nmea+tcp): while acquisition is idle nothing is read.
  /// Not from inside a `bytes` handler (the shell applies it on the next loop iteration).
  func release() {
    pause()
    guard phase == .connected else { return }
    closeSocket()
    tally.released()
    handlers.disconnected()
    handlers.log(
      .debug,
      "source \(name): connection closed while acquisition is idle; connecting again when fixes are wanted")
    failure = nil
    retry.forgetOutage()
    goDormant()
  }

  /// Wants a connection again: connects at once if none is up.
  func resume() {
    guard paused else { return }
    paused = false
    if phase == .dormant { attempt() }
  }

  /// The peer may listen now (the socket of its service appeared): a wait for the next attempt
  /// is cut short and the backoff starts over; while paused, the failure that said nobody
  /// listens is forgotten (the next attempt, when fixes are wanted, tells anew).
  func peerMayListen() {
    switch phase {
    case .waiting:
      timer?.disarm()
      retry.startOver()
      handlers.log(.debug, "source \(name): its service's socket appeared; connecting now")
      attempt()
    case .dormant where failure != nil:
      failure = nil
      retry.forgetOutage()
      handlers.stateChanged()
    case .idle, .resolving, .connecting, .connected, .dormant:
      break
    }
  }

  private func goDormant() {
    phase = .dormant
    state = .idle
    handlers.stateChanged()
  }

  /// Closes everything; nothing is reported any more.
  func stop() {
    dialer.cancel()
    timer?.cancel()
    timer = nil
    closeSocket()
    phase = .idle
  }

  /// Queues `bytes` for the peer; false when not connected. Too much queued drops the connection.
  @discardableResult func send(_ bytes: [UInt8]) -> Bool {
    guard phase == .connected, let socket else { return false }
    if let reason = socket.send(bytes) {
      drop(reason)
      return false
    }
    return true
  }

  /// Ends the connection because of something the peer said; safe from inside a `bytes`
  /// handler (the loss is handled on the next iteration). A retry follows, with backoff.
  func drop(_ reason: String) {
    guard phase == .connected else { return }
    loop.soon { [weak self, weak current = socket] in
      guard let self, let current, self.socket === current, self.phase == .connected else { return }
      self.lost(reason)
    }
  }

  // MARK: Connecting

  private func attempt() {
    if retry.attempting() { tally.reconnecting() }
    phase = .resolving
    dialer.resolve { [weak self] problem in
      guard let self else { return }
      if let problem { self.failed(problem) } else { self.tryNextAddress() }
    }
  }

  private func tryNextAddress() {
    guard let address = dialer.next() else {
      failed(dialer.lastFailure, nobodyListens: dialer.everyAddressRefused)
      return
    }
    handlers.log(.debug, "source \(name): connecting to \(address)")
    let started: InetSocket.ConnectStart
    do throws(Errno) {
      let attempt = try InetSocket.connect(to: address)
      started = attempt.start
      let watch = try loop.watch(attempt.socket, events: Epoll.output) { [weak self] events in
        self?.ready(events)
      }
      socket = StreamSocket(peer: address, watch: watch)
    } catch {
      // Loopback refuses at once, inside connect(2).
      dialer.failed(error.description, refused: error.code == Errno.connectionRefused)
      closeSocket()
      tryNextAddress()
      return
    }
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
      guard let socket else { return }
      if let error = socket.watch.descriptor.connectResult("connect \(peerName)") {
        dialer.failed(error.description, refused: error.code == Errno.connectionRefused)
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
    tally.connected()
    socket?.established()
    let now = loop.monotonicMicroseconds
    let address = peerName
    if let o = retry.connected(at: now) {
      let seconds = Double((now - o.since) / 100_000) / 10
      handlers.log(
        .info, "source \(name) connected to \(address) again after \(seconds) s (\(o.attempts) attempts)")
    } else {
      handlers.log(.info, "source \(name) connected to \(address)")
    }
    failure = nil
    state = .connected
    handlers.connected()
  }

  // MARK: Connected

  private func readAvailable() {
    // The local reference keeps the socket open while its bytes are handed on, even if a
    // handler closes the connection meanwhile; the identity check then stops the round.
    guard let current = socket else { return }
    let outcome = current.read { chunk in
      tally.read(chunk.count)
      handlers.bytes(chunk)
      return socket === current && phase == .connected
    }
    switch outcome {
    case .endOfFile: lost("closed by \(current.peer)")
    case .failed(let error): lost(error.description)
    case .wouldBlock, .shortRead, .budgetSpent, .stopped: break
    }
  }

  private func flushOutput() {
    if let reason = socket?.flush() { lost(reason) }
  }

  private func lost(_ reason: String) {
    closeSocket()
    tally.disconnected()
    phase = .waiting
    handlers.disconnected()
    if paused {
      // Expected while idle (gpsd ends connections that send no command for 15 min):
      // connect again when fixes are wanted, not now.
      handlers.log(.info, "source \(name): \(reason) while idle; connecting again when fixes are wanted")
      failure = nil
      retry.forgetOutage()
      goDormant()
      return
    }
    failed(reason)
  }

  // MARK: Waiting

  /// An attempt failed or a connection was lost for `reason`; `nobodyListens`: every address
  /// refused the connection.
  private func failed(_ reason: String, nobodyListens: Bool = false) {
    closeSocket()
    failure = (reason, nobodyListens)
    if paused {
      handlers.log(.debug, "source \(name): \(reason); trying again when fixes are wanted")
      goDormant()
      return
    }
    phase = .waiting
    let now = loop.monotonicMicroseconds
    let (delay, began) = retry.failed(at: now)
    if began, nobodyListens, handlers.waitsWhenNobodyListens {
      handlers.log(
        .info, "source \(name): nothing listens on \(dialer.host):\(dialer.port) yet; connecting when it does"
      )
    } else if began {
      handlers.log(
        .warning,
        "source \(name): \(reason); reconnecting (backoff from 1 s doubling to 60 s, logged again when back)")
    } else {
      handlers.log(.debug, "source \(name): \(reason); next attempt in \(delay / 1_000_000) s")
    }
    state = .reconnecting(retryAt: loop.now.adding(microseconds: Int64(delay)))
    timer?.arm(atMicroseconds: now + delay)
    handlers.stateChanged()
  }

  private func timerFired() {
    switch phase {
    case .connecting:
      dialer.failed("connect \(peerName): timed out")
      closeSocket()
      phase = .resolving
      tryNextAddress()
    case .waiting:
      attempt()
    default:
      break
    }
  }

  /// The address of the attempt or connection, else the host, for messages.
  private var peerName: String { socket.map { $0.peer.description } ?? dialer.host }

  /// Who writes what the connection brings (decision 0060): the owner of the server's end,
  /// asked of the kernel (NETLINK_SOCK_DIAG) at the first call on a connection and kept;
  /// `remoteHost` beyond loopback; nil while not connected, or while the kernel does not say
  /// (asked again at the next call: the server's end may not be accepted yet).
  func serverWriter() -> FixWriter? {
    guard phase == .connected, let socket else { return nil }
    return socket.serverWriter()
  }

  private func closeSocket() {
    socket?.close()
    socket = nil  // closes the socket (unless a read round still holds it: then after it)
  }
}
