import CLocShim
import Foundation
import Glibc
import LocCore
import LocProtocol
import LocSystem

// Peers for the live sources: TCP servers and clients, UDP senders, a pseudo-terminal posing
// as a serial receiver, synthetic NMEA, a background `locctl watch --json`.

/// A port that was free on loopback a moment ago (bound to port 0, then released).
func freePort(datagram: Bool = false) -> Int {
  guard let port = InetSocket.freeLoopbackPort(datagram: datagram) else {
    fatalError("no free loopback port")
  }
  return port
}

/// A socket address for a loopback or literal host (getaddrinfo with AI_NUMERICHOST).
func socketAddress(_ host: String, _ port: Int, datagram: Bool = false) throws -> (Int32, [UInt8]) {
  var hints = addrinfo()
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
  hints.ai_socktype = datagram ? Int32(SOCK_DGRAM.rawValue) : Int32(SOCK_STREAM.rawValue)
  var list: UnsafeMutablePointer<addrinfo>? = nil
  guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
    throw HarnessError("getaddrinfo \(host)")
  }
  defer { freeaddrinfo(list) }
  let bytes = Array(
    UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
  return (first.pointee.ai_family, bytes)
}

/// A listening TCP socket that locd connects to (`nmea+tcp://`).
final class TestServer {
  let fd: Int32
  let port: Int

  init(host: String = "127.0.0.1") throws {
    let (family, address) = try socketAddress(host, 0)
    let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    self.fd = fd
    var on: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(4))
    let r = address.withUnsafeBytes {
      bind(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
    }
    guard r == 0, listen(fd, 8) == 0 else {
      throw HarnessError("bind \(host): \(String(cString: strerror(errno)))")
    }
    var storage = sockaddr_storage()
    var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
    _ = withUnsafeMutablePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
    }
    // sin_port and sin6_port sit at the same offset, right after the family.
    port = withUnsafeBytes(of: &storage) { Int(UInt16($0[2]) << 8 | UInt16($0[3])) }
  }

  deinit { close(fd) }

  /// The next connection (blocking, `timeout` seconds at most).
  func accept(timeout: Double = 10) throws -> Int32 {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&p, 1, Int32(timeout * 1000)) == 1 else {
      throw HarnessError("nobody connected within \(timeout) s")
    }
    let c = locshim_accept4(fd, Int32(SOCK_CLOEXEC.rawValue))
    guard c >= 0 else { throw HarnessError("accept: \(String(cString: strerror(errno)))") }
    return c
  }
}

/// Connects to `host`:`port`, retrying while nobody listens yet (`timeout` seconds).
func connectTCP(_ host: String, _ port: Int, timeout: Double = 10) throws -> Int32 {
  let (family, address) = try socketAddress(host, port)
  let deadline = Date().addingTimeInterval(timeout)
  while true {
    let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    let r = address.withUnsafeBytes {
      connect(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
    }
    if r == 0 { return fd }
    close(fd)
    guard Date() < deadline else {
      throw HarnessError("connect \(host):\(port): \(String(cString: strerror(errno)))")
    }
    usleep(20_000)
  }
}

/// Writes all of `bytes` to a blocking descriptor.
func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
  var offset = 0
  while offset < bytes.count {
    let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
    guard n > 0 else { throw HarnessError("write: \(String(cString: strerror(errno)))") }
    offset += n
  }
}

func writeAll(_ fd: Int32, _ text: String) throws { try writeAll(fd, Array(text.utf8)) }

/// Sends one datagram to `host`:`port`.
func sendDatagram(_ host: String, _ port: Int, _ bytes: [UInt8]) throws {
  let (family, address) = try socketAddress(host, port, datagram: true)
  let fd = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
  defer { close(fd) }
  let n = address.withUnsafeBytes { a in
    bytes.withUnsafeBytes { b in
      sendto(
        fd, b.baseAddress, b.count, 0, a.baseAddress!.assumingMemoryBound(to: sockaddr.self),
        socklen_t(a.count))
    }
  }
  guard n == bytes.count else { throw HarnessError("sendto: \(String(cString: strerror(errno)))") }
}

/// A pseudo-terminal posing as a serial GPS receiver: locd opens `path` (the slave side);
/// the test writes to the master. Closing the master is an unplug.
final class FakeSerialDevice {
  let master: Int32
  let path: String

