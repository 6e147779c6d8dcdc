import Glibc
import LocCore
import Testing

@testable import LocSystem

/// `ChronyEndpoint` against real files in a temporary directory: the socket of
/// `[Time] ChronySocket=` is reached without following a link anywhere on its path, must be
/// a socket with one name owned by root or chrony's user, and is sent to through the socket
/// that was checked, never by its path (decision 0060). The receiving sockets are plain
/// datagram sockets standing in for chronyd's refclock socket (same type, same calls).
@Suite(.serialized) struct ChronyEndpointTests {
  let dir: String

  init() {
    var template = Array("/tmp/locd-chrony-XXXXXX".utf8CString)
    _ = mkdtemp(&template)
    dir = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Root and whoever runs the test may own the socket.
  var owners: Set<UInt32> { [0, getuid()] }

  /// A datagram socket bound at `path`: chronyd's refclock socket's stand-in.
  func receiver(_ path: String) throws -> FileDescriptor {
    let socket = try UnixSocket.bindDatagram(path: path)
    try socket.setNonBlocking()
    return socket
  }

  /// The datagrams waiting on `socket`.
  func received(_ socket: borrowing FileDescriptor) -> [[UInt8]] {
    var out: [[UInt8]] = []
    var buffer = [UInt8](repeating: 0, count: 256)
    let fd = socket.rawValue
    while true {
      let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
      guard n >= 0 else { break }
      out.append(Array(buffer.prefix(n)))
    }
    return out
  }

  @Test func aSocketWithOneNameIsSentToAndALinkToItIsRefused() throws {
    let chronyd = try receiver(dir + "/refclock.sock")
    let direct = ChronyEndpoint(path: dir + "/refclock.sock", owners: owners)
    #expect(direct.send([1, 2, 3]) == .sent)
    #expect(received(chronyd) == [[1, 2, 3]])

    // A link named as the socket, and a directory on the way that is a link.
    #expect(symlink(dir + "/refclock.sock", dir + "/link.sock") == 0)
    #expect(mkdir(dir + "/real", 0o755) == 0 && symlink(dir, dir + "/real/up") == 0)
    let viaLink = ChronyEndpoint(path: dir + "/link.sock", owners: owners)
    #expect(viaLink.send([4]) == .refused(.symbolicLink(path: dir + "/link.sock")))
    let viaDirectory = ChronyEndpoint(path: dir + "/real/up/refclock.sock", owners: owners)
    #expect(viaDirectory.send([5]) == .refused(.symbolicLink(path: dir + "/real/up")))
    #expect(received(chronyd).isEmpty, "nothing reached the link's target")
  }

  @Test func aFileAHardLinkAndAMissingSocketAreNotSentTo() throws {
    let file = open(dir + "/plain", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
    close(file)
    #expect(
      ChronyEndpoint(path: dir + "/plain", owners: owners).send([1])
        == .refused(.notSocket(what: "a regular file")))
    #expect(ChronyEndpoint(path: dir, owners: owners).send([1]) == .refused(.notSocket(what: "a directory")))

    let chronyd = try receiver(dir + "/refclock.sock")
    #expect(link(dir + "/refclock.sock", dir + "/second.sock") == 0)
    #expect(
      ChronyEndpoint(path: dir + "/second.sock", owners: owners).send([1]) == .refused(.hardLinked(names: 2)))
    #expect(received(chronyd).isEmpty)

    guard case .failed(let error) = ChronyEndpoint(path: dir + "/none.sock", owners: owners).send([1]) else {
      Issue.record("a missing socket was not a failure")
      return
    }
    #expect(error.code == Errno.noSuchFileOrDirectory)
  }

  @Test(.enabled(if: getuid() == 0, "chown to another uid needs root"))
  func aSocketOfAnotherUserIsRefused() throws {
    let theirs = try receiver(dir + "/theirs.sock")
    #expect(chown(dir + "/theirs.sock", 65534, 65534) == 0)
    #expect(ChronyEndpoint(path: dir + "/theirs.sock", owners: [0]).send([1]) == .refused(.owner(uid: 65534)))
    #expect(received(theirs).isEmpty)
  }

  /// A restarted chronyd: its old socket closes (the send fails and the connection goes),
  /// the next send finds the new one. A link put in its place meanwhile is refused, and the
  /// socket it points at gets nothing.
  @Test func aNewSocketAtThePathIsCheckedAgain() throws {
    let path = dir + "/refclock.sock"
    let endpoint = ChronyEndpoint(path: path, owners: owners)
    do {
      let first = try receiver(path)
      #expect(endpoint.send([1]) == .sent)
      #expect(received(first) == [[1]])
      unlink(path)
    }  // the first socket closes: chronyd stopped
    guard case .failed = endpoint.send([2]) else {
      Issue.record("a send to a closed socket did not fail")
      return
    }
    let other = try receiver(dir + "/other.sock")
    #expect(symlink(dir + "/other.sock", path) == 0)
    #expect(endpoint.send([3]) == .refused(.symbolicLink(path: path)))
    #expect(received(other).isEmpty)
    unlink(path)
    let second = try receiver(path)
    #expect(endpoint.send([4]) == .sent)
    #expect(received(second) == [[4]])
  }
}
