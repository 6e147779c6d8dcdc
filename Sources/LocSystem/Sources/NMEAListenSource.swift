import CLocShim
import LocCore

/// `nmea+tcp-listen://ADDR:PORT` and `nmea+unix-listen://PATH`: listens for peers that send
/// NMEA (a phone app in "client" mode, `gpspipe -r | nc`, a bridge to a receiver), on loopback
/// unless the URI names another address. Up to `PeerSlotRule.maxPeers` connections at once,
/// each with its own decoder (their lines never mix), shared between users by
/// `PeerSlotRule`; each peer's uid is learned (SO_PEERCRED on the Unix socket,
/// NETLINK_SOCK_DIAG for a loopback TCP peer) and checked against `AllowUsers=` and
/// `AllowGroups=` (`PeerAdmission`). A refused peer is closed at once and counted. A peer's
/// end, mid-line or not, costs only its half line. If the socket cannot be made (port
/// taken, address not yet configured, directory missing), it is retried with backoff. While
/// acquisition is idle peers stay connected and their input is read and ignored (counted in
/// `idleBytes`, `idleLines`).
public final class NMEAListenSource: FixSource {
  /// Where it listens.
  public enum Endpoint: Sendable, Equatable {
    /// A TCP address and port.
    case tcp(address: String, port: Int)
    /// A Unix socket file.
    case unix(path: String)
  }

  /// Mode of the Unix socket file: only locd's own uid (and root) can connect unless
  /// `AllowUsers=`/`AllowGroups=` is set, when anyone can and each peer's uid decides.
  static func unixSocketMode(restricted: Bool) -> UInt32 { restricted ? 0o666 : 0o600 }

  /// One accepted connection; its watch owns the socket.
  final class Peer {
    /// `127.0.0.1:40312 (uid 1000)`, `uid 1000 pid 4242`: for the log.
    let label: String
    /// Its uid; nil when it could not be learned.
    let uid: UInt32?
    /// Root or locd's own uid.
    let privileged: Bool
    var watch: IOWatch?
    let live: LiveDecoder
    /// When it connected (monotonic microseconds).
    let connectedAt: UInt64
    /// When it last sent a decoded sentence (or, while idle, a line); nil: never.
    var lastActiveAt: UInt64?
    /// Sentences and idle lines so far, to see progress.
    var progress = 0

    init(label: String, uid: UInt32?, privileged: Bool, live: LiveDecoder, at now: UInt64) {
      self.label = label
      self.uid = uid
      self.privileged = privileged
      self.live = live
      self.connectedAt = now
    }

    /// As the slot rule sees it.
    var occupant: PeerSlotRule.Occupant {
      PeerSlotRule.Occupant(
        uid: uid, privileged: privileged, connectedAt: connectedAt, lastActiveAt: lastActiveAt)
    }
  }

  public let id: SourceID
  let uri: String
  let endpoint: Endpoint
  /// Who can put fixes into it (`SourceURI.trust(peersRestricted:)`).
  let trust: SourceTrust
  let loop: EventLoop
  let sink: SourceSink
  /// The listening socket and its retries (set once in init).
  var binding: ListenerBinding!
  var peers: [Peer] = []
  /// The decoders' counts of peers that left.
  private var ended = DecoderTotals()
  var active = true
  /// Whether the peers' decoders assemble skies (`setSkiesWanted`).
  /// Peers accepted, refused, evicted and gone, and their bytes.
  var tally = ListenCounters()
  /// One buffer for every peer: they are read one at a time.
  private let reader = ReadBuffer(
    chunkSize: StreamConnection.readChunk, maxBytesPerWakeup: StreamConnection.readBytesPerWakeup)

  /// A TCP listener on `address`:`port`.
  public convenience init(id: SourceID, address: String, port: Int, loop: EventLoop, sink: SourceSink) {
    self.init(id: id, endpoint: .tcp(address: address, port: port), loop: loop, sink: sink)
  }

  /// A listener at `endpoint`.
  public init(id: SourceID, endpoint: Endpoint, loop: EventLoop, sink: SourceSink) {
    self.id = id
    self.endpoint = endpoint
    self.loop = loop
    self.sink = sink
    let uri: SourceURI
    switch endpoint {
    case .tcp(let address, let port): uri = .nmeaTCPListen(address: address, port: port)
    case .unix(let path): uri = .nmeaUnixListen(path: path)
    }
    self.uri = uri.description
    self.trust = uri.trust(peersRestricted: sink.admission.restricted)
    switch endpoint {
    case .tcp(let address, let port): binding = tcpBinding(address: address, port: port)
    case .unix(let path): binding = unixBinding(path: path)
    }
  }

