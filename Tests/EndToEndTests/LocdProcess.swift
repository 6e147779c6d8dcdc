import Foundation
import Glibc
import LocCore
import LocProtocol
import LocSystem

/// A real `locd` started from the build directory on a temporary socket and state
/// directory, with its stderr captured; stopped (SIGTERM) by `stop()` or at deinit.
final class LocdProcess {
  let directory: String
  let socketPath: String
  let stateDirectory: String
  let logPath: String
  private(set) var child: Child!
  /// The daemon's pid.
  var pid: pid_t { child.pid }
  private(set) var stopped = false

  /// Makes a fresh temporary directory (mode 0755, so other uids can reach the socket).
  static func makeDirectory() -> String {
    var template = Array("/tmp/locd-e2e-XXXXXX".utf8CString)
    guard mkdtemp(&template) != nil else { fatalError("mkdtemp failed") }
    let dir = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    chmod(dir, 0o755)
    return dir
  }

  /// Starts locd with `arguments` after the defaults (--config /dev/null, temp socket and
  /// state); `environment` adds variables. Waits until the socket answers unless `wait` is false.
  /// `launcher` runs first and execs the rest in place, so the pid stays locd's (a private
  /// network and /run: `PrivateHost.launcher`).
  init(
    arguments: [String] = [], environment: [String: String] = [:], directory: String? = nil,
    config: String? = nil, wait: Bool = true, launcher: [String] = []
  ) throws {
    self.directory = directory ?? LocdProcess.makeDirectory()
    socketPath = self.directory + "/locd.sock"
    stateDirectory = self.directory + "/state"
    logPath = self.directory + "/locd.log"
    var configPath = "/dev/null"
    if let config {
      configPath = self.directory + "/locd.conf"
      try config.write(toFile: configPath, atomically: true, encoding: .utf8)
    }
    let arguments =
      ["--config", configPath, "--socket", socketPath, "--state-dir", stateDirectory, "--log-level", "debug"]
      + arguments
    // Not truncated: a test may have created the file to learn its inode first.
    let logFD = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    defer { close(logFD) }
    // setpriv execs locd in place (same pid) after asking the kernel to kill it when the
    // test runner dies, so no daemon outlives a crashed or killed test run.
    let command =
      launcher + ["/usr/bin/setpriv", "--pdeathsig", "KILL", "--", Binaries.locd.path] + arguments
    child = try Child(command[0], Array(command.dropFirst()), environment: environment, stderrFD: logFD)
    if wait { try waitUntilServing() }
  }

  /// Polls until a connection to the socket gets the greeting (10 s at most).
  func waitUntilServing(timeout: Double = 10) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if let client = try? RawClient(path: socketPath), (try? client.readLine(timeout: 2)) != nil { return }
      guard child.isRunning else { throw HarnessError("locd exited early: \(log)") }
      usleep(20_000)
    }
    throw HarnessError("locd did not serve \(socketPath) within \(timeout) s: \(log)")
  }

  /// What locd logged so far.
  var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

  /// Runs locctl against this daemon.
  func locctl(_ arguments: [String], environment: [String: String] = [:]) throws -> Completed {
    try run(Binaries.locctl, ["--socket", socketPath] + arguments, environment: environment)
  }

  /// `locctl status --json`, decoded into the status view.
  func status() throws -> StatusView {
    let r = try locctl(["status", "--json"])
    guard r.status == 0 else { throw HarnessError("status failed: \(r.stderr)") }
    return try decodeOutput(r.stdout)
  }

  /// Polls `status` until `condition` holds (10 s at most).
  func waitForStatus(timeout: Double = 10, _ condition: (StatusView) -> Bool) throws -> StatusView {
    let deadline = Date().addingTimeInterval(timeout)
    var last: StatusView?
    while Date() < deadline {
      let s = try status()
      if condition(s) { return s }
      last = s
      usleep(50_000)
    }
    throw HarnessError("condition not met; last status: \(last?.json.serialized ?? "none")")
  }

  /// Sends `signal` and waits for exit; returns the exit status.
  @discardableResult func stop(signal: Int32 = SIGTERM, timeout: Double = 20) -> Int32 {
    stopped = true
    if child.isRunning { kill(child.pid, signal) }
    return child.wait(timeout: timeout)
  }

  deinit {
    if !stopped { stop(signal: SIGKILL) }
  }
}

