import Foundation
import Glibc
import LocCore
import LocProtocol
import LocSystem
import Testing

/// `ControlClient` against a real Unix socket whose other end misbehaves: a daemon that
/// stops answering costs a clear error after the timeout, never a hang, and a daemon of
/// another major version is refused at the greeting.
@Suite struct ControlClientTests {
  /// A listening socket in a fresh directory; `serve` (if any) runs on a thread with each
  /// accepted connection.
  final class Peer {
    let path: String
    let listener: FileDescriptor

    init() throws {
      var template = Array("/tmp/locd-client-XXXXXX".utf8CString)
      try #require(mkdtemp(&template) != nil)
      let dir = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      path = dir + "/locd.sock"
      listener = try UnixSocket.listen(path: path, mode: 0o600, gid: nil)
    }

    /// Accepts one connection on a thread and hands it to `body`, which owns it.
    func serveOnce(_ body: @escaping @Sendable (Int32) -> Void) {
      // The number only: the descriptor stays with `Peer`, which outlives the thread's use.
      let listener = listener.rawValue
      Thread.detachNewThread {
        // The listening socket is non-blocking (as the daemon uses it): wait for the client.
        var p = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, 10_000) == 1 else { return }
        let c = accept(listener, nil, nil)
        guard c >= 0 else { return }
        let flags = fcntl(c, F_GETFL)
        _ = fcntl(c, F_SETFL, flags & ~O_NONBLOCK)
        body(c)
      }
    }

    deinit { unlink(path) }
  }

  /// Plays locd's side of the handshake on `c`: the greeting, then the answer to the client's
  /// hello (request `id`) once it is read. Returns a read buffer for what follows.
  static func greet(_ c: Int32, answeringHello id: RequestID) -> [UInt8] {
    write(c, ServerMessage.greeting(Greeting(serverVersion: "test")).line)
    var buffer = [UInt8](repeating: 0, count: 4096)
    _ = read(c, &buffer, buffer.count)
    write(c, ServerMessage.reply(id: id, result: HelloResult(session: 1, access: .read).json).line)
    return buffer
  }

  static func write(_ fd: Int32, _ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
  }

  @Test func aSilentDaemonTimesOut() throws {
    // Nobody ever accepts: the kernel completes the connection, no greeting comes.
    let peer = try Peer()
    // The listening socket must outlive the client, not only the last use of `peer`.
    defer { withExtendedLifetime(peer) {} }
    let start = ContinuousClock.now
    do {
      _ = try ControlClient(path: peer.path, timeout: .milliseconds(300))
      Issue.record("connected to a daemon that never spoke")
    } catch {
      guard case .timedOut(let path, let after) = error else {
        Issue.record("expected a timeout, got \(error)")
        return
      }
      #expect(path == peer.path && after == .milliseconds(300))
      #expect("\(error)".contains("locd did not answer on \(peer.path) within 0.3 s"))
    }
    let waited = ContinuousClock.now - start
    #expect(waited >= .milliseconds(300), "not before the deadline")
    #expect(waited < .seconds(30), "and not forever")
  }

  @Test func aDaemonThatStopsAnsweringTimesOutPerCall() throws {
    let peer = try Peer()
    // The listening socket must outlive the client, not only the last use of `peer`.
    defer { withExtendedLifetime(peer) {} }
    // Greets and answers hello, then reads requests and never answers them.
    peer.serveOnce { c in
      var buffer = ControlClientTests.greet(c, answeringHello: .number(1))
      while read(c, &buffer, buffer.count) > 0 {}
      close(c)
    }
    let client = try ControlClient(path: peer.path, timeout: .seconds(10))
    #expect(client.access == .read)
    do {
      _ = try client.call(.status, timeout: .milliseconds(200))
      Issue.record("a status reply came from a peer that sends none")
    } catch {
      guard case .timedOut = error else {
        Issue.record("expected a timeout, got \(error)")
        return
      }
    }
  }

  @Test func aDaemonThatStopsReadingIsAnErrorNotASignal() throws {
    let peer = try Peer()
    defer { withExtendedLifetime(peer) {} }
    let stopped = DispatchSemaphore(value: 0)
    // Greets, answers hello, then stops reading (shutdown SHUT_RD): the client's next write
    // is EPIPE. Written with write(2), that is SIGPIPE, which ends the process (locctl, or
    // an app through LocationManager) before any error can be told.
    peer.serveOnce { c in
      _ = ControlClientTests.greet(c, answeringHello: .number(1))
      shutdown(c, Int32(SHUT_RD))
      stopped.signal()
      Thread.sleep(forTimeInterval: 15)
      close(c)
    }
    let client = try ControlClient(path: peer.path, timeout: .seconds(10))
    #expect(stopped.wait(timeout: .now() + 10) == .success)
    do {
      _ = try client.call(.status, timeout: .seconds(5))
      Issue.record("a status reply came from a peer that reads nothing")
    } catch {
      guard case .protocolError(let why) = error else {
        Issue.record("expected the broken connection, got \(error)")
        return
      }
      #expect(why.contains("Broken pipe") || why.contains("EPIPE"), "\(why)")
    }
  }

  @Test func anotherMajorIsRefusedAtTheGreeting() throws {
    let peer = try Peer()
    // The listening socket must outlive the client, not only the last use of `peer`.
    defer { withExtendedLifetime(peer) {} }
    peer.serveOnce { c in
      ControlClientTests.write(c, #"{"type":"hello","protocol":{"major":2,"minor":0},"server":"locd 9"}"#)
      var buffer = [UInt8](repeating: 0, count: 4096)
      while read(c, &buffer, buffer.count) > 0 {}
      close(c)
    }
    do {
      _ = try ControlClient(path: peer.path, timeout: .seconds(10))
      Issue.record("went on with a daemon of protocol 2.0")
    } catch {
      guard case .versionMismatch(let m) = error else {
        Issue.record("expected a version mismatch, got \(error)")
        return
      }
      #expect(m.server == ProtocolVersion(major: 2, minor: 0))
      #expect("\(error)".contains("the daemon speaks protocol 2.0, this client speaks 1.x"))
    }
  }
}
