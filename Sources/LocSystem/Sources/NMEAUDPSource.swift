import CLocShim
import LocCore

#if canImport(Glibc)
  import Glibc
#endif

/// `nmea+udp://ADDR:PORT`: receives NMEA datagrams (gpsd's gps2udp, OpenCPN, boat
/// multiplexers, phone apps), on loopback unless the URI names another address. A datagram
/// holds one or more lines; its end also ends a line, so a sentence sent without CR LF is not
/// glued to the next datagram. One decoder for all senders: one receiver per port. Memory is
/// bounded by one 64 KiB receive buffer (a datagram cannot be larger) and by the kernel's
/// socket buffer; at most `datagramsPerWakeup` are handled per loop iteration. While
/// acquisition is idle datagrams are still read (the socket stays bound, so senders get no
/// ICMP errors) but ignored, and counted in `idleBytes`, `idleLines`.
public final class NMEAUDPSource: FixSource {
  /// Datagrams read per wakeup before letting the loop serve others.
  static let datagramsPerWakeup = 64

  public let id: SourceID
  let uri: String
  /// Who can put fixes into it (`SourceURI.trust`).
  let trust: SourceTrust
  let host: String
  let port: Int
  let loop: EventLoop
  let sink: SourceSink
  private let resolver: HostResolver
  private var live: LiveDecoder!
  /// The bound socket, owned by its watch.
  private var watch: IOWatch?
  private var retry: BindRetry?
  private var stopped = false
  private var datagrams = 0
  private var bytes = 0
  private var state: SourceState = .starting
  private var lastError: String?
  // 65,535 bytes: the largest UDP payload is 65,507 (IPv4) or 65,527 (IPv6), RFC 768 / RFC 8200.
  private var buffer = [UInt8](repeating: 0, count: 65_536)
  private static let newline: [UInt8] = [0x0A]

  /// A receiver bound to `address`:`port`.
  public init(id: SourceID, address: String, port: Int, loop: EventLoop, sink: SourceSink) {
    self.id = id
    self.host = address
    self.port = port
    self.loop = loop
    self.sink = sink
    self.uri = SourceURI.nmeaUDP(address: address, port: port).description
    self.trust = SourceURI.nmeaUDP(address: address, port: port).trust
    self.resolver = HostResolver(loop: loop)
    self.live = LiveDecoder(loop: loop, gpsdJSON: false) { [unowned self] fix in self.sink.fix(fix, self.id) }
    live.logSilences(of: "source \(uri)", to: sink.log)
  }

  public var snapshot: SourceSnapshot {
    SourceSnapshot(
      id: id, uri: uri, state: state,
      counters: live.counters.sourceCounters + [
        Counter("silences", live.silences), Counter("datagrams", datagrams), Counter("bytes", bytes),
        Counter("idleBytes", live.ignoredBytes), Counter("idleLines", live.ignoredLines),
      ], lastError: lastError, trust: trust)
  }

  public func start() {
    stopped = false
    do {
      retry = try BindRetry(loop: loop) { [weak self] in self?.bind() }
    } catch {
      lastError = "timer: \(error)"
      state = .failed
      sink.update(snapshot, false)
      return
    }
    bind()
  }

  public func setActive(_ active: Bool) {
    if active { live.resume() } else { live.pause() }
  }

  public func stop() {
    stopped = true
    resolver.cancel()
    retry?.cancel()
    retry = nil
    watch?.cancel()
    watch = nil  // closes the socket
    live.stop()
  }

  private func bind() {
    resolver.resolve(host: host, port: port, socketType: Int32(SOCK_DGRAM.rawValue), passive: true) {
      [weak self] outcome in
      guard let self, !self.stopped else { return }
      switch outcome {
      case .failure(let error):
        self.failed(error.description)
      case .success(let addresses):
        do throws(Errno) {
          let socket = try InetSocket.bound(addresses[0], flags: InetSocket.datagramFlags)
          self.watch = try self.loop.watch(socket, events: Epoll.input) { [weak self] _ in self?.receive() }
        } catch {
          self.watch = nil
          self.failed(error.description)
          return
        }
        let bound =
          self.watch?.descriptor.localAddress().map { $0.description } ?? "\(self.host):\(self.port)"
        self.sink.log(.info, "source \(self.uri) receiving on \(bound)")
        self.retry?.succeeded()
        self.lastError = nil
        self.state = .connected
        self.live.begin()
        self.sink.update(self.snapshot, true)
      }
    }
  }

  private func failed(_ reason: String) {
    lastError = reason
    guard !stopped, let retry else { return }
    state = .reconnecting(retryAt: retry.failed(reason, source: uri, log: sink.log))
    sink.update(snapshot, false)
  }

  private func receive() {
    guard let watch else { return }
    for _ in 0..<NMEAUDPSource.datagramsPerWakeup {
      // Stopped from inside `feed` (the watch was dropped): read no more.
      guard self.watch === watch else { return }
      let received: Int?
      do {
        received = try buffer.withUnsafeMutableBytes { raw in
          Result { () throws(Errno) in try watch.descriptor.receive(into: raw) }
        }.get()
      } catch {
        return  // a transient error (an ICMP-reported one) that costs nothing
      }
      guard let n = received else { return }  // none queued
      datagrams += 1
      bytes += n
      guard n > 0 else { continue }
      buffer.withUnsafeBytes { live.feed(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
      if buffer[n - 1] != 0x0A && buffer[n - 1] != 0x0D {
        NMEAUDPSource.newline.withUnsafeBytes { live.feed($0) }
      }
    }
  }
}
