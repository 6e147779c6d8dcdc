import CLocShim

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

  /// One lookup, shared by the loop and the thread. The thread writes `outcome` and then one
  /// byte to `notifyFD`; the loop reads `outcome` only after that byte arrived.
  final class Job {
    let host: String
    let port: Int
    let socketType: Int32
    let passive: Bool
    let notifyFD: Int32
    var outcome: Outcome?

    init(host: String, port: Int, socketType: Int32, passive: Bool, notifyFD: Int32) {
      self.host = host
      self.port = port
      self.socketType = socketType
      self.passive = passive
      self.notifyFD = notifyFD
    }

    func run() {
      do throws(SocketAddress.ResolveError) {
        outcome = .success(
          try SocketAddress.resolve(host: host, port: port, socketType: socketType, passive: passive))
      } catch {
        outcome = .failure(error)
      }
    }
  }

  let loop: EventLoop
  private var generation = 0
  private var readFD: Int32 = -1
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
    if SocketAddress.isNumeric(host) {
      let outcome: Outcome
      do throws(SocketAddress.ResolveError) {
        outcome = .success(
          try SocketAddress.resolve(host: host, port: port, socketType: socketType, passive: passive))
      } catch {
        outcome = .failure(error)
      }
      loop.soon { [weak self] in
        guard let self, self.generation == current else { return }
        done(outcome)
      }
      return
    }
    var pair: [Int32] = [-1, -1]
    let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
    guard socketpair(AF_UNIX, type, 0, &pair) == 0 else {
      let why = Errno(call: "socketpair")
      loop.soon { [weak self] in
        guard let self, self.generation == current else { return }
        done(.failure(SocketAddress.ResolveError(description: "resolve \(host): \(why)")))
      }
      return
    }
    let job = Job(host: host, port: port, socketType: socketType, passive: passive, notifyFD: pair[1])
    readFD = pair[0]
    do {
      watch = try loop.watch(fd: pair[0], events: Epoll.input) { [weak self] _ in
        guard let self, self.generation == current, let outcome = job.outcome else { return }
        self.cancel()
        done(outcome)
      }
    } catch {
      close(pair[0])
      close(pair[1])
      readFD = -1
      loop.soon { [weak self] in
        guard let self, self.generation == current else { return }
        done(.failure(SocketAddress.ResolveError(description: "resolve \(host): \(error)")))
      }
      return
    }
    if !HostResolver.startThread(job) {
      // No thread to be had: resolve here rather than not at all.
      job.run()
      var byte: UInt8 = 1
      _ = send(job.notifyFD, &byte, 1, Int32(MSG_NOSIGNAL))
      close(job.notifyFD)
    }
  }

  /// Abandons the lookup in progress, if any: its `done` is never called.
  func cancel() {
    generation += 1
    watch?.cancel()
    watch = nil
    if readFD >= 0 { close(readFD) }
    readFD = -1
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
        let job = Unmanaged<Job>.fromOpaque(argument!).takeRetainedValue()
        job.run()
        var byte: UInt8 = 1
        // MSG_NOSIGNAL: the loop may have closed its end (cancelled); no SIGPIPE then.
        _ = send(job.notifyFD, &byte, 1, Int32(MSG_NOSIGNAL))
        close(job.notifyFD)
        return nil
      }, retained)
    if r != 0 {
      Unmanaged<Job>.fromOpaque(retained).release()
      return false
    }
    return true
  }
}
