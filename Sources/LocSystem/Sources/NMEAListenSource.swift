import CLocShim
import LocCore

#if canImport(Glibc)
  import Glibc
#endif

/// `nmea+tcp-listen://ADDR:PORT`: listens for peers that send NMEA (a phone app in "client"
/// mode, `gpspipe -r | nc`), on loopback unless the URI names another address. Up to
/// `maxPeers` connections at once, each with its own decoder (their lines never mix); one
/// more is accepted and closed at once, and counted. A peer's end, mid-line or not, costs
/// only its half line. If the address cannot be bound (port taken, address not yet
/// configured), binding is retried with backoff. While acquisition is idle peers stay
/// connected and their input is read and ignored (counted in `idleBytes`, `idleLines`).
public final class NMEAListenSource: FixSource {
  /// Peers served at once. A receiver is one peer; a few more allow a reconnecting phone
  /// whose old connection has not timed out yet, and a second device.
  public static let maxPeers = 4

  /// A peer that has sent NMEA within this long is never evicted for a newcomer.
  static let evictAfterMicroseconds: UInt64 = 5_000_000
  /// A peer that has sent nothing yet keeps its slot this long after connecting (a receiver
  /// sends within a second).
  static let muteGraceMicroseconds: UInt64 = 2_000_000

  /// One accepted connection; its watch owns the socket.
  final class Peer {
    let address: SocketAddress
    var watch: IOWatch?
    let live: LiveDecoder
    /// When it connected (monotonic microseconds).
    let connectedAt: UInt64
    /// When it last sent a decoded sentence (or, while idle, a line); nil: never.
    var lastActiveAt: UInt64?
    /// Sentences and idle lines so far, to see progress.
    var progress = 0

    init(address: SocketAddress, live: LiveDecoder, at now: UInt64) {
      self.address = address
      self.live = live
      self.connectedAt = now
    }
  }

  public let id: SourceID
  let uri: String
  /// Who can put fixes into it (`SourceURI.trust`).
  let trust: SourceTrust
  let host: String
  let port: Int
  let loop: EventLoop
  let sink: SourceSink
  /// The listening socket and its retries.
  private let binding: SocketBinding
  private var peers: [Peer] = []
  /// Counts of peers that left.
  private var ended = NMEACounters()
  private var endedSilences = 0
  private var endedIgnored = (bytes: 0, lines: 0)
  private var active = true
  private var accepted = 0
  private var refused = 0
  /// Peers closed to make room for a newcomer (`evictable`).
  private var evicted = 0
  private var disconnects = 0
  private var bytes = 0
  /// One buffer for every peer: they are read one at a time.
  private let reader = ReadBuffer(
    chunkSize: StreamConnection.readChunk, maxBytesPerWakeup: StreamConnection.readBytesPerWakeup)

  /// A listener on `address`:`port`.
  public init(id: SourceID, address: String, port: Int, loop: EventLoop, sink: SourceSink) {
    self.id = id
    self.host = address
    self.port = port
    self.loop = loop
    self.sink = sink
    self.uri = SourceURI.nmeaTCPListen(address: address, port: port).description
    self.trust = SourceURI.nmeaTCPListen(address: address, port: port).trust
    self.binding = SocketBinding(
      uri: uri, host: address, port: port, socketType: Int32(SOCK_STREAM.rawValue), loop: loop, sink: sink)
    binding.handlers = SocketBinding.Handlers(
      open: { [unowned self] address throws(Errno) in
        try self.loop.watch(InetSocket.listening(address), events: Epoll.input) { [weak self] _ in
          self?.acceptAll()
        }
      },
      bound: { [unowned self] address in
        self.sink.log(
          .info, "source \(self.uri) listening on \(address) (up to \(NMEAListenSource.maxPeers) peers)")
        self.sink.update(self.snapshot, false)
      },
      snapshot: { [unowned self] in self.snapshot })
  }

