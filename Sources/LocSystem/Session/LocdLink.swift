import LocCore
import LocProtocol

/// locd-session's connection to locd's socket, on the session's event loop: connect, check
/// the greeting, say hello, ask for the user's light/dark schedule with `follow` (and the
/// user's rules), then hand on every schedule locd answers or pushes. Between transitions it
/// waits on the socket and nothing else: no timer is armed while connected, so the process
/// is not woken at all. A broken connection (locd restarted, say) is made again after 1 s,
/// then 2, 4, ... up to a minute (`ReconnectBackoff`: back to 1 s only after a connection
/// that followed for 10 s, so a locd that takes the connection and drops it at once is not
/// asked every second).
final class LocdLink {
  /// Where it stands.
  enum State: Sendable, Hashable {
    /// Not connected; a connection is tried at the next retry.
    case down
    /// Connected, waiting for the greeting.
    case greeting
    /// Hello sent, waiting for its answer.
    case hello
    /// `light-dark` sent: following the schedule.
    case following
  }

  /// A request sent and not answered yet: what its answer is for.
  private enum Awaited {
    case hello
    case follow
    case setMode
  }

  /// Whom the link tells what.
  struct Handlers {
    /// A line for the log.
    var log: (LogLevel, String) -> Void
    /// A schedule locd answered or pushed, with the push's reason (nil for an answer).
    var schedule: (LightDarkView, LightDarkReason?) -> Void
    /// Everything readable was read (a batch of schedules is settled at once).
    var settled: () -> Void
    /// locd refused a `set-mode` (or it could not be sent, or locd went away before it answered).
    var refused: (String) -> Void
  }

  /// The socket's path.
  let path: String
  private let loop: EventLoop
  private let handlers: Handlers
  /// The rules to send with the follow request.
  private var rules: LightDarkRules

  private(set) var state = State.down
  private var watch: IOWatch?
  private var buffer: [UInt8] = []
  private var awaited: [RequestID: Awaited] = [:]
  private var nextID: Int64 = 0
  /// The next try: its timer (made at the first loss), the waits between tries, and the
  /// tries that failed since the link last followed (the first failure is said at warning).
  private var retry: (timer: Timer?, backoff: ReconnectBackoff, failedTries: Int) = (
    nil, ReconnectBackoff(), 0
  )
  /// Connections made, for the log and the tests.
  private(set) var connections = 0

  /// The longest line read from locd (a schedule is about 600 bytes).
  static let maxLine = 1 << 20

  init(path: String, rules: LightDarkRules, loop: EventLoop, handlers: Handlers) {
    self.path = path
    self.rules = rules
    self.loop = loop
    self.handlers = handlers
  }

  /// Connects now (and again after every loss).
  func start() { connect() }

  /// Takes `rules` as the user's and sends them (a reload of the configuration).
  func follow(_ rules: LightDarkRules) {
    self.rules = rules
    if state == .following { send(.request(.lightDark(rules: rules, follow: true)), awaiting: .follow) }
  }

  /// Asks locd to set the mode; false when not connected (nothing was sent, nothing is
  /// said). Once sent, a refusal reaches `refused` once: locd's answer, a write that failed, or
  /// the connection lost before the answer.
  @discardableResult
  func setMode(_ change: ModeChange) -> Bool {
    guard state == .following else { return false }
    send(.request(.setMode(change)), awaiting: .setMode)
    return true
  }

  // MARK: The connection

  private func connect() {
    retry.timer?.disarm()
    let socket: FileDescriptor
    do { socket = try UnixSocket.connect(path: path) } catch {
      lost(
        "cannot connect to \(path): \(error.message)",
        quietly: connections == 0 && retry.failedTries > 0)
      return
    }
    do {
      watch = try loop.watch(socket, events: Epoll.input) { [unowned self] _ in self.readable() }
    } catch {
      lost("cannot watch the socket: \(error)")
      return
    }
    state = .greeting
    buffer.removeAll(keepingCapacity: true)
    awaited = [:]
    connections += 1
  }

