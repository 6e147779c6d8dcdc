import LocCore

/// What `nmea+tcp-listen://` and `nmea+udp://` share: resolving the address, binding a
/// socket on it and watching it, retrying with backoff (`BindRetry`) when the port is taken
/// or the address is not configured yet, and the source state and last error that follow.
final class SocketBinding {
  /// How the source takes part.
  struct Handlers {
    /// Makes the socket on `address` and watches it.
    var open: (_ address: SocketAddress) throws(Errno) -> IOWatch
    /// The socket is bound at `address` (as the kernel says): log it, begin decoding.
    var bound: (_ address: String) -> Void
    /// The source's snapshot now, to publish.
    var snapshot: () -> SourceSnapshot
  }

  private let uri: String
  /// What is bound: the host (a name or an address) and port, and the socket's type.
  private struct Target {
    let host: String
    let port: Int
    /// SOCK_STREAM or SOCK_DGRAM.
    let socketType: Int32
  }
  private let target: Target
  private let loop: EventLoop
  private let sink: SourceSink
  private let resolver: HostResolver
  private var retry: BindRetry?
  /// Set by the source before `start`.
  var handlers: Handlers?
  /// Whether the source was stopped.
  private(set) var stopped = false
  /// `starting`, `connected` once bound, `reconnecting` while retrying, `failed`.
  private(set) var state: SourceState = .starting
  /// Why the last attempt failed, until one succeeds.
  private(set) var lastError: String?
  /// The bound socket, owned by its watch; nil while unbound.
  private(set) var watch: IOWatch?

  /// A binding of `uri` at `host`:`port` (`socketType`: SOCK_STREAM or SOCK_DGRAM).
  init(uri: String, host: String, port: Int, socketType: Int32, loop: EventLoop, sink: SourceSink) {
    self.uri = uri
    self.target = Target(host: host, port: port, socketType: socketType)
    self.loop = loop
    self.sink = sink
    self.resolver = HostResolver(loop: loop)
  }

  /// Binds now, and again after each failure until `stop`.
  func start() {
    stopped = false
    do {
      retry = try BindRetry(loop: loop) { [weak self] in self?.bind() }
    } catch {
      lastError = "timer: \(error)"
      state = .failed
      publish(restarted: false)
      return
    }
    bind()
  }

  /// No more attempts; closes the socket.
  func stop() {
    stopped = true
    resolver.cancel()
    retry?.cancel()
    retry = nil
    close()
  }

  /// Closes the socket (the watch owns it).
  func close() {
    watch?.cancel()
    watch = nil
  }

  private func bind() {
    resolver.resolve(
      host: target.host, port: target.port, socketType: target.socketType, passive: true
    ) { [weak self] outcome in
      guard let self, !self.stopped, let handlers = self.handlers else { return }
      switch outcome {
      case .failure(let error):
        self.failed(error.description)
      case .success(let addresses):
        do throws(Errno) {
          self.watch = try handlers.open(addresses[0])
        } catch {
          self.close()
          self.failed(error.description)
          return
        }
        self.retry?.succeeded()
        self.lastError = nil
        self.state = .connected
        handlers.bound(
          self.watch?.descriptor.localAddress().map { $0.description }
            ?? "\(self.target.host):\(self.target.port)")
      }
    }
  }

  private func failed(_ reason: String) {
    lastError = reason
    guard !stopped, let retry else { return }
    state = .reconnecting(retryAt: retry.failed(reason, source: uri, log: sink.log))
    publish(restarted: false)
  }

  private func publish(restarted: Bool) {
    if let snapshot = handlers?.snapshot() { sink.update(snapshot, restarted) }
  }
}
