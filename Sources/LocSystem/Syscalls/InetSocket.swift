import CLocShim

#if canImport(Glibc)
  import Glibc
#endif

/// TCP and UDP sockets over IPv4 and IPv6 (socket(2), connect(2), bind(2), accept4(2)),
/// always non-blocking and close-on-exec.
public enum InetSocket {
  /// What a non-blocking connect(2) did.
  enum ConnectStart {
    /// Connected at once (loopback can).
    case connected
    /// Under way: wait for writability, then read `pendingError`.
    case inProgress
  }

  /// TCP keepalive timing for stream sources (tcp(7)): probes after 30 s of silence, every
  /// 10 s, 3 unanswered probes drop the connection. A peer that vanished without a FIN (a
  /// phone that left the Wi-Fi, a NAT that forgot us) is noticed in about a minute instead of
  /// the kernel's default two hours.
  static let keepAliveIdleSeconds: Int32 = 30
  static let keepAliveIntervalSeconds: Int32 = 10
  static let keepAliveProbes: Int32 = 3

  static let streamFlags =
    Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
  static let datagramFlags =
    Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)

  /// A TCP socket whose connect(2) was started without blocking.
  struct Connecting: ~Copyable {
    /// The socket.
    var socket: FileDescriptor
    /// Whether it is already connected.
    var start: ConnectStart
  }

  /// Starts connecting a new TCP socket to `address` (socket(2), connect(2)); on failure
  /// nothing is left open.
  static func connect(to address: SocketAddress) throws(Errno) -> Connecting {
    let socket = FileDescriptor(
      owning: try Syscall.retrying("socket") { Glibc.socket(address.family, streamFlags, 0) })
    do throws(Errno) {
      _ = try Syscall.once("connect \(address)") {
        address.withSockaddr { Glibc.connect(socket.rawValue, $0, $1) }
      }
    } catch  where error.code == EINPROGRESS || error.code == EINTR {
      // EINTR: the connection goes on in the background, as with EINPROGRESS (connect(2)).
      return Connecting(socket: socket, start: .inProgress)
    }
    return Connecting(socket: socket, start: .connected)
  }

  /// Turns on TCP keepalive with `keepAlive*` timing; failures are ignored (the connection
  /// still works, a dead peer is just found later).
  static func enableKeepAlive(_ socket: borrowing FileDescriptor) {
    try? socket.setOption(level: SOL_SOCKET, SO_KEEPALIVE, 1)
    try? socket.setOption(level: Int32(IPPROTO_TCP), TCP_KEEPIDLE, keepAliveIdleSeconds)
    try? socket.setOption(level: Int32(IPPROTO_TCP), TCP_KEEPINTVL, keepAliveIntervalSeconds)
    try? socket.setOption(level: Int32(IPPROTO_TCP), TCP_KEEPCNT, keepAliveProbes)
  }

  /// A bound socket of `flags` (stream or datagram) at `address`, with SO_REUSEADDR so a
  /// restarted locd can bind again while old connections linger in TIME_WAIT.
  static func bound(_ address: SocketAddress, flags: Int32) throws(Errno) -> FileDescriptor {
    let socket = FileDescriptor(
      owning: try Syscall.retrying("socket") { Glibc.socket(address.family, flags, 0) })
    try? socket.setOption(level: SOL_SOCKET, SO_REUSEADDR, 1)
    _ = try Syscall.retrying("bind \(address)") { address.withSockaddr { bind(socket.rawValue, $0, $1) } }
    return socket
  }

  /// A listening TCP socket at `address`.
  static func listening(_ address: SocketAddress, backlog: Int32 = 16) throws(Errno) -> FileDescriptor {
    let socket = try bound(address, flags: streamFlags)
    _ = try Syscall.retrying("listen \(address)") { Glibc.listen(socket.rawValue, backlog) }
    return socket
  }

  /// A port that was free on 127.0.0.1 a moment ago (bind to port 0, read it back, close):
  /// for tests and benchmarks that start peers on private ports. Nil if the kernel refuses.
  public static func freeLoopbackPort(datagram: Bool = false) -> Int? {
    let type = datagram ? Int32(SOCK_DGRAM.rawValue) : Int32(SOCK_STREAM.rawValue)
    guard
      let any = try? SocketAddress.resolve(host: "127.0.0.1", port: 0, socketType: type, passive: true).first,
      let socket = try? bound(any, flags: type | Int32(SOCK_CLOEXEC.rawValue)),
      let address = socket.localAddress()
    else { return nil }
    return address.port
  }
}