  public var snapshot: SourceSnapshot {
    var total = ended
    var silences = endedSilences
    var ignored = endedIgnored
    for peer in peers {
      total.add(peer.live.counters)
      silences += peer.live.silences
      ignored.bytes += peer.live.ignoredBytes
      ignored.lines += peer.live.ignoredLines
    }
    let counters =
      total.sourceCounters + [Counter("silences", silences)]
      + [
        Counter("peers", peers.count), Counter("accepted", accepted), Counter("refusedPeers", refused),
        Counter("evictedPeers", evicted),
        Counter("disconnects", disconnects), Counter("bytes", bytes),
        Counter("idleBytes", ignored.bytes), Counter("idleLines", ignored.lines),
      ]
    return SourceSnapshot(
      id: id, uri: uri, state: binding.state, counters: counters, lastError: binding.lastError, trust: trust)
  }

  public func start() { binding.start() }

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

  private func acceptAll() {
    guard let listener = binding.watch else { return }
    // A bounded batch per wakeup; the rest wait for the next iteration.
    for _ in 0..<16 {
      var address = SocketAddress()
      let incoming: FileDescriptor?
      do { incoming = try listener.descriptor.accept(peer: &address) } catch { return }
      guard let socket = incoming else { return }
      if peers.count >= NMEAListenSource.maxPeers, let victim = evictable() {
        evicted += 1
        close(victim, reason: "evicted for \(address): it sent no NMEA lately")
      }
      guard peers.count < NMEAListenSource.maxPeers else {
        _ = consume socket  // closed at once
        refused += 1
        sink.log(
          refused == 1 ? .notice : .debug,
          "source \(uri): refused \(address): already \(NMEAListenSource.maxPeers) peers sending NMEA")
        continue
      }
      InetSocket.enableKeepAlive(socket)
      let live = LiveDecoder(loop: loop, gpsdJSON: false) { [unowned self] fix in self.sink.fix(fix, self.id)
      }
      let peer = Peer(address: address, live: live, at: loop.monotonicMicroseconds)
      live.logSilences(of: "source \(uri): \(address)", to: sink.log)
      do {
        peer.watch = try loop.watch(socket, events: Epoll.input) { [weak self, unowned peer] _ in
          self?.read(peer)
        }
      } catch {
        continue
      }
      peers.append(peer)
      accepted += 1
      live.begin()
      if !active { live.pause() }
      sink.log(.info, "source \(uri): peer \(address) connected")
      sink.update(snapshot, true)
    }
  }

  private func read(_ peer: Peer) {
    guard let watch = peer.watch else { return }
    let outcome = reader.readAvailable(from: watch.descriptor) { chunk in
      bytes += chunk.count
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

  /// The peer a newcomer may replace when all slots are taken, so that connections that
  /// send nothing cannot lock the receiver out: the oldest of those that sent no sentence
  /// in the `muteGraceMicroseconds` since they connected, else the one silent longest if
  /// that is more than `evictAfterMicroseconds`. A peer sending NMEA keeps its slot.
  private func evictable() -> Peer? {
    let now = loop.monotonicMicroseconds
    let mute = peers.filter {
      $0.lastActiveAt == nil && now - $0.connectedAt > NMEAListenSource.muteGraceMicroseconds
    }
    if let oldest = mute.min(by: { $0.connectedAt < $1.connectedAt }) { return oldest }
    guard let quiet = peers.min(by: { ($0.lastActiveAt ?? 0) < ($1.lastActiveAt ?? 0) }),
      let last = quiet.lastActiveAt, now - last > NMEAListenSource.evictAfterMicroseconds
    else { return nil }
    return quiet
  }

  /// Ends a peer; `reason` nil when locd stops.
  private func close(_ peer: Peer, reason: String?) {
    peer.watch?.cancel()
    peer.watch = nil  // closes the socket
    peer.live.end()
    peer.live.stop()
    ended.add(peer.live.counters)
    endedSilences += peer.live.silences
    endedIgnored.bytes += peer.live.ignoredBytes
    endedIgnored.lines += peer.live.ignoredLines
    peers.removeAll { $0 === peer }
    guard let reason else { return }
    disconnects += 1
    sink.log(.info, "source \(uri): peer \(peer.address) \(reason)")
    sink.update(snapshot, false)
  }
}
