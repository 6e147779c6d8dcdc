import Foundation
import Glibc
import LocCore
import LocProtocol

/// A locd with its gpsd face on (`[Gpsd]`, a Unix socket and a loopback port), replaying a log
/// of Tests/Fixtures, and the real gpsd clients run against it.
final class GpsdFaceRig {
  let daemon: LocdProcess
  let port: Int
  let gpsdSocket: String
  let log: String

  /// Starts locd replaying `log` (looping, `speed` times real time) with the face on.
  init(log: String = "nmea/bu353s4.log", speed: Int = 4, extraConfig: String = "") throws {
    let dir = LocdProcess.makeDirectory()
    port = freePort()
    gpsdSocket = dir + "/gpsd.sock"
    self.log = Binaries.fixture(log).path
    let config = "[Gpsd]\nEnable=yes\nSocket=\(gpsdSocket)\nListenPort=\(port)\n" + extraConfig
    daemon = try LocdProcess(
      arguments: ["--source", "replay:\(self.log)?speed=\(speed)&loop=1"], directory: dir, config: config)
  }

  /// A program's standard output written to a file while it runs (gpspipe without `-n`).
  final class Capture {
    let child: Child
    let path: String
    init(_ program: String, _ arguments: [String], path: String) throws {
      self.path = path
      let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
      defer { close(fd) }
      child = try Child(program, arguments, stdoutFD: fd)
    }
    /// The lines written so far.
    var lines: [String] {
      ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(whereSeparator: \.isNewline).map(
        String.init)
    }
    /// The JSON objects of `class` written so far.
    func reports(_ kind: String) -> [JSON] {
      lines.compactMap { try? JSON.parse($0) }.filter { $0["class"]?.string == kind }
    }
    /// Waits until `condition` holds for the lines (deadline: it fails the test, not a timing).
    func wait(timeout: Double = 40, _ condition: ([String]) -> Bool) throws {
      let deadline = Date().addingTimeInterval(timeout)
      while !condition(lines) {
        guard Date() < deadline else { throw HarnessError("not seen in \(path): \(lines.suffix(5))") }
        usleep(50_000)
      }
    }
    func stop() {
      if child.isRunning { kill(child.pid, SIGTERM) }
      child.wait(timeout: 5)
    }
    deinit { stop() }
  }

  /// `gpspipe ARGS 127.0.0.1:PORT` as `uid` (nil: as the test runs), captured.
  func gpspipe(_ arguments: [String], uid: UInt32? = nil, name: String) throws -> Capture {
    let path = daemon.directory + "/\(name).out"
    let target = "127.0.0.1:\(port)"
    if let uid {
      return try Capture(
        "/usr/bin/setpriv",
        ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--", "/usr/bin/gpspipe"] + arguments + [
          target
        ],
        path: path)
    }
    return try Capture("/usr/bin/gpspipe", arguments + [target], path: path)
  }

  /// The log's fixes as locd's own decoder reads them, by time.
  func logFixes() throws -> [Instant: Fix] {
    try GpsdFaceRig.decode(try String(contentsOfFile: log, encoding: .isoLatin1))
  }

  /// locd replaying the BU-353S4 log at 4x, looped, with NMEA out's pty in `dir` and its
  /// TCP port on `port` (Group= empty: the daemon's); the daemon once NMEA out is up, and the
  /// log's path.
  static func nmeaOutReplay(dir: String, port: Int) throws -> (LocdProcess, String) {
    let log = Binaries.fixture("nmea/bu353s4.log").path
    let daemon = try LocdProcess(
      arguments: ["--source", "replay:\(log)?speed=4&loop=1"], directory: dir,
      config: "[NMEAOut]\nEnable=yes\nLink=\(dir)/nmea0\nGroup=\nListenPort=\(port)\n")
    _ = try daemon.waitForStatus { $0.nmeaOut != nil }
    return (daemon, log)
  }

  /// Fixes of NMEA text, by time (locd's decoder).
  static func decode(_ text: String) throws -> [Instant: Fix] {
    var decoder = NMEADecoder(referenceTime: Instant(secondsSinceEpoch: 1_420_000_000))
    var fixes: [Instant: Fix] = [:]
    let bytes = Array(text.utf8)
    bytes.withUnsafeBytes { b in decoder.feed(b) { fixes[$0.time] = $0 } }
    decoder.finish { fixes[$0.time] = $0 }
    return fixes
  }
}

/// Whether an NMEA sentence's checksum is right (NMEA 0183: XOR of the bytes between `$` and `*`).
func hasValidChecksum(_ sentence: String) -> Bool {
  let s = sentence.trimmingCharacters(in: .whitespacesAndNewlines)
  guard s.hasPrefix("$"), let star = s.lastIndex(of: "*") else { return false }
  let body = s[s.index(after: s.startIndex)..<star]
  var sum: UInt8 = 0
  for b in body.utf8 { sum ^= b }
  return String(s[s.index(after: star)...]).uppercased() == String(format: "%02X", sum)
}
