import CLocShim
import LocCore

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
  private var live: LiveDecoder!
  /// The bound socket and its retries.
  private let binding: SocketBinding
  private var datagrams = 0
  private var bytes = 0
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
    self.binding = SocketBinding(
      uri: uri, host: address, port: port, socketType: SocketAddress.datagramSocket, loop: loop, sink: sink)
    self.live = LiveDecoder(
      loop: loop, gpsdJSON: false, onSky: { [unowned self] sky in self.sink.sky(sky, self.id) }
    ) { [unowned self] fix, start in self.sink.fix(fix, self.id, nil, start) }
    live.relay = { [unowned self] line in self.sink.sentence(line, self.id) }
    live.logSilences(of: "source \(uri)", to: sink.log) { [unowned self] in
      self.sink.update(self.snapshot, false)
    }
    binding.handlers = SocketBinding.Handlers(
      open: { [unowned self] address throws(Errno) in
        let socket = try InetSocket.bound(address, flags: InetSocket.datagramFlags)
        return try self.loop.watch(socket, events: Epoll.input) { [weak self] _ in self?.receive() }
      },
      bound: { [unowned self] address in
        self.sink.log(.info, "source \(self.uri) receiving on \(address)")
        self.live.begin()
        self.sink.update(self.snapshot, true)
      },
      snapshot: { [unowned self] in self.snapshot })
  }

  public var snapshot: SourceSnapshot {
    SourceSnapshot(
      id: id, uri: uri, state: binding.state,
      counters: live.counters.sourceCounters + [
        Counter("silences", live.silences), Counter("datagrams", datagrams), Counter("bytes", bytes),
        Counter("idleBytes", live.ignoredBytes), Counter("idleLines", live.ignoredLines),
      ], lastError: binding.lastError, trust: trust, fault: live.fault)
  }

  public func start() { binding.start() }

  public func setSkiesWanted(_ wanted: Bool) { live.assemblesSkies = wanted }

  public func setActive(_ active: Bool) {
    if active { live.resume() } else { live.pause() }
  }

  public func stop() {
    binding.stop()
    live.stop()
  }

  private func receive() {
    guard let watch = binding.watch else { return }
    for _ in 0..<NMEAUDPSource.datagramsPerWakeup {
      // Stopped from inside `feed` (the watch was dropped): read no more.
      guard binding.watch === watch else { return }
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
