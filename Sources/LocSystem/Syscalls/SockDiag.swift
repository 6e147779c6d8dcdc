import CLocShim

#if canImport(Glibc)
  import Glibc
#endif

/// NETLINK_SOCK_DIAG (sock_diag(7)): who owns the other end of a TCP connection made on this
/// machine. The kernel knows the uid of every local socket (`ss -e` prints it); asking for
/// the socket whose source is our peer's address and whose destination is ours names the
/// user that connected.
public enum SockDiag {
  /// TCP states (linux/tcp.h) in which the answer is a full socket with its owner's uid. A
  /// peer that has closed may already be a time-wait socket, which the kernel reports with
  /// uid 0: those states are not believed.
  static let ownedStates: Set<UInt8> = [1, 4, 8, 9, 11]  // ESTABLISHED FIN_WAIT1 CLOSE_WAIT LAST_ACK CLOSING

  /// Why a peer's uid could not be learned.
  public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a loopback peer, or not an IP address.
    case notLocal
    /// No such socket on this machine (another network namespace, gone already).
    case notFound
    /// The socket is closing and no longer carries its owner (state number).
    case closing(UInt8)
    /// The kernel refused or does not answer (no NETLINK_SOCK_DIAG, a seccomp filter).
    case failed(Errno)

    /// In words, for the log.
    public var description: String {
      switch self {
      case .notLocal: return "not a loopback peer"
      case .notFound: return "no such socket on this machine"
      case .closing(let state): return "its socket is closing (TCP state \(state))"
      case .failed(let error): return "NETLINK_SOCK_DIAG: \(error)"
      }
    }
  }

  /// The uid of the local process that connected from `peer` to `local` over loopback.
  static func peerUID(peer: SocketAddress, local: SocketAddress) -> Result<UInt32, Failure> {
    guard let from = peer.ipv4OrIPv6(), let to = local.ipv4OrIPv6(), from.family == to.family,
      from.isLoopback
    else { return .failure(.notLocal) }
    var uid: UInt32 = 0
    var state: UInt8 = 0
    let r = locshim_tcp_socket_owner(from.family, from.address, from.port, to.address, to.port, &uid, &state)
    guard r == 0 else {
      let code = errno
      return .failure(code == ENOENT ? .notFound : .failed(Errno(call: "sock_diag", code: code)))
    }
    guard ownedStates.contains(state) else { return .failure(.closing(state)) }
    return .success(uid)
  }
}

extension SocketAddress {
  /// An IP address and port taken apart for NETLINK_SOCK_DIAG.
  struct IPParts {
    /// AF_INET or AF_INET6.
    var family: Int32
    /// 4 or 16 bytes, network order.
    var address: [UInt8]
    /// Host order.
    var port: UInt16

    /// 127.0.0.0/8 or ::1.
    var isLoopback: Bool {
      family == AF_INET ? address[0] == 127 : address == [UInt8](repeating: 0, count: 15) + [1]
    }
  }

  /// The address's parts; an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, a dual-stack
  /// listener) as the IPv4 address it is, since its socket is an AF_INET one.
  func ipv4OrIPv6() -> IPParts? {
    let raw = bytes
    let port = UInt16(self.port)
    switch family {
    case AF_INET where raw.count >= 8:
      return IPParts(family: AF_INET, address: Array(raw[4..<8]), port: port)
    case AF_INET6 where raw.count >= 24:
      let address = Array(raw[8..<24])
      if address.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff] {
        return IPParts(family: AF_INET, address: Array(address.suffix(4)), port: port)
      }
      return IPParts(family: AF_INET6, address: address, port: port)
    default: return nil
    }
  }
}