  /// Closes the connection and arms the next try.
  private func lost(_ why: String, quietly: Bool = false) {
    watch?.cancel()
    watch = nil
    state = .down
    for (_, what) in awaited where what == .setMode { handlers.refused("locd went away before it answered") }
    awaited = [:]
    retry.failedTries += 1
    let now = loop.monotonicMicroseconds
    let wait = retry.backoff.delayAfterFailure(at: now)
    handlers.log(quietly ? .debug : .warning, "\(why); trying again in \(wait / 1_000_000) s")
    if retry.timer == nil {
      retry.timer = try? loop.timer(clock: .monotonic, accuracyMicroseconds: 100_000) { [unowned self] in
        self.connect()
      }
    }
    retry.timer?.arm(atMicroseconds: now + wait)
  }

  /// Sends `request`, remembering what its answer is for.
  private func send(_ request: WireRequest, awaiting what: Awaited) {
    guard let watch else { return }
    let id = RequestID.number(nextID)
    nextID += 1
    awaited[id] = what
    let line = request.line(id: id) + "\n"
    do { try watch.descriptor.sendAll(Array(line.utf8)) } catch { lost("cannot write to locd: \(error)") }
  }

  private func readable() {
    guard let watch else { return }
    let outcome = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 65536) { scratch in
      let raw = UnsafeMutableRawBufferPointer(scratch)
      return Result { () throws(Errno) in
        let n = try watch.descriptor.read(into: raw)
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[0..<n]))
        return n
      }
    }
    let n: Int
    do { n = try outcome.get() } catch {
      // A wakeup with nothing to read after all (the socket stays blocking: it is read only
      // when the loop says it is readable).
      if error.code == Errno.interrupted { return }
      return lost("reading from locd: \(error)")
    }
    guard n > 0 else { return lost("locd closed the connection") }
    var start = 0
    while let newline = buffer[start...].firstIndex(of: 0x0A) {
      let line = buffer[start..<newline]
      start = newline + 1
      guard handle(line) else { return }
    }
    buffer.removeSubrange(0..<start)
    guard buffer.count <= LocdLink.maxLine else {
      return lost("a line from locd is longer than \(LocdLink.maxLine) bytes")
    }
    handlers.settled()
  }

  /// Handles one line; false when the connection was given up.
  private func handle(_ line: ArraySlice<UInt8>) -> Bool {
    let message: ServerMessage
    do { message = try ServerMessage.decode(line) } catch {
      lost("locd said something this locd-session does not understand: \(error)")
      return false
    }
    switch message {
    case .greeting(let g):
      guard state == .greeting else { break }
      if case .failure(let mismatch) = g.check() {
        lost(mismatch.description)
        return false
      }
      state = .hello
      send(.hello(protocolMajor: ProtocolVersion.major, app: nil, client: "locd-session"), awaiting: .hello)
    case .reply(let id, let result):
      switch awaited.removeValue(forKey: id) {
      case .hello?:
        state = .following
        retry.failedTries = 0
        retry.backoff.connected(at: loop.monotonicMicroseconds)
        handlers.log(.info, "connected to locd (\(path)); following the light/dark schedule, \(rules)")
        send(.request(.lightDark(rules: rules, follow: true)), awaiting: .follow)
      case .follow?, .setMode?:
        do { handlers.schedule(try Call.lightDark().result(result), nil) } catch {
          handlers.log(.warning, "a schedule locd sent could not be read: \(error)")
        }
      case nil:
        break
      }
    case .error(let id, let reply):
      let what = id.flatMap { awaited.removeValue(forKey: $0) }
      switch what {
      case .setMode?: handlers.refused(reply.description)
      case .hello?, .follow?:
        // A refused follow (rules locd does not take, a limit): nothing to follow here.
        lost("locd refused: \(reply.description)")
        return false
      case nil:
        // An error without a request (`slow-consumer`, `idle-timeout`): the connection ends.
        handlers.log(.warning, "locd: \(reply.description)")
      }
    case .event(let e):
      if case .lightDark(let l) = e.data { handlers.schedule(l.schedule, l.reason.known) }
    }
    return state != .down
  }
}