  private func tcpBinding(address: String, port: Int) -> SocketBinding {
    let binding = SocketBinding(
      uri: uri, host: address, port: port, socketType: SocketAddress.streamSocket, loop: loop, sink: sink)
    binding.handlers = SocketBinding.Handlers(
      open: { [unowned self] address throws(Errno) in
        try self.loop.watch(InetSocket.listening(address), events: Epoll.input) { [weak self] _ in
          self?.acceptAll()
        }
      },
      bound: { [unowned self] address in self.listening(on: address) },
      snapshot: { [unowned self] in self.snapshot })
    return binding
  }

  private func unixBinding(path: String) -> UnixBinding {
    UnixBinding(
      uri: uri, path: path, mode: NMEAListenSource.unixSocketMode(restricted: sink.admission.restricted),
      loop: loop, sink: sink,
      open: { [unowned self] socket throws(Errno) in
        try self.loop.watch(socket, events: Epoll.input) { [weak self] _ in self?.acceptAll() }
      },
      bound: { [unowned self] in self.listening(on: path) }, snapshot: { [unowned self] in self.snapshot })
  }

  private func listening(on address: String) {
    let who =
      sink.admission.restricted
      ? "root, locd and AllowUsers=/AllowGroups=" : (endpointIsUnix ? "root and locd only" : "any local user")
    sink.log(.info, "source \(uri) listening on \(address) (up to \(PeerSlotRule.maxPeers) peers; \(who))")
    sink.update(snapshot, false)
  }

  var endpointIsUnix: Bool {
    if case .unix = endpoint { return true }
    return false
  }

  public var snapshot: SourceSnapshot {
    var total = ended
    for peer in peers { total.add(peer.live) }
    let counters =
      total.decoding.sourceCounters + [Counter("silences", total.silences)]
      + tally.counters(peers: peers.count)
      + [Counter("idleBytes", total.ignoredBytes), Counter("idleLines", total.ignoredLines)]
    return SourceSnapshot(
      id: id, uri: uri, state: binding.state, counters: counters, lastError: binding.lastError, trust: trust,
      fault: silence)
  }

  /// The `silent` fault while every peer is silent (one still sending feeds the source);
  /// nil without peers: a listener waits for them, it is not silent.
  private var silence: SourceFault? {
    guard let first = peers.first?.live.fault, peers.allSatisfy(\.live.silent) else { return nil }
    guard peers.count > 1 else { return first }
    return SourceFault(
      kind: .silent, reason: "all \(peers.count) peers silent, \(first.reason)", since: first.since)
  }

  public func start() { binding.start() }

  public func setSkiesWanted(_ wanted: Bool) {
    for peer in peers { peer.live.assemblesSkies = wanted }
  }

  public func setActive(_ active: Bool) {
    self.active = active
    for peer in peers {
      if active { peer.live.resume() } else { peer.live.pause() }
    }
  }

  public func stop() {
    binding.stop()
    for peer in peers { close(peer, reason: nil) }
  }

  func read(_ peer: Peer) {
    guard let watch = peer.watch else { return }
    let outcome = reader.readAvailable(from: watch.descriptor) { chunk in
      tally.bytes += chunk.count
      peer.live.feed(chunk)
      return peer.watch != nil
    }
    let progress = peer.live.counters.sentences + peer.live.ignoredLines
    if progress > peer.progress {
      peer.progress = progress
      peer.lastActiveAt = loop.monotonicMicroseconds
    }
    switch outcome {
    case .endOfFile: close(peer, reason: "closed")
    case .failed(let error): close(peer, reason: error.description)
    case .wouldBlock, .shortRead, .budgetSpent, .stopped: break
    }
  }

  /// Ends a peer; `reason` nil when locd stops.
  func close(_ peer: Peer, reason: String?) {
    peer.watch?.cancel()
    peer.watch = nil  // closes the socket
    peer.live.end()
    peer.live.stop()
    ended.add(peer.live)
    peers.removeAll { $0 === peer }
    guard let reason else { return }
    tally.disconnects += 1
    sink.log(.info, "source \(uri): peer \(peer.label) \(reason)")
    sink.update(snapshot, false)
  }
}
