import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Resolves a source's host without blocking the event loop (see decision 0006). A literal
/// IPv4 or IPv6 address is converted at once (getaddrinfo with AI_NUMERICHOST asks no name
/// service). A name is looked up by getaddrinfo(3) on a short-lived detached thread, which
/// reports back through a socket pair the loop watches: DNS, mDNS or an LDAP hosts map can
/// take seconds, and the loop serves clients meanwhile. One lookup at a time per resolver;
/// a new one (or `cancel`) abandons the previous, whose thread finishes on its own.
final class HostResolver {
  /// Resolution results.
  typealias Outcome = Result<[SocketAddress], SocketAddress.ResolveError>

  /// One lookup, shared by the loop and the resolver thread: immutable but for its outcome,
  /// which the thread hands over under a mutex, then says so with one byte on `notify`. So
  /// the loop never reads what the thread is still writing, and the compiler checks that
  /// nothing else is shared (the type is Sendable). The thread's end of the socket pair is
  /// owned here and closed with the last reference, the loop's or the thread's.
  final class Job: Sendable {
    let host: String
    let port: Int
    let socketType: Int32
    let passive: Bool
    let notify: FileDescriptor
    private let result = Mutex<Outcome?>(nil)

    init(host: String, port: Int, socketType: Int32, passive: Bool, notify: consuming FileDescriptor) {
      self.host = host
      self.port = port
      self.socketType = socketType
      self.passive = passive
      self.notify = notify
    }

    /// The result, once `run` finished.
    var outcome: Outcome? { result.withLock { $0 } }

    /// Looks the name up (blocking), stores the result, and wakes the loop.
    func run() {
      let outcome: Outcome
      do throws(SocketAddress.ResolveError) {
        outcome = .success(
          try SocketAddress.resolve(host: host, port: port, socketType: socketType, passive: passive))
      } catch {
        outcome = .failure(error)
      }
      result.withLock { $0 = outcome }
      // MSG_NOSIGNAL (in `send`): the loop may have closed its end (cancelled); no SIGPIPE.
      var byte: UInt8 = 1
      _ = withUnsafeBytes(of: &byte) { try? notify.send($0) }
    }
  }

  let loop: EventLoop
  private var generation = 0
  /// The loop's end of the socket pair of the lookup in progress, owned by its watch.
  private var watch: IOWatch?

  /// A resolver on `loop`.
  init(loop: EventLoop) { self.loop = loop }

  deinit { cancel() }

  /// Looks up `host`:`port`; `done` is called later on the loop, once, unless cancelled.
  func resolve(
    host: String, port: Int, socketType: Int32, passive: Bool, _ done: @escaping (Outcome) -> Void
  ) {
    cancel()
    let current = generation
    let finish = { [weak self] (outcome: Outcome) in
      self?.loop.soon { [weak self] in
        guard let self, self.generation == current else { return }
        done(outcome)
      }
    }
    if SocketAddress.isNumeric(host) {
      do throws(SocketAddress.ResolveError) {
        finish(
          .success(
            try SocketAddress.resolve(host: host, port: port, socketType: socketType, passive: passive)))
      } catch {
        finish(.failure(error))
      }
      return
    }
    let job: Job
    do throws(Errno) {
      let pair = try DescriptorPair.socketPair(nonBlocking: true)
      job = Job(host: host, port: port, socketType: socketType, passive: passive, notify: pair.second)
      watch = try loop.watch(pair.first, events: Epoll.input) { [weak self] _ in
        guard let self, self.generation == current, let outcome = job.outcome else { return }
        self.cancel()
        done(outcome)
      }
    } catch {
      finish(.failure(SocketAddress.ResolveError(description: "resolve \(host): \(error)")))
      return
    }
    if !HostResolver.startThread(job) {
      // No thread to be had: resolve here rather than not at all.
      job.run()
    }
  }

  /// Abandons the lookup in progress, if any: its `done` is never called.
  func cancel() {
    generation += 1
    watch?.cancel()
    watch = nil
  }

  /// Runs `job` on a detached thread (pthread_create(3)); false if none could be created.
  private static func startThread(_ job: Job) -> Bool {
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    let retained = Unmanaged.passRetained(job).toOpaque()
    var thread = pthread_t()
    let r = pthread_create(
      &thread, &attributes,
      { argument in
        Unmanaged<Job>.fromOpaque(argument!).takeRetainedValue().run()
        return nil
      }, retained)
    if r != 0 {
      Unmanaged<Job>.fromOpaque(retained).release()
      return false
    }
    return true
  }
}
