import CLocShim
import Glibc
import LocCore
import LocSystem
import Testing

/// Collects what a source reports.
final class Recorder {
  var fixes: [Fix] = []
  var updates: [(snapshot: SourceSnapshot, restarted: Bool)] = []
  var logs: [(level: LogLevel, message: String)] = []

  var sink: SourceSink {
    SourceSink(
      fix: { [unowned self] fix, _, _, _ in self.fixes.append(fix) },
      update: { [unowned self] snapshot, restarted in self.updates.append((snapshot, restarted)) },
      log: { [unowned self] level, message in self.logs.append((level, message)) })
  }
}

/// Runs `loop` until `condition` holds or `seconds` pass; true if it held.
@discardableResult func pump(_ loop: EventLoop, seconds: Double = 5, until condition: () -> Bool) -> Bool {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  let deadline = Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9 + seconds
  while true {
    if condition() { return true }
    clock_gettime(CLOCK_MONOTONIC, &ts)
    if Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9 > deadline { return false }
    loop.runOnce(timeoutMicroseconds: 10_000)
  }
}

/// A counter of a snapshot, by name.
func counter(_ snapshot: SourceSnapshot, _ name: String) -> Int? {
  snapshot.counters.first { $0.name == name }?.value
}

/// `$BODY*hh` with its checksum (NMEA 0183: XOR of the bytes between `$` and `*`), CR LF.
func sentence(_ body: String) -> String {
  let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
  let hex = String(sum, radix: 16, uppercase: true)
  return "$\(body)*\(hex.count == 1 ? "0" + hex : hex)\r\n"
}

/// A TCP server on 127.0.0.1 playing the peer of a source: non-blocking, driven by the test.
final class FakePeerServer {
  let fd: Int32
  let port: Int

  init() throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    self.fd = fd
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    let r = withUnsafePointer(to: &addr) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard r == 0, listen(fd, 8) == 0 else { throw Errno(call: "bind/listen", code: errno) }
    var bound = sockaddr_in()
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &bound) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
    }
    port = Int(UInt16(bigEndian: bound.sin_port))
  }

  deinit { close(fd) }

  /// A pending connection (non-blocking), or -1.
  func acceptOne() -> Int32 {
    let c = locshim_accept4(fd, Int32(SOCK_NONBLOCK.rawValue))
    return c
  }

  /// Writes all of `text` to `peer`; records an issue (never hangs) when the peer is not
  /// connected, the write fails or the peer does not take the bytes within 10 s.
  func send(_ peer: Int32, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard peer >= 0 else {
      Issue.record("send: no peer connected", sourceLocation: sourceLocation)
      return
    }
    var bytes = Array(text.utf8)[...]
    var waited = 0
    while !bytes.isEmpty {
      let n = bytes.withUnsafeBytes { write(peer, $0.baseAddress, $0.count) }
      if n > 0 {
        bytes = bytes.dropFirst(n)
      } else if n < 0 && errno != EAGAIN && errno != EINTR {
        Issue.record("send: \(String(cString: strerror(errno)))", sourceLocation: sourceLocation)
        return
      } else {
        guard waited < 100 else {
          Issue.record("send: the peer did not read for 10 s", sourceLocation: sourceLocation)
          return
        }
        var p = pollfd(fd: peer, events: Int16(POLLOUT), revents: 0)
        _ = poll(&p, 1, 100)
        waited += 1
      }
    }
  }

  /// Whatever `peer` sent so far (non-blocking).
  func read(_ peer: Int32) -> String {
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = chunk.withUnsafeMutableBytes { Glibc.read(peer, $0.baseAddress, $0.count) }
      guard n > 0 else { break }
      out += chunk[0..<n]
    }
    return String(decoding: out, as: UTF8.self)
  }
}

/// A GpsdSource on a fresh event loop, connected to a fake gpsd that has accepted it.
/// The caller stops the source.
struct FakeGpsdClient {
  let loop: EventLoop
  let server: FakePeerServer
  let recorder: Recorder
  let source: GpsdSource
  let peer: Int32

  init(nmea: Bool) throws {
    loop = try EventLoop()
    server = try FakePeerServer()
    recorder = Recorder()
    source = GpsdSource(
      id: SourceID(0), host: "127.0.0.1", port: server.port, nmea: nmea, loop: loop, sink: recorder.sink)
    source.start()
    var accepted: Int32 = -1
    let server = self.server
    pump(loop) {
      accepted = server.acceptOne()
      return accepted >= 0
    }
    guard accepted >= 0 else {
      source.stop()
      throw FakeGpsdError.notConnected
    }
    peer = accepted
  }

  enum FakeGpsdError: Error { case notConnected }
}
