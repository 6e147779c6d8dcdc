import LocCore

/// What a listening source needs from its socket, over TCP (`SocketBinding`) or a Unix
/// socket file (`UnixBinding`): the socket and the state and last error that follow it.
protocol ListenerBinding: AnyObject {
  /// `starting`, `connected` once listening, `reconnecting` while retrying, `failed`.
  var state: SourceState { get }
  /// Why the last attempt failed, until one succeeds.
  var lastError: String? { get }
  /// The listening socket, owned by its watch; nil while not listening.
  var watch: IOWatch? { get }
  /// Listens now, and again after each failure until `stop`.
  func start()
  /// No more attempts; closes the socket.
  func stop()
}

extension SocketBinding: ListenerBinding {}

/// The socket file of `nmea+unix-listen://PATH`: created with `mode` (owned by locd's uid
/// and group; a stale socket file there is replaced, anything else is an error), retried
/// with backoff while it cannot be (the directory missing, another program answering on it),
/// removed at `stop`.
final class UnixBinding: ListenerBinding {
  private let uri: String
  private let path: String
  private let mode: UInt32
  private let loop: EventLoop
  private let sink: SourceSink
  private var retry: BindRetry?
  private var stopped = false
  /// How the source takes part.
  private struct Handlers {
    /// Watches the new listening socket.
    let open: (consuming FileDescriptor) throws(Errno) -> IOWatch
    /// Called once listening.
    let bound: () -> Void
    /// The source's snapshot, to publish a failure.
    let snapshot: () -> SourceSnapshot
  }
  private let handlers: Handlers
  private(set) var state: SourceState = .starting
  private(set) var lastError: String?
  private(set) var watch: IOWatch?

  /// A binding at `path` with permission bits `mode`.
  init(
    uri: String, path: String, mode: UInt32, loop: EventLoop, sink: SourceSink,
    open: @escaping (consuming FileDescriptor) throws(Errno) -> IOWatch, bound: @escaping () -> Void,
    snapshot: @escaping () -> SourceSnapshot
  ) {
    self.uri = uri
    self.path = path
    self.mode = mode
    self.loop = loop
    self.sink = sink
    self.handlers = Handlers(open: open, bound: bound, snapshot: snapshot)
  }

  func start() {
    stopped = false
    do {
      retry = try BindRetry(loop: loop) { [weak self] in self?.bind() }
    } catch {
      lastError = "timer: \(error)"
      state = .failed
      sink.update(handlers.snapshot(), false)
      return
    }
    bind()
  }

  func stop() {
    stopped = true
    retry?.cancel()
    retry = nil
    if watch != nil { try? FileIO.remove(path: path) }
    watch?.cancel()
    watch = nil
  }

  private func bind() {
    guard !stopped, watch == nil else { return }
    do throws(Errno) {
      let socket = try UnixSocket.listen(path: path, mode: mode, gid: nil, backlog: 16)
      watch = try handlers.open(socket)
    } catch {
      lastError = error.description
      guard let retry else { return }
      state = .reconnecting(retryAt: retry.failed(error.description, source: uri, log: sink.log))
      sink.update(handlers.snapshot(), false)
      return
    }
    retry?.succeeded()
    lastError = nil
    state = .connected
    handlers.bound()
  }
}
