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

  /// Starts connecting a new TCP socket to `address`; returns the descriptor and whether
  /// it is done. On failure nothing is left open.
  static func connect(to address: SocketAddress) throws(Errno) -> (fd: Int32, ConnectStart) {
    let fd = socket(address.family, streamFlags, 0)
    guard fd >= 0 else { throw Errno(call: "socket") }
    let r = address.withSockaddr { Glibc.connect(fd, $0, $1) }
    if r == 0 { return (fd, .connected) }
    let code = errno
    if code == EINPROGRESS || code == EINTR { return (fd, .inProgress) }
    close(fd)
    throw Errno(call: "connect \(address)", code: code)
  }

  /// The outcome of a connect that was in progress (SO_ERROR): 0 when connected.
  static func pendingError(_ fd: Int32) -> Int32 {
    var value: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) == 0 else { return errno }
    return value
  }

  /// Turns on TCP keepalive with `keepAlive*` timing; failures are ignored (the connection
  /// still works, a dead peer is just found later).
  static func enableKeepAlive(_ fd: Int32) {
    var on: Int32 = 1
    var idle = keepAliveIdleSeconds
    var interval = keepAliveIntervalSeconds
    var probes = keepAliveProbes
    let size = socklen_t(MemoryLayout<Int32>.size)
    _ = setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, size)
    _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_KEEPIDLE, &idle, size)
    _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_KEEPINTVL, &interval, size)
    _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_KEEPCNT, &probes, size)
  }

  /// A bound socket of `flags` (stream or datagram) at `address`, with SO_REUSEADDR so a
  /// restarted locd can bind again while old connections linger in TIME_WAIT.
  static func bound(_ address: SocketAddress, flags: Int32) throws(Errno) -> Int32 {
    let fd = socket(address.family, flags, 0)
    guard fd >= 0 else { throw Errno(call: "socket") }
    var on: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
    guard address.withSockaddr({ bind(fd, $0, $1) }) == 0 else {
      let e = Errno(call: "bind \(address)")
      close(fd)
      throw e
    }
    return fd
  }

  /// A listening TCP socket at `address`.
  static func listening(_ address: SocketAddress, backlog: Int32 = 16) throws(Errno) -> Int32 {
    let fd = try bound(address, flags: streamFlags)
    guard Glibc.listen(fd, backlog) == 0 else {
      let e = Errno(call: "listen \(address)")
      close(fd)
      throw e
    }
    return fd
  }

  /// Accepts one pending connection (non-blocking, close-on-exec) with its peer's address;
  /// nil when none is pending (EAGAIN) or it failed (ECONNABORTED and the like).
  static func accept(_ fd: Int32) -> (fd: Int32, peer: SocketAddress)? {
    var peer = SocketAddress()
    let client = peer.withMutableSockaddr { p, len in
      locshim_accept4_from(fd, p, len, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
    }
    guard client >= 0 else { return nil }
    return (client, peer)
  }

  /// The local address `fd` is bound to (getsockname(2)).
  static func localAddress(_ fd: Int32) -> SocketAddress? {
    var address = SocketAddress()
    let r = address.withMutableSockaddr { getsockname(fd, $0, $1) }
    return r == 0 ? address : nil
  }

  /// A port that was free on 127.0.0.1 a moment ago (bind to port 0, read it back, close):
  /// for tests and benchmarks that start peers on private ports. Nil if the kernel refuses.
  public static func freeLoopbackPort(datagram: Bool = false) -> Int? {
    let fd = socket(AF_INET, datagram ? Int32(SOCK_DGRAM.rawValue) : Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &addr) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0
      }
    }
    return ok ? Int(UInt16(bigEndian: addr.sin_port)) : nil
  }
}
