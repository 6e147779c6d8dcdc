/// Resolves a source's host without blocking the event loop (see decision 0006). A literal
/// IPv4 or IPv6 address is converted at once (getaddrinfo with AI_NUMERICHOST asks no name
/// service). A name is looked up by getaddrinfo(3) on a short-lived detached thread, which
/// sends the answer back as bytes through a socket pair the loop watches: DNS, mDNS or an
/// LDAP hosts map can take seconds, and the loop serves clients meanwhile. One lookup at a
/// time per resolver; a new one (or `cancel`) abandons the previous, whose thread finishes
/// on its own.
final class HostResolver {
  /// Resolution results.
  typealias Outcome = Result<[SocketAddress], SocketAddress.ResolveError>

  /// Addresses kept from one answer; a name with more is cut (getaddrinfo's order is the
  /// preference order, RFC 6724), which also bounds a reply to a few KiB.
  static let maxAddresses = 64
  /// Longest answer accepted: 64 addresses of at most 129 bytes each, or an error's text.
  static let maxAnswerBytes = 16384

  /// One lookup, run on the resolver thread. It shares nothing mutable with the loop: its
  /// inputs are constants, and the answer goes back as bytes (`encode`) through the end of
  /// the socket pair it owns. When the thread lets go of the job that end closes, and the
  /// loop reads the end of file as "the answer is complete".
  final class Job: Sendable {
    let host: String
    let port: Int
    let socketType: Int32
    let passive: Bool
    let reply: FileDescriptor

    init(host: String, port: Int, socketType: Int32, passive: Bool, reply: consuming FileDescriptor) {
      self.host = host
      self.port = port
      self.socketType = socketType
      self.passive = passive
      self.reply = reply
    }

    /// Looks the name up (blocking) and sends the answer. If the loop gave up meanwhile
    /// (closed its end), sending fails with EPIPE (MSG_NOSIGNAL: no signal), and that is all.
    func run() {
      let outcome = HostResolver.lookUp(host: host, port: port, socketType: socketType, passive: passive)
      let bytes = HostResolver.encode(outcome)
      var offset = 0
      while offset < bytes.count, let sent = try? reply.send(bytes, from: offset) { offset += sent }
    }
  }

  let loop: EventLoop
  private var generation = 0
  /// The loop's end of the socket pair of the lookup in progress, owned by its watch.
  private var watch: IOWatch?
  /// The answer read so far.
  private var answer: [UInt8] = []
  /// Made at the first lookup of a name; literal addresses need none.
  private lazy var reader = ReadBuffer(chunkSize: 4096, maxBytesPerWakeup: HostResolver.maxAnswerBytes)

  /// A resolver on `loop`.
  init(loop: EventLoop) { self.loop = loop }

  deinit { cancel() }

  /// Looks up `host`:`port`; `done` is called later on the loop, once, unless cancelled.
  func resolve(
    host: String, port: Int, socketType: Int32, passive: Bool, _ done: @escaping (Outcome) -> Void
  ) {
    cancel()
    let current = generation
    let finish = { (outcome: Outcome) in
      self.loop.soon { [weak self] in
        guard let self, self.generation == current else { return }
        done(outcome)
      }
    }
    if SocketAddress.isNumeric(host) {
      finish(HostResolver.lookUp(host: host, port: port, socketType: socketType, passive: passive))
      return
    }
    let job: Job
    do throws(Errno) {
      // The thread's end blocks (it has nothing else to do); the loop's does not.
      let pair = try DescriptorPair.socketPair()
      try pair.first.setNonBlocking()
      job = Job(host: host, port: port, socketType: socketType, passive: passive, reply: pair.second)
      watch = try loop.watch(pair.first, events: Epoll.input) { [weak self] _ in
        guard let self, self.generation == current, let outcome = self.readAnswer() else { return }
        self.cancel()
        done(outcome)
      }
    } catch {
      finish(.failure(SocketAddress.ResolveError(description: "resolve \(host): \(error)")))
      return
    }
    if !DetachedThread.start({ job.run() }) {
      // No thread to be had: resolve here rather than not at all. The answer (a few KiB at
      // most) fits the socket's buffer, and `job` is released, closing its end, on return.
      job.run()
    }
  }

  /// Abandons the lookup in progress, if any: its `done` is never called.
  func cancel() {
    generation += 1
    watch?.cancel()
    watch = nil
    answer = []
  }

  /// Reads what the thread sent; the outcome once its end closed, nil until then.
  private func readAnswer() -> Outcome? {
    guard let watch else { return nil }
    let outcome = reader.readAvailable(from: watch.descriptor) { chunk in
      answer += chunk
      return answer.count <= HostResolver.maxAnswerBytes
    }
    switch outcome {
    case .endOfFile: return HostResolver.decode(answer)
    case .failed(let error): return .failure(SocketAddress.ResolveError(description: "resolve: \(error)"))
    case .stopped: return .failure(SocketAddress.ResolveError(description: "resolve: answer too long"))
    case .wouldBlock, .shortRead, .budgetSpent: return nil
    }
  }

  /// getaddrinfo(3) for one lookup, at most `maxAddresses` of them.
  static func lookUp(host: String, port: Int, socketType: Int32, passive: Bool) -> Outcome {
    do throws(SocketAddress.ResolveError) {
      let all = try SocketAddress.resolve(host: host, port: port, socketType: socketType, passive: passive)
      return .success(Array(all.prefix(maxAddresses)))
    } catch {
      return .failure(error)
    }
  }

  /// An outcome as bytes: 1, then per address its length and its sockaddr bytes; or 0, then
  /// the error's text in UTF-8.
  static func encode(_ outcome: Outcome) -> [UInt8] {
    switch outcome {
    case .success(let addresses):
      return [1] + addresses.flatMap { address in [UInt8(address.bytes.count)] + address.bytes }
    case .failure(let error):
      return [0] + Array(error.description.utf8)
    }
  }

  /// The outcome `encode` wrote; a reply cut short (the thread died) is an error.
  static func decode(_ bytes: [UInt8]) -> Outcome {
    let broken = Outcome.failure(SocketAddress.ResolveError(description: "resolve: no complete answer"))
    guard let tag = bytes.first else { return broken }
    guard tag == 1 else {
      return .failure(
        SocketAddress.ResolveError(description: String(decoding: bytes.dropFirst(), as: UTF8.self)))
    }
    var addresses: [SocketAddress] = []
    var index = 1
    while index < bytes.count {
      let end = index + 1 + Int(bytes[index])
      guard end <= bytes.count, let address = SocketAddress(bytes: bytes[(index + 1)..<end]) else {
        return broken
      }
      addresses.append(address)
      index = end
    }
    return addresses.isEmpty ? broken : .success(addresses)
  }
}
