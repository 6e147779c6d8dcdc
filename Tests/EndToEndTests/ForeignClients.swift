import CLocShim
import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Many connections to locd from another uid: scripts/locd-clients.py run under setpriv(1)
/// as uid/gid 65534 (nobody) with the given supplementary groups. Connections are numbered
/// from 0 in the order they were opened; what each received is kept, line by line.
final class ForeignClients {
  private let child: Child
  private let commands: Int32
  private let output: Int32
  private var buffer: [UInt8] = []
  /// Lines each connection received (`EOF` when locd closed it), oldest first.
  private(set) var received: [Int: [String]] = [:]

  /// Opens `count` connections to `daemon` as nobody; returns once all are open. With
  /// `reading: false` the connections are never read.
  init(_ daemon: LocdProcess, count: Int, groups: [Int] = [], reading: Bool = true) throws {
    // The script ends when a test fails: writing to it then must fail, not kill the runner.
    signal(SIGPIPE, SIG_IGN)
    var inPipe: [Int32] = [0, 0]
    var outPipe: [Int32] = [0, 0]
    guard locshim_pipe2(&inPipe, O_CLOEXEC) == 0, locshim_pipe2(&outPipe, O_CLOEXEC) == 0 else {
      throw HarnessError("pipe")
    }
    // The script is passed as text: nobody may not be able to read the checkout.
    let script = try String(
      contentsOf: Binaries.packageRoot.appendingPathComponent("scripts/locd-clients.py"), encoding: .utf8)
    let groupArgs =
      groups.isEmpty ? ["--clear-groups"] : ["--groups=" + groups.map(String.init).joined(separator: ",")]
    child = try Child(
      "/usr/bin/setpriv",
      ["--reuid=65534", "--regid=65534"] + groupArgs + [
        "--pdeathsig", "KILL", "--", "/usr/bin/python3", "-c", script,
      ]
        + [daemon.socketPath, String(count)] + (reading ? [] : ["--no-read"]),
      stdinFD: inPipe[0], stdoutFD: outPipe[1])
    close(inPipe[0])
    close(outPipe[1])
    commands = inPipe[1]
    output = outPipe[0]
    try waitForLine(timeout: 60) { $0 == "ready" }
  }

  deinit {
    close(commands)
    close(output)
  }

  /// Sends `text` on connection `index` (nil: on every open connection).
  func send(_ index: Int?, _ text: String) throws {
    let line = "send \(index.map(String.init) ?? "*") \(text)\n"
    let written = line.withCString { write(commands, $0, strlen($0)) }
    guard written == line.utf8.count else { throw HarnessError("write to locd-clients: \(errno)") }
  }

  /// Sends the hello (protocol 1, an optional app id) on every connection.
  func helloAll(app: String? = nil) throws {
    try send(nil, Call<HelloResult>.hello(app: app).request.line(id: .number(0)))
  }

  /// Sends `call` as request `id` on connection `index` (nil: on every open connection).
  func send<R>(_ index: Int?, _ call: Call<R>, id: RequestID) throws {
    try send(index, call.request.line(id: id))
  }

  /// Reads what the connections received until `condition` holds for it (at most `timeout`
  /// seconds, then throws).
  func wait(timeout: Double = 10, _ condition: ([Int: [String]]) -> Bool) throws {
    if condition(received) { return }
    try waitForLine(timeout: timeout) { _ in condition(received) }
  }

  /// The decoded messages connection `index` received (EOF left out).
  func messages(_ index: Int) throws -> [ServerMessage] {
    try (received[index] ?? []).filter { $0 != "EOF" }.map { try ServerMessage.decode(Array($0.utf8)) }
  }

  /// Reads until connection `index` received a message that `matches`, and returns the
  /// first such message.
  func message(_ index: Int, timeout: Double = 10, _ matches: (ServerMessage) -> Bool) throws -> ServerMessage
  {
    var found: ServerMessage?
    try wait(timeout: timeout) { _ in
      found = try? messages(index).first(where: matches)
      return found != nil
    }
    return try #require(found)
  }

  /// Whether locd closed connection `index`.
  func closed(_ index: Int) -> Bool { received[index]?.last == "EOF" }

  private func waitForLine(timeout: Double, _ done: (String) -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      while let nl = buffer.firstIndex(of: 0x0A) {
        let line = String(decoding: buffer[..<nl], as: UTF8.self)
        buffer.removeSubrange(...nl)
        if let space = line.firstIndex(of: " "), let index = Int(line[..<space]) {
          received[index, default: []].append(String(line[line.index(after: space)...]))
        }
        if done(line) { return }
      }
      let remaining = deadline.timeIntervalSinceNow
      guard remaining > 0 else { throw HarnessError("locd-clients: timed out; received \(received)") }
      var p = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, Int32(min(remaining, 1) * 1000)) > 0 else { continue }
      let n = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
      guard n > 0 else { throw HarnessError("locd-clients ended; received \(received)") }
      buffer.append(contentsOf: chunk[0..<n])
    }
  }
}