  init() throws {
    var name = [CChar](repeating: 0, count: 128)
    master = locshim_openpty(&name, name.count)
    guard master >= 0 else { throw HarnessError("openpty: \(String(cString: strerror(errno)))") }
    path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  deinit { unplug() }

  private(set) var unplugged = false

  /// Writes `text` (blocking).
  func write(_ text: String) throws { try writeAll(master, text) }

  /// The slave side's settings as locd left them (TCGETS on a pty master reads the slave's).
  var settings: termios {
    var t = termios()
    tcgetattr(master, &t)
    return t
  }

  /// Closes the master side: whoever reads the slave gets EIO, as when a USB receiver is pulled.
  func unplug() {
    guard !unplugged else { return }
    unplugged = true
    close(master)
  }
}

/// `$BODY*hh` with its checksum (NMEA 0183: XOR of the bytes between `$` and `*`), CR LF.
func nmea(_ body: String) -> String {
  let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
  return "$\(body)*\(String(format: "%02X", sum))\r\n"
}

/// One receiver cycle (RMC + GGA) at `time`, at a point `index` × 10 m north of 59.9 N 10.7 E.
func epoch(at time: Date, index: Int, quality: Int = 1) -> String {
  var calendar = Calendar(identifier: .gregorian)
  calendar.timeZone = TimeZone(identifier: "UTC")!
  let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: time)
  let hms = String(format: "%02d%02d%02d.00", c.hour!, c.minute!, c.second!)
  let dmy = String(format: "%02d%02d%02d", c.day!, c.month!, c.year! % 100)
  let minutes = 54.0 + Double(index) * 10 / 1852  // one minute of latitude is 1852 m
  let lat = String(format: "59%07.4f", minutes)
  return nmea("GPRMC,\(hms),A,\(lat),N,01042.0000,E,0.4,0.0,\(dmy),,,A")
    + nmea("GPGGA,\(hms),\(lat),N,01042.0000,E,\(quality),08,0.9,20.5,M,18.0,M,,")
}

/// The sentences of `text`, each with its CR LF.
func sentences(_ text: String) -> [String] {
  text.components(separatedBy: "\r\n").filter { !$0.isEmpty }.map { $0 + "\r\n" }
}

/// `count` cycles one second apart, ending `endingSecondsAgo` before now.
func epochs(_ count: Int, endingSecondsAgo: Double = 1, firstIndex: Int = 0) -> String {
  let start = Date().addingTimeInterval(-endingSecondsAgo - Double(count - 1)).timeIntervalSince1970.rounded(
    .down)
  return (0..<count).map {
    epoch(at: Date(timeIntervalSince1970: start + Double($0)), index: firstIndex + $0)
  }
  .joined()
}

/// `locctl watch --json` (or, with `json: false`, the text watch) running in the background
/// into a file: the fixes locd accepted, or the lines it printed.
final class FixWatcher {
  let child: Child
  let path: String

  init(_ daemon: LocdProcess, json: Bool = true) throws {
    path = daemon.directory + "/watch-\(UUID().uuidString)" + (json ? ".jsonl" : ".txt")
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    defer { close(fd) }
    child = try Child(
      "/usr/bin/setpriv",
      ["--pdeathsig", "KILL", "--", Binaries.locctl.path, "--socket", daemon.socketPath, "watch"]
        + (json ? ["--json"] : []),
      stdoutFD: fd)
  }

  /// What the watch printed so far.
  var text: String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

  /// Waits until the text holds `line` (the deadline fails the test; it is no timing).
  func wait(for line: String, timeout: Double = 30) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !text.contains(line) {
      guard Date() < deadline else { throw HarnessError("'\(line)' not in the watch: \(text.suffix(800))") }
      usleep(50_000)
    }
  }

  deinit { stop() }

  func stop() {
    if child.isRunning { kill(child.pid, SIGTERM) }
    child.wait(timeout: 5)
  }

  /// `data.fix` of every location event so far, once per fix time, in order.
  var fixes: [FixView] {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    var seen = Set<Instant>()
    var out: [FixView] = []
    for line in text.split(separator: "\n") {
      guard case .event(let event)? = try? ServerMessage.decode(Array(line.utf8)),
        case .location(let location) = event.data, let fix = location.fix
      else { continue }
      if seen.insert(fix.time).inserted { out.append(fix) }
    }
    return out
  }

  /// Waits until the watch has subscribed (its first event, the current answer, is in).
  func waitUntilSubscribed(timeout: Double = 10) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").isEmpty {
      guard Date() < deadline, child.isRunning else { throw HarnessError("locctl watch did not subscribe") }
      usleep(20_000)
    }
  }

  /// Waits until `condition` holds for the fixes (`timeout` seconds at most).
  @discardableResult func wait(timeout: Double = 10, _ condition: ([FixView]) -> Bool) throws -> [FixView] {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      let f = fixes
      if condition(f) { return f }
      guard Date() < deadline else { throw HarnessError("watch: condition not met; \(f.count) fixes") }
      usleep(50_000)
    }
  }
}

/// The resident set size of `pid` in KiB (VmRSS in /proc/PID/status).
func residentKiB(_ pid: pid_t) -> Int {
  let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
  for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
  }
  return 0
}

extension LocdProcess {
  /// Polls until source `index`'s counters satisfy `condition`; returns them.
  @discardableResult func waitForCounters(
    source index: Int = 0, timeout: Double = 10, _ condition: ([String: Int]) -> Bool
  ) throws -> [String: Int] {
    try waitForStatus(timeout: timeout) { condition($0.counters(source: index)) }.counters(source: index)
  }
}
