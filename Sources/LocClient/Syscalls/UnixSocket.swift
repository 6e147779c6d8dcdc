#if canImport(Glibc)
  import Glibc
#endif

/// Unix stream sockets (unix(7)): the address and connecting; listening, datagrams and peer
/// credentials, which only the daemon's side needs, are in LocSystem's UnixSocket+Server.
public enum UnixSocket {
  /// Longest path that fits sun_path (108 bytes with the NUL).
  package static let maxPathBytes = 107

  /// Calls `body` with a sockaddr_un for `path`; ENAMETOOLONG if it does not fit.
  package static func withAddress<R>(
    _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) throws(Errno) -> R
  ) throws(Errno) -> R {
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard !bytes.isEmpty, bytes.count <= maxPathBytes else {
      throw Errno(call: "socket path", code: ENAMETOOLONG)
    }
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    let len = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
    let outcome = withUnsafePointer(to: &addr) { p in
      p.withMemoryRebound(to: sockaddr.self, capacity: 1) { a in
        Result { () throws(Errno) in try body(a, len) }
      }
    }
    return try outcome.get()
  }

  /// Connects to `path` (blocking socket; the caller may make it non-blocking).
  public static func connect(path: String) throws(Errno) -> FileDescriptor {
    let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    let socket = FileDescriptor(owning: try Syscall.retrying("socket") { Glibc.socket(AF_UNIX, flags, 0) })
    // connect(2) on a Unix socket interrupted by a signal carries on in the background:
    // not retried, reported as it is (locctl installs no handlers, so it does not happen).
    _ = try withAddress(path) { address, length throws(Errno) in
      try Syscall.once("connect") { Glibc.connect(socket.rawValue, address, length) }
    }
    return socket
  }
}
