import Foundation
import Glibc
import LocCore
import LocProtocol
import LocSystem

/// One connection to locd that sends its requests ahead of their answers (up to `window`
/// unanswered) and reads whatever arrives, on the test's one thread: several lanes polled
/// together (`PipelinedLane.run`) keep locd busy with changes from several clients at once.
final class PipelinedLane {
  /// A request a lane sends, and what it changes (`isChange`: whether its answer
  /// acknowledges a change locd stores).
  struct Step {
    var request: WireRequest
    var change: String?
    var isChange: Bool { change != nil }
  }

  let socket: FileDescriptor
  let window: Int
  /// What is still to be sent, oldest first.
  var queue: [Step] = []
  private var buffer: [UInt8] = []
  private var nextID: Int64 = 1
  /// Sent and not answered, by request id.
  private(set) var unanswered: [Int64: Step] = [:]
  /// Answered with a result, in the order the answers came.
  private(set) var acknowledged: [Step] = []
  /// Answered with an error.
  private(set) var refused: [(Step, ErrorReply)] = []
  /// Events received, oldest first.
  private(set) var events: [EventMessage] = []
  /// Set once locd closed the connection.
  private(set) var ended = false

  /// Connects to `path`, reads the greeting and says hello (as the app `app`, if given).
  init(path: String, app: String? = nil, window: Int) throws {
    do { socket = try UnixSocket.connect(path: path) } catch {
      throw HarnessError("connect \(path): \(error)")
    }
    self.window = window
    guard case .greeting = try nextMessage(timeout: 10) else { throw HarnessError("no greeting") }
    try write(
      WireRequest.hello(protocolMajor: ProtocolVersion.major, app: app, client: "test").line(id: .number(0)))
    guard case .reply(.number(0), _) = try nextMessage(timeout: 10) else {
      throw HarnessError("hello refused")
    }
  }

  /// Sends `step` now, whatever the window, and waits for its answer (events kept).
  func call(_ request: WireRequest, timeout: Double = 10) throws -> JSON {
    let id = nextID
    nextID += 1
    try write(request.line(id: .number(id)))
    while true {
      switch try nextMessage(timeout: timeout) {
      case .event(let e): events.append(e)
      case .reply(.number(id), let result): return result
      case .error(.number(id)?, let reply): throw reply
      case let other: throw HarnessError("expected the answer to \(id), got \(other.line)")
      }
    }
  }

  /// Changes acknowledged so far.
  var acknowledgedChanges: Int { acknowledged.count(where: \.isChange) }

  /// Sends queued requests while fewer than `window` wait for their answer.
  func pump() throws {
    while !ended, unanswered.count < window, !queue.isEmpty {
      let step = queue.removeFirst()
      let id = nextID
      nextID += 1
      unanswered[id] = step
      do { try write(step.request.line(id: .number(id))) } catch {
        // locd is gone (killed): the request may or may not have reached it.
        ended = true
      }
    }
  }

  /// Reads what is there without waiting, and handles every complete line.
  func readAvailable() throws {
    guard !ended else { return }
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      var p = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, 0) > 0 else { break }
      let n = chunk.withUnsafeMutableBytes { raw in (try? socket.read(into: raw)) ?? 0 }
      if n == 0 {
        ended = true
        break
      }
      buffer.append(contentsOf: chunk[0..<n])
    }
    while let nl = buffer.firstIndex(of: 0x0A) {
      let line = Array(buffer[..<nl])
      buffer.removeSubrange(...nl)
      try handle(ServerMessage.decode(line))
    }
  }

  private func handle(_ message: ServerMessage) throws {
    switch message {
    case .event(let e): events.append(e)
    case .reply(.number(let id), _):
      guard let step = unanswered.removeValue(forKey: id) else {
        throw HarnessError("an answer to \(id) unasked")
      }
      acknowledged.append(step)
    case .error(.number(let id)?, let reply):
      guard let step = unanswered.removeValue(forKey: id) else {
        throw HarnessError("\(reply) to \(id) unasked")
      }
      refused.append((step, reply))
    case .error(_, let reply) where reply.code == .known(.daemonStopping):
      break
    default:
      throw HarnessError("unexpected: \(message.line)")
    }
  }

  private func write(_ line: String) throws {
    do { try socket.writeAll(Array((line + "\n").utf8)) } catch { throw HarnessError("\(error)") }
  }

  private func nextMessage(timeout: Double) throws -> ServerMessage {
    let deadline = Date().addingTimeInterval(timeout)
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      if let nl = buffer.firstIndex(of: 0x0A) {
        let line = Array(buffer[..<nl])
        buffer.removeSubrange(...nl)
        return try ServerMessage.decode(line)
      }
      let left = deadline.timeIntervalSinceNow
      guard left > 0 else { throw HarnessError("timed out waiting for a line") }
      var p = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, Int32(left * 1000)) > 0 else { continue }
      let n = chunk.withUnsafeMutableBytes { raw in (try? socket.read(into: raw)) ?? 0 }
      if n == 0 { throw HarnessError("connection closed") }
      buffer.append(contentsOf: chunk[0..<n])
    }
  }

  /// Pumps and reads `lanes` until `done` says so (checked after every read) or every lane
  /// has nothing left to send and no answer to wait for; `between` runs after each read
  /// (to queue requests that answer events). Throws after `timeout` seconds.
  static func run(
    _ lanes: [PipelinedLane], timeout: Double, between: () throws -> Void = {}, until done: () -> Bool
  ) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      for lane in lanes { try lane.pump() }
      if done() { return }
      let open = lanes.filter { !$0.ended }
      if open.allSatisfy({ $0.queue.isEmpty && $0.unanswered.isEmpty }) { return }
      let left = deadline.timeIntervalSinceNow
      guard left > 0 else {
        throw HarnessError("lanes still waiting: \(open.map { "\($0.unanswered.count) unanswered" })")
      }
      var fds = open.map { pollfd(fd: $0.socket.rawValue, events: Int16(POLLIN), revents: 0) }
      _ = poll(&fds, nfds_t(fds.count), Int32(min(left, 1) * 1000))
      for lane in open { try lane.readAvailable() }
      try between()
    }
  }

  /// After locd is gone: reads every lane to its end (what locd sent before it died is
  /// read as it was sent).
  static func drain(_ lanes: [PipelinedLane], timeout: Double = 10) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while lanes.contains(where: { !$0.ended }), deadline.timeIntervalSinceNow > 0 {
      let open = lanes.filter { !$0.ended }
      var fds = open.map { pollfd(fd: $0.socket.rawValue, events: Int16(POLLIN), revents: 0) }
      _ = poll(&fds, nfds_t(fds.count), 200)
      for lane in open { try lane.readAvailable() }
    }
  }
}
