import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

@testable import LocSystem

/// locd-session's link to locd against a real Unix socket whose other end is played by the
/// test (`ControlClientTests.Peer`): what the session is told when locd cannot take a mode
/// change.
@Suite struct LocdLinkTests {
  /// What the link told its handlers.
  final class Told {
    var refusals: [String] = []
    var logs: [String] = []
  }

  @Test func aModeChangeThatCannotBeWrittenIsRefusedOnce() throws {
    let peer = try ControlClientTests.Peer()
    defer { withExtendedLifetime(peer) {} }
    let followed = DispatchSemaphore(value: 0)
    // Greets, answers hello (the link's request 0), reads the follow request, then stops
    // reading: shutdown(SHUT_RD) makes the link's next write fail (EPIPE) while nothing
    // comes for it to read, so the failure is met by the write, not by a read.
    peer.serveOnce { c in
      var buffer = ControlClientTests.greet(c, answeringHello: .number(0))
      _ = read(c, &buffer, buffer.count)
      shutdown(c, Int32(SHUT_RD))
      followed.signal()
      Thread.sleep(forTimeInterval: 15)
      close(c)
    }
    let loop = try EventLoop()
    let told = Told()
    let link = LocdLink(
      path: peer.path, rules: .standard, loop: loop,
      handlers: LocdLink.Handlers(
        log: { _, message in told.logs.append(message) }, schedule: { _, _ in }, settled: {},
        refused: { why in told.refusals.append(why) }))
    link.start()
    #expect(pump(loop, seconds: 10) { link.state == .following }, "\(told.logs)")
    #expect(followed.wait(timeout: .now() + 10) == .success)
    // The caller tells the user itself only when the link says nothing was sent; otherwise
    // the answer, or its loss, comes through `refused`. Either way the user hears it once.
    let sent = link.setMode(.dark)
    let reports = told.refusals.count + (sent ? 0 : 1)
    #expect(reports == 1, "refused \(told.refusals), setMode returned \(sent)")
    #expect(link.state == .down)
  }
}