/// A test harness failure with a message.
struct HarnessError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// A raw client of the control socket: bytes in, lines out, with timeouts.
final class RawClient {
  let socket: FileDescriptor
  private var buffer: [UInt8] = []

  init(path: String) throws {
    do { socket = try UnixSocket.connect(path: path) } catch {
      throw HarnessError("connect \(path): \(error)")
    }
  }

  func send(_ text: String) throws {
    try send(Array(text.utf8))
  }

  func send(_ bytes: [UInt8]) throws {
    do { try socket.writeAll(bytes) } catch { throw HarnessError("\(error)") }
  }

  /// The next line, or nil at end of stream; throws on timeout.
  func readLine(timeout: Double = 5) throws -> String? {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      if let nl = buffer.firstIndex(of: 0x0A) {
        let line = String(decoding: buffer[..<nl], as: UTF8.self)
        buffer.removeSubrange(...nl)
        return line
      }
      let remaining = deadline.timeIntervalSinceNow
      guard remaining > 0 else { throw HarnessError("timed out waiting for a line") }
      var p = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, Int32(remaining * 1000)) > 0 else { continue }
      var chunk = [UInt8](repeating: 0, count: 65536)
      let n = chunk.withUnsafeMutableBytes { raw in (try? socket.read(into: raw)) ?? 0 }
      if n == 0 { return nil }
      buffer.append(contentsOf: chunk[0..<n])
    }
  }

  /// The next line decoded as a server message.
  func readMessage(timeout: Double = 5) throws -> ServerMessage {
    guard let line = try readLine(timeout: timeout) else { throw HarnessError("connection closed") }
    return try ServerMessage.decode(Array(line.utf8))
  }

  /// The next message, which must be the answer to request `id`: its result decoded as
  /// `call` promises, or the daemon's error thrown.
  func reply<R>(to id: RequestID, _ call: Call<R>, timeout: Double = 5) throws -> R {
    switch try readMessage(timeout: timeout) {
    case .reply(id, let result): return try call.result(result)
    case .error(let errorID, let reply) where errorID == id || errorID == nil: throw reply
    case let other: throw HarnessError("expected the answer to \(id), got \(other.line)")
    }
  }

  /// The next message, which must be an error; its id and body.
  func error(timeout: Double = 5) throws -> (id: RequestID?, reply: ErrorReply) {
    let message = try readMessage(timeout: timeout)
    guard case .error(let id, let reply) = message else {
      throw HarnessError("expected an error, got \(message.line)")
    }
    return (id, reply)
  }

  /// Sends `call` as request `id`.
  func send<R>(_ call: Call<R>, id: RequestID) throws {
    try send(call.request.line(id: id) + "\n")
  }

  /// Reads the greeting and says hello; returns the hello reply.
  @discardableResult func handshake() throws -> HelloResult {
    guard case .greeting = try readMessage() else { throw HarnessError("no greeting") }
    try send(.hello(client: "test"), id: .number(0))
    return try reply(to: .number(0), .hello(client: "test"))
  }
}

/// A view decoded from what `locctl ... --json` printed.
func decodeOutput<T: WireCodable>(_ stdout: String, as _: T.Type = T.self) throws -> T {
  try T(json: JSON.parse(stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
}

extension StatusView {
  /// `sources[index].counters`, as numbers by name (empty without that source).
  func counters(source index: Int = 0) -> [String: Int] {
    guard index < sources.count else { return [:] }
    var out: [String: Int] = [:]
    for c in sources[index].counters { out[c.name] = c.value }
    return out
  }

  /// `sources[index].state`.
  func sourceState(_ index: Int = 0) -> OpenEnum<SourceView.State>? {
    index < sources.count ? sources[index].state : nil
  }
}
