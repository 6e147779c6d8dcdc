import LocCore

/// Where a `StreamConnection` goes: its host and port, the addresses the host resolves to
/// (`HostResolver`, without blocking the loop; IPv4 and IPv6 in getaddrinfo's order), which
/// of them to try next, and why the latest attempt failed, which is the round's error once
/// every address has failed.
final class AddressDialer {
  let host: String
  let port: Int
  private let resolver: HostResolver
  private var addresses: [SocketAddress] = []
  private var nextIndex = 0
  /// Why the latest address of this round failed; "no address" before any was tried.
  private(set) var lastFailure = "no address"
  /// Whether every address of this round tried so far refused the connection (ECONNREFUSED:
  /// nothing listens there); false before any was tried.
  private(set) var everyAddressRefused = false

  /// A dialer for `host`:`port`, resolving on `loop`.
  init(host: String, port: Int, loop: EventLoop) {
    self.host = host
    self.port = port
    self.resolver = HostResolver(loop: loop)
  }

  /// Resolves the host afresh and starts a round over its addresses; `done` gets nil when
  /// they are ready to try (`next`), else why the lookup failed. Not called after `cancel`.
  func resolve(_ done: @escaping (String?) -> Void) {
    resolver.resolve(host: host, port: port, socketType: SocketAddress.streamSocket, passive: false) {
      [weak self] outcome in
      guard let self else { return }
      switch outcome {
      case .success(let list):
        self.addresses = list
        self.nextIndex = 0
        self.lastFailure = "no address"
        self.everyAddressRefused = !list.isEmpty
        done(nil)
      case .failure(let error):
        done(error.description)
      }
    }
  }

  /// The next address of the round, or nil when every one has been tried.
  func next() -> SocketAddress? {
    guard nextIndex < addresses.count else { return nil }
    nextIndex += 1
    return addresses[nextIndex - 1]
  }

  /// The attempt at the latest address failed with `reason`; `refused`: nothing listened there.
  func failed(_ reason: String, refused: Bool = false) {
    lastFailure = reason
    everyAddressRefused = everyAddressRefused && refused
  }

  /// Abandons a lookup in progress.
  func cancel() {
    resolver.cancel()
  }
}
