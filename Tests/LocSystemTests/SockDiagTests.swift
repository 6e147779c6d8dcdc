import CLocShim
import Glibc
import LocCore
import Testing

@testable import LocSystem

/// NETLINK_SOCK_DIAG against the real kernel: the owner of the other end of a loopback TCP
/// connection made in this process is this process's uid; a peer that is gone is not found
/// or not believed; a non-loopback peer is not asked about.
@Suite struct SockDiagTests {
  struct Missing: Error {
    var what: String
  }

  /// A listener on a loopback port, a connection to it, and the accepted end with the peer's
  /// address as accept(2) gave it; all closed when it goes.
  final class Connection {
    let listener: FileDescriptor
    /// The connecting end (a plain descriptor: blocking connect(2)).
    let client: Int32
    let accepted: FileDescriptor
    let peer: SocketAddress

    init() throws {
      let any = try #require(
        try? SocketAddress.resolve(
          host: "127.0.0.1", port: 0, socketType: Int32(SOCK_STREAM.rawValue), passive: true
        ).first)
      listener = try InetSocket.listening(any)
      guard let bound = listener.localAddress() else { throw Missing(what: "getsockname") }
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
      client = fd
      guard bound.withSockaddr({ connect(fd, $0, $1) }) == 0 else { throw Missing(what: "connect") }
      var p = pollfd(fd: listener.rawValue, events: Int16(POLLIN), revents: 0)
      #expect(poll(&p, 1, 5000) == 1)
      var peer = SocketAddress()
      guard let incoming = try listener.accept(peer: &peer) else { throw Missing(what: "a connection") }
      accepted = incoming
      self.peer = peer
    }

    deinit { close(client) }
  }

  @Test func theOwnerOfALoopbackPeerIsThisProcesssUID() throws {
    let c = try Connection()
    let ours = c.accepted.localAddress()
    let local = try #require(ours)
    let result = SockDiag.peerUID(peer: c.peer, local: local)
    #expect(result == .success(getuid()), "what `ss -e` would print for the client socket")
    // Asked the other way round (our listener's accepted end as the "peer") it is ours too:
    // the lookup is by the exact address pair.
    var theirs = SocketAddress()
    #expect(theirs.withMutableSockaddr { getsockname(c.client, $0, $1) } == 0)
    let clientLocal = theirs
    #expect(SockDiag.peerUID(peer: local, local: clientLocal) == .success(getuid()))
  }

  @Test func aPeerThatIsGoneIsNotBelieved() throws {
    var c: Connection? = try Connection()
    let ours = c?.accepted.localAddress()
    let local = try #require(ours)
    let peer = try #require(c?.peer)
    c = nil  // both ends closed: the client side lingers as a time-wait socket or is gone
    #expect(c == nil)
    usleep(100_000)
    let result = SockDiag.peerUID(peer: peer, local: local)
    switch result {
    case .failure(.notFound), .failure(.closing): break
    default: Issue.record("a closed peer must not yield a uid: \(result)")
    }
  }

  @Test func aPeerOutsideLoopbackIsNotAskedAbout() throws {
    let outside = try #require(
      try? SocketAddress.resolve(
        host: "192.0.2.7", port: 4000, socketType: Int32(SOCK_STREAM.rawValue), passive: false
      )
      .first)
    let local = try #require(
      try? SocketAddress.resolve(
        host: "192.0.2.2", port: 10110, socketType: Int32(SOCK_STREAM.rawValue), passive: false
      )
      .first)
    #expect(SockDiag.peerUID(peer: outside, local: local) == .failure(.notLocal))
  }

  @Test func ipv4MappedAddressesAreAskedAboutAsIPv4() throws {
    let mapped = try #require(
      try? SocketAddress.resolve(
        host: "::ffff:127.0.0.1", port: 5000, socketType: Int32(SOCK_STREAM.rawValue), passive: false
      ).first)
    let parts = try #require(mapped.ipv4OrIPv6())
    #expect(
      parts.family == AF_INET && parts.address == [127, 0, 0, 1] && parts.port == 5000 && parts.isLoopback)
  }
}
