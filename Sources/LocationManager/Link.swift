import LocClient
import LocCore
import LocProtocol
import Synchronization

/// The connection under a `LocationManager`: one socket, one detached thread that reads it
/// and hands each message to whoever waits for it — a reply to its call, an event to the
/// stream — and writers that send whole lines under a lock. Replies and events are handled
/// in the order locd sent them, by one thread, so the authorization kept here is always
/// the latest the daemon said. A request is sent first and its reply awaited after, so
/// several can be on the way at once (the handshake is one round trip).
final class Link: Sendable {
  /// An answer: the message, or why there is none.
  typealias Answer = Result<ServerMessage, ControlClient.Failure>

  /// Where a request stands.
  enum Slot {
    /// Sent; nobody waits yet. `carriesAuthorization`: the reply carries the authorization
    /// object (request-authorization, set-activity, start-updates), which the reading
    /// thread keeps as the latest.
    case sent(carriesAuthorization: Bool)
    /// Awaited by `continuation`, until `timer` gives up.
    case awaited(
      CheckedContinuation<Answer, Never>, carriesAuthorization: Bool, timer: Task<Void, Never>?)
    /// Answered before anyone waited.
    case answered(Answer)

    var carriesAuthorization: Bool {
      switch self {
      case .sent(let c), .awaited(_, let c, _): return c
      case .answered: return false
      }
    }
  }

  /// What the reading thread and the callers share.
  struct State {
    var slots: [RequestID: Slot] = [:]
    var nextID: Int64 = 1
    /// Why the link is down, once it is.
    var closed: ControlClient.Failure? = nil
    /// The greeting came (the first message answers the greeting's slot).
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

  /// The slot the greeting arrives in (requests are numbered from 1).
  static let greetingID = RequestID.number(0)

  init(path: String, socket: consuming FileDescriptor, events: AsyncStream<LocationManagerEvent>.Continuation)
  {
    self.path = path
    self.socket = socket
    self.events = events
    state.withLock { $0.slots[Link.greetingID] = .sent(carriesAuthorization: false) }
  }

  /// Starts the reading thread; false if none could be had.
  func start() -> Bool {
    DetachedThread.start({ [self] in readLoop() })
  }

  /// The greeting, waiting at most `timeout`.
  func greeting(timeout: Duration) async throws(ControlClient.Failure) -> Greeting {
    switch try await answer(Link.greetingID, timeout: timeout).get() {
    case .greeting(let g): return g
    case .error(_, let refusal): throw .daemon(refusal)
    default: throw .protocolError("no greeting from the daemon")
    }
  }

  /// Sends `call` without waiting; its id, for `result`. A failure to send is kept for the
  /// waiter.
  func send<R>(_ call: Call<R>, carriesAuthorization: Bool = false) -> RequestID {
    let id = state.withLock { s in
      defer { s.nextID += 1 }
      let id = RequestID.number(s.nextID)
      s.slots[id] =
        s.closed.map { .answered(.failure($0)) } ?? .sent(carriesAuthorization: carriesAuthorization)
      return id
    }
    let line = Array((call.request.line(id: id) + "\n").utf8)
    do throws(Errno) {
      try writing.withLock { _ throws(Errno) in try socket.sendAll(line) }
    } catch {
      deliver(id, .failure(.protocolError("the connection to the daemon broke: \(error)")))
    }
    return id
  }

  /// The result of request `id`, sent as `call`, waiting at most `timeout`.
  func result<R>(of call: Call<R>, _ id: RequestID, timeout: Duration) async throws(ControlClient.Failure)
    -> R
  {
    switch try await answer(id, timeout: timeout).get() {
    case .reply(_, let result):
      do { return try call.result(result) } catch { throw .protocolError("a reply locd sent: \(error)") }
    case .error(_, let refusal): throw .daemon(refusal)
    default: throw .protocolError("an unexpected answer from the daemon")
    }
  }

  /// Sends `call` and waits for its result, at most `timeout`.
  func call<R>(_ call: Call<R>, timeout: Duration, carriesAuthorization: Bool = false)
    async throws(ControlClient.Failure) -> R
  {
    let id = send(call, carriesAuthorization: carriesAuthorization)
    return try await result(of: call, id, timeout: timeout)
  }

  /// Waits for the answer in slot `id`: at once if it came, else until the reading thread
  /// delivers it, the link goes down or `timeout` passes.
  private func answer(_ id: RequestID, timeout: Duration) async -> Answer {
    await withCheckedContinuation { continuation in
      let early = state.withLock { s -> Answer? in
        switch s.slots[id] {
        case .answered(let a)?:
          s.slots[id] = nil
          return a
        case .sent(let carries)?:
          s.slots[id] = .awaited(continuation, carriesAuthorization: carries, timer: nil)
          return nil
        case .awaited?, nil:
          return .failure(.protocolError("request \(id) is not awaited here"))
        }
      }
      if let early { return continuation.resume(returning: early) }
      let path = self.path
      let timer = Task { [weak self] in
        try? await Task.sleep(for: timeout)
        if Task.isCancelled { return }
        self?.deliver(id, .failure(.timedOut(path: path, after: timeout)))
      }
      let late = state.withLock { s -> Bool in
        guard case .awaited(let c, let carries, nil)? = s.slots[id] else { return true }
        s.slots[id] = .awaited(c, carriesAuthorization: carries, timer: timer)
        return false
      }
      if late { timer.cancel() }
    }
  }

  /// Puts `answer` in slot `id`: to its waiter, or kept for the one to come. An answer to a
  /// request nobody waits for any more (timed out) is dropped.
  func deliver(_ id: RequestID, _ answer: Answer) {
    let waiter = state.withLock { s -> (CheckedContinuation<Answer, Never>, Task<Void, Never>?)? in
      switch s.slots[id] {
      case .sent?:
        s.slots[id] = .answered(answer)
        return nil
      case .awaited(let c, _, let timer)?:
        s.slots[id] = nil
        return (c, timer)
      case .answered?, nil:
        return nil
      }
    }
    guard let (continuation, timer) = waiter else { return }
    timer?.cancel()
    continuation.resume(returning: answer)
  }

  /// Shuts the socket down: the reading thread wakes to end of stream, fails every call
  /// still waiting and ends the event stream.
  func close() {
    try? socket.shutdownBoth()
  }
}
