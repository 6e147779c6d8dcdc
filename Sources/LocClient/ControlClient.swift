import LocCore
import LocProtocol

/// A blocking client of locd's socket, for locctl and benchmarks: connects to the socket it
/// is given, checks the greeting's protocol version, says hello, then makes typed calls
/// (`Call`) and reads events. Every read has a deadline, so a daemon that stops answering
/// costs a clear error, never a hang.
public final class ControlClient {
  /// Why talking to locd failed.
  public enum Failure: Error, CustomStringConvertible {
    /// Nothing listens on the socket (missing, refused).
    case notRunning(path: String, Errno)
    /// The socket exists but this user may not connect.
    case permissionDenied(path: String)
    /// The daemon answered with an error.
    case daemon(ErrorReply)
    /// The daemon speaks another major version of the protocol.
    case versionMismatch(VersionMismatch)
    /// The daemon did not answer within the time allowed.
    case timedOut(path: String, after: Duration)
    /// The connection broke or the daemon said something unexpected.
    case protocolError(String)

    public var description: String {
      switch self {
      case .notRunning(let path, let e):
        // systemd's unit serves the system socket; another path is a locd started by hand
        // (issue 43, item 8).
        guard path == DaemonConfig().socketPath else {
          return "locd is not running (\(path): \(e.message)); start one with 'locd --socket \(path)'"
        }
        return
          "locd is not running (\(path): \(e.message)); start it with 'systemctl start locd'"
      case .permissionDenied(let path):
        return "permission denied on \(path): you need to be root or in the socket's group (usually 'locd')"
      case .daemon(let reply): return reply.description
      case .versionMismatch(let m): return m.description
      case .timedOut(let path, let after):
        guard path == DaemonConfig().socketPath else {
          return
            "locd did not answer on \(path) within \(TimeFormat.duration(after)); see the log of the locd started with --socket \(path)"
        }
        return
          "locd did not answer on \(path) within \(TimeFormat.duration(after)); is it stuck? see 'systemctl status locd'"
      case .protocolError(let why): return "protocol error: \(why)"
      }
    }
  }

  /// The socket this client talks to.
  public let path: String
  /// How long a reply may take unless a call says otherwise.
  public var timeout: Duration
  /// The session's access level, as the daemon reported it at hello.
  public private(set) var access = AccessLevel.none
  /// The hello's result (for an app: its authorization).
  public private(set) var hello: HelloResult? = nil
  /// The server's greeting.
  public let greeting: Greeting

  let socket: FileDescriptor
  var buffer: [UInt8] = []
  var nextID: Int64 = 1

  /// Connects to `path` and completes the handshake as `client` (and as app `app`, if
  /// given); each reply (the greeting included) may take up to `timeout`.
  public init(path: String, client: String? = "locctl", app: String? = nil, timeout: Duration = .seconds(10))
    throws(Failure)
  {
    self.path = path
    self.timeout = timeout
    do {
      socket = try UnixSocket.connect(path: path)
    } catch {
      if error.code == Errno.permissionDenied || error.code == Errno.notPermitted {
        throw .permissionDenied(path: path)
      }
      throw .notRunning(path: path, error)
    }
    // A failure from here on closes the socket with the partly made client.
    switch try ControlClient.read(socket, &buffer, path: path, timeout: timeout) {
    case .greeting(let g): greeting = g
    case .error(_, let reply): throw .daemon(reply)
    default: throw .protocolError("no greeting from the daemon")
    }
    if case .failure(let mismatch) = greeting.check() { throw .versionMismatch(mismatch) }
    let result = try call(.hello(app: app, client: client))
    hello = result
    access = result.access
  }

  /// Sends `call` and decodes its result; events that arrive meanwhile are skipped. The
  /// reply may take `timeout` (nil: the client's).
  public func call<R>(_ call: Call<R>, timeout: Duration? = nil) throws(Failure) -> R {
    let id = RequestID.number(nextID)
    nextID += 1
    try send(call.request.line(id: id))
    let deadline = ContinuousClock.now.advanced(by: timeout ?? self.timeout)
    while true {
      switch try readMessage(until: deadline) {
      case .reply(let replyID, let result) where replyID == id:
        do { return try call.result(result) } catch { throw .protocolError("a reply locd sent: \(error)") }
      case .error(let errorID, let reply) where errorID == id || errorID == nil:
        throw .daemon(reply)
      default:
        continue
      }
    }
  }

  /// The next pushed event, waiting at most `timeout` (nil: as long as it takes). An error
  /// the daemon sends without a request (e.g. `slow-consumer`) is thrown.
  public func nextEvent(timeout: Duration? = nil) throws(Failure) -> EventMessage {
    let deadline = timeout.map { ContinuousClock.now.advanced(by: $0) }
    while true {
      switch try readMessage(until: deadline) {
      case .event(let e): return e
      case .error(nil, let reply): throw .daemon(reply)
      default: continue
      }
    }
  }

  /// Sends one request line.
  func send(_ line: String) throws(Failure) {
    do { try socket.sendAll(Array((line + "\n").utf8)) } catch { throw .protocolError("\(error)") }
  }

  /// The next message, waiting until `deadline` (nil: forever).
  func readMessage(until deadline: ContinuousClock.Instant?) throws(Failure) -> ServerMessage {
    try ControlClient.read(socket, &buffer, path: path, timeout: deadline.map { $0 - ContinuousClock.now })
  }

  /// Reads the next line from `socket` (with `buffer` holding what came after the last one)
  /// and decodes it, waiting at most `timeout` in poll(2) (nil: forever). The client
  /// library's reading thread uses it too.
  public static func read(
    _ socket: borrowing FileDescriptor, _ buffer: inout [UInt8], path: String, timeout: Duration?
  ) throws(Failure) -> ServerMessage {
    let deadline = timeout.map { ContinuousClock.now.advanced(by: $0) }
    while true {
      if let newline = firstIndex(of: 0x0A, in: buffer) {
        defer { buffer.removeSubrange(...newline) }
        do { return try ServerMessage.decode(buffer[..<newline]) } catch {
          throw .protocolError("bad line from the daemon: \(error)")
        }
      }
      var wait: Int32 = -1
      if let deadline {
        let left = deadline - ContinuousClock.now
        guard left > .zero else { throw .timedOut(path: path, after: timeout ?? .zero) }
        let (s, atto) = left.components
        wait = Int32(clamping: s * 1000 + atto / 1_000_000_000_000_000 + 1)
      }
      // EINTR is not retried with the same wait: the loop works out what is left.
      do { if try !socket.waitReadable(milliseconds: wait) { continue } } catch {
        if error.code == Errno.interrupted { continue }
        throw .protocolError(error.description)
      }
      // Read into scratch space on the stack, not a zero-filled array: clearing 64 KiB for
      // each reply cost more than parsing a status reply of 3 KB.
      let outcome = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 65536) { scratch in
        let raw = UnsafeMutableRawBufferPointer(scratch)
        return Result { () throws(Errno) in
          let n = try socket.read(into: raw)
          buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[0..<n]))
          return n
        }
      }
      let n: Int
      do { n = try outcome.get() } catch {
        throw .protocolError("the connection to the daemon broke: \(error)")
      }
      if n == 0 { throw .protocolError("the daemon closed the connection") }
    }
  }
}
