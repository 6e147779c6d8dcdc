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

  let loop: EventLoop
  /// The resolver thread and its answer (`encode`), one lookup at a time.
  private let worker: WorkerCall
  /// Counts lookups, so a numeric answer handed over later is dropped after `cancel`.
  private var generation = 0

  /// A resolver on `loop`.
  init(loop: EventLoop) {
    self.loop = loop
    worker = WorkerCall(loop: loop, maxAnswerBytes: HostResolver.maxAnswerBytes, chunkSize: 4096)
  }

  /// Looks up `host`:`port`; `done` is called later on the loop, once, unless cancelled.
  func resolve(
    host: String, port: Int, socketType: Int32, passive: Bool, _ done: @escaping (Outcome) -> Void
  ) {
    cancel()
    if SocketAddress.isNumeric(host) {
      let outcome = HostResolver.lookUp(host: host, port: port, socketType: socketType, passive: passive)
      later(done, outcome)
      return
    }
    do throws(WorkerCall.StartFailure) {
      // No thread to be had: resolve here rather than not at all (the answer, a few KiB at
      // most, fits the socket's buffer).
      try worker.start(runsHereWithoutThread: true) {
        HostResolver.encode(
          HostResolver.lookUp(host: host, port: port, socketType: socketType, passive: passive))
      } _: { ending in
        switch ending {
        case .answer(let bytes): done(HostResolver.decode(bytes))
        case .readFailed(let error):
          done(.failure(SocketAddress.ResolveError(description: "resolve: \(error)")))
        case .tooLong: done(.failure(SocketAddress.ResolveError(description: "resolve: answer too long")))
        }
      }
    } catch {
      let why: String
      switch error {
      case .noSocketPair(let failure): why = "\(failure)"
      case .noThread: why = "no thread"
      }
      later(done, .failure(SocketAddress.ResolveError(description: "resolve \(host): \(why)")))
    }
  }

  /// `outcome` to `done` on the next loop iteration, unless a newer lookup or `cancel` came.
  private func later(_ done: @escaping (Outcome) -> Void, _ outcome: Outcome) {
    let current = generation
    loop.soon { [weak self] in
      guard let self, self.generation == current else { return }
      done(outcome)
    }
  }

  /// Abandons the lookup in progress, if any: its `done` is never called.
  func cancel() {
    generation += 1
    worker.cancel()
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
