import LocCore
import LocProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// A blocking client of locd's socket, for locctl and benchmarks: connects, checks the
/// greeting's protocol version, says hello, then exchanges requests and reads events.
public final class ControlClient {
  /// Why talking to locd failed.
  public enum Failure: Error, CustomStringConvertible {
    /// Nothing listens on the socket (missing, refused).
    case notRunning(path: String, Errno)
    /// The socket exists but this user may not connect.
    case permissionDenied(path: String)
    /// The daemon answered with an error.
    case daemon(code: String, message: String)
    /// The connection broke or the daemon said something unexpected.
    case protocolError(String)

    public var description: String {
      switch self {
      case .notRunning(let path, let e):
        return
          "locd is not running (\(path): \(String(cString: strerror(e.code)))); start it with 'systemctl start locd'"
      case .permissionDenied(let path):
        return "permission denied on \(path): you need to be root or in the socket's group (usually 'locd')"
      case .daemon(let code, let message): return "\(message) (\(code))"
      case .protocolError(let why): return "protocol error: \(why)"
      }
    }
  }

  let socket: FileDescriptor
  var buffer: [UInt8] = []
  var nextID = 1
  /// The session's access level as the daemon reported it at hello.
  public private(set) var access = "none"
  /// The server's greeting.
  public private(set) var greeting: JSON = .null

  /// The socket path: `$LOCD_SOCKET`, else /run/locd/locd.sock.
  public static var defaultPath: String {
    if let p = getenv("LOCD_SOCKET"), p.pointee != 0 { return String(cString: p) }
    return DaemonConfig().socketPath
  }

  /// Connects and completes the handshake.
  public init(path: String = ControlClient.defaultPath, app: String = "locctl") throws(Failure) {
    do {
      socket = try UnixSocket.connect(path: path)
    } catch {
      if error.code == EACCES || error.code == EPERM { throw .permissionDenied(path: path) }
      throw .notRunning(path: path, error)
    }
    greeting = try readMessage()
    guard greeting["type"]?.string == "hello", let major = greeting["protocol"]?["major"]?.number else {
      if greeting["type"]?.string == "error" {
        throw .daemon(
          code: greeting["error"]?["code"]?.string ?? "?",
          message: greeting["error"]?["message"]?.string ?? "")
      }
      throw .protocolError("no greeting from the daemon")
    }
    guard Int(major) == ProtocolVersion.major else {
      throw .protocolError(
        "the daemon speaks protocol \(Int(major)), this locctl speaks \(ProtocolVersion.major)")
    }
    let result = try call("hello", ["protocol": .int(ProtocolVersion.major), "app": .string(app)])
    access = result["access"]?.string ?? "none"
  }

  /// Sends a request and returns its result, skipping events that arrive meanwhile.
  public func call(_ method: String, _ params: JSONObject = [:]) throws(Failure) -> JSON {
    let id = nextID
    nextID += 1
    try send(["id": .int(id), "method": .string(method), "params": .object(params)])
    while true {
      let message = try readMessage()
      guard
        message["id"]?.number == Double(id)
          || (message["type"]?.string == "error" && message["id"]?.isNull == true)
      else { continue }
      if message["type"]?.string == "error" {
        throw .daemon(
          code: message["error"]?["code"]?.string ?? "?", message: message["error"]?["message"]?.string ?? "")
      }
      return message["result"] ?? .null
    }
  }

  /// Sends one request object.
  public func send(_ request: JSONObject) throws(Failure) {
    let line = JSON.object(request).serialized + "\n"
    do { try socket.writeAll(Array(line.utf8)) } catch { throw .protocolError("\(error)") }
  }

  /// Reads the next message (blocking).
  public func readMessage() throws(Failure) -> JSON {
    while true {
      if let newline = buffer.firstIndex(of: 0x0A) {
        let line = buffer[..<newline]
        defer { buffer.removeSubrange(...newline) }
        do { return try JSON.parse(line, maxDepth: 64) } catch {
          throw .protocolError("bad line from the daemon: \(error)")
        }
      }
      var chunk = [UInt8](repeating: 0, count: 65536)
      let n = chunk.withUnsafeMutableBytes { raw in (try? socket.read(into: raw)) ?? 0 }
      if n == 0 { throw .protocolError("the daemon closed the connection") }
      buffer.append(contentsOf: chunk[0..<n])
    }
  }
}
