import LocCore
import LocProtocol
import LocSystem
import Synchronization

/// The connection under a `LocationManager`: one socket, one detached thread that reads it
/// and hands each message to whoever waits for it — a reply to its call, an event to the
/// stream — and writers that send whole lines under a lock. Replies and events are handled
/// in the order locd sent them, by one thread, so the authorization kept here is always
/// the latest the daemon said.
final class Link: Sendable {
  /// Where a call stands while its reply is awaited.
  struct Waiter {
    let continuation: CheckedContinuation<Result<ServerMessage, ControlClient.Failure>, Never>
    /// The reply carries the authorization object (request-authorization, set-activity,
    /// start-updates): the reading thread keeps it as the latest.
    let carriesAuthorization: Bool
    var timer: Task<Void, Never>? = nil
  }

  /// What the reading thread and the callers share.
  struct State {
    var waiters: [RequestID: Waiter] = [:]
    var nextID: Int64 = 1
    /// Why the link is down, once it is.
    var closed: ControlClient.Failure? = nil
    /// The greeting came (the first message is answered to the handshake's waiter).
    var greeted = false
    /// The latest authorization locd sent.
    var authorization: AppStatusView? = nil
    /// The latest position delivered.
    var location: Location? = nil
  }

  /// The socket's path, for messages.
  let path: String
  let socket: FileDescriptor
  let state = Mutex(State())
  /// Serializes writers, so lines never interleave; never held with `state`.
  let writing = Mutex(())
  let events: AsyncStream<LocationManagerEvent>.Continuation

  /// The id the greeting is awaited under (requests are numbered from 1).
  static let greetingID = RequestID.number(0)

  init(path: String, socket: consuming FileDescriptor, events: AsyncStream<LocationManagerEvent>.Continuation)
  {
    self.path = path
    self.socket = socket
    self.events = events
  }

  /// Starts the reading thread and waits for the greeting (at most `timeout`).
  func start(timeout: Duration) async throws(ControlClient.Failure) -> Greeting {
    let reply = await wait(for: Link.greetingID, carriesAuthorization: false, timeout: timeout) {
      guard DetachedThread.start({ [self] in readLoop() }) else {
        return .protocolError("no thread could be started to read the socket")
      }
      return nil
    }
    switch try reply.get() {
    case .greeting(let g): return g
    case .error(_, let refusal): throw .daemon(refusal)
    default: throw .protocolError("no greeting from the daemon")
    }
  }

  /// Sends `call` and waits for its result, at most `timeout`.
  func call<R>(_ call: Call<R>, timeout: Duration, carriesAuthorization: Bool = false)
    async throws(ControlClient.Failure) -> R
  {
    let id = state.withLock { s in
      defer { s.nextID += 1 }
      return RequestID.number(s.nextID)
    }
    let line = Array((call.request.line(id: id) + "\n").utf8)
    let reply = await wait(for: id, carriesAuthorization: carriesAuthorization, timeout: timeout) {
      do throws(Errno) {
        try writing.withLock { _ throws(Errno) in try socket.writeAll(line) }
        return nil
      } catch {
        return .protocolError("the connection to the daemon broke: \(error)")
      }
    }
    switch try reply.get() {
    case .reply(_, let result):
      do { return try call.result(result) } catch { throw .protocolError("a reply locd sent: \(error)") }
    case .error(_, let refusal): throw .daemon(refusal)
    default: throw .protocolError("an unexpected answer from the daemon")
    }
  }

  /// Registers a waiter for `id`, runs `send` (a failure it returns ends the wait at
  /// once), and waits until the reading thread answers, the link goes down or `timeout`
  /// passes.
  private func wait(
    for id: RequestID, carriesAuthorization: Bool, timeout: Duration,
    send: () -> ControlClient.Failure?
  ) async -> Result<ServerMessage, ControlClient.Failure> {
    await withCheckedContinuation { continuation in
      let refused = state.withLock { s -> ControlClient.Failure? in
        if let why = s.closed { return why }
        s.waiters[id] = Waiter(continuation: continuation, carriesAuthorization: carriesAuthorization)
        return nil
      }
      if let refused { return continuation.resume(returning: .failure(refused)) }
      if let failed = send() { return finish(id, .failure(failed)) }
      let path = self.path
      let timer = Task { [weak self] in
        try? await Task.sleep(for: timeout)
        if Task.isCancelled { return }
        self?.finish(id, .failure(.timedOut(path: path, after: timeout)))
      }
      let late = state.withLock { s -> Bool in
        guard s.waiters[id] != nil else { return true }
        s.waiters[id]?.timer = timer
        return false
      }
      if late { timer.cancel() }
    }
  }

  /// Answers the waiter of `id`, if it still waits.
  private func finish(_ id: RequestID, _ outcome: Result<ServerMessage, ControlClient.Failure>) {
    guard let waiter = state.withLock({ s in s.waiters.removeValue(forKey: id) }) else { return }
    waiter.timer?.cancel()
    waiter.continuation.resume(returning: outcome)
  }

  /// Shuts the socket down: the reading thread wakes to end of stream, fails every call
  /// still waiting and ends the event stream.
  func close() {
    try? socket.shutdownBoth()
  }
}
