import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Issue 15, "Poisoned position", against the real locd: one datagram from any local user
/// must not freeze the position, and a source any local user can write to must not override
/// the receiver the configuration names.
@Suite struct PoisonedPositionTests {
  /// One RMC dated 2079 (NMEA's two-digit year "79"), 1 km north of `epoch`'s track.
  static let from2079 = nmea("GPRMC,120000.00,A,5954.5400,N,01042.0000,E,0.4,0.0,010679,,,A")

  @Test func aFutureDatedDatagramNeitherMovesNorFreezesThePosition() throws {
    // Before: the 2079 fix was taken without the jump check, saved to state.json, and every
    // honest fix after it was "old" until a restart.
    let port = freePort(datagram: true)
    let daemon = try LocdProcess(arguments: ["--source", "nmea+udp://:\(port)"])
    _ = try daemon.waitForStatus { $0.sourceState() == .known(.connected) }
    try sendDatagram("127.0.0.1", port, Array(epochs(2, endingSecondsAgo: 4).utf8))
    _ = try daemon.waitForStatus { $0.fix != nil }
    try sendDatagram("127.0.0.1", port, Array(Self.from2079.utf8))
    var status = try daemon.waitForStatus { s in
      s.rejectedFixes.contains { $0.name == "future" && $0.value == 1 }
    }
    let source = try #require(status.sources.first)
    #expect(source.dropping?.reason == .known(.future))
    #expect(source.dropping?.detail.contains("ahead of this machine's clock") == true)
    #expect((source.clockOffset?.seconds ?? 0) > 50 * 365 * 86_400, "its time is reported as off")
    #expect(source.trust == .known(.localUsers))
    #expect(daemon.log.contains("fixes from nmea+udp://127.0.0.1:\(port) dropped: dated"))
    // Honest fixes after it are taken: the position follows them.
    try sendDatagram("127.0.0.1", port, Array(epochs(2, endingSecondsAgo: 1, firstIndex: 2).utf8))
    status = try daemon.waitForStatus { s in
      s.fix.map { abs($0.time.seconds(since: Instant(secondsSinceEpoch: Date().timeIntervalSince1970))) < 3 }
        ?? false
    }
    #expect(
      status.fix.map { $0.time.utcDate.year }
        == Instant(secondsSinceEpoch: Date().timeIntervalSince1970).utcDate.year)
    #expect(status.sources.first?.dropping == nil)
    #expect(status.sources.first?.clockOffset == nil)
    #expect(daemon.stop() == 0)
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: daemon.stateDirectory + "/state.json")))
    let saved = try #require(try StoredState(decoding: bytes).lastKnown)
    #expect(saved.time.utcDate.year < 2079, "the 2079 fix never reached the disk")
  }

  @Test func aLocalUsersDatagramDoesNotOverrideTheLiveReceiver() throws {
    // Before: any fix newer than the receiver's, from any source, moved the position.
    let server = try TestServer()
    let port = freePort(datagram: true)
    let daemon = try LocdProcess(arguments: [
      "--source", "nmea+tcp://127.0.0.1:\(server.port)", "--source", "nmea+udp://:\(port)",
    ])
    let peer = try server.accept()
    defer { close(peer) }
    try writeAll(peer, epochs(2, endingSecondsAgo: 3))
    _ = try daemon.waitForCounters(source: 0) { $0["fixes"] == 2 }
    _ = try daemon.waitForStatus { $0.sourceState(1) == .known(.connected) }
    // 30 m from the receiver's track and newer: plausible in every way but its source.
    try sendDatagram("127.0.0.1", port, Array(epochs(1, endingSecondsAgo: 0, firstIndex: 3).utf8))
    let status = try daemon.waitForStatus { s in
      s.rejectedFixes.contains { $0.name == "outranked" && $0.value == 1 }
    }
    #expect(status.sources.map { $0.trust } == [.known(.system), .known(.localUsers)])
    #expect(status.sources[1].dropping?.reason == .known(.outranked))
    #expect(status.position.position?.source == "nmea+tcp://127.0.0.1:\(server.port)")
    let human = try daemon.locctl(["status"])
    #expect(human.stdout.contains("trust local-users"), "\(human.stdout)")
    #expect(human.stdout.contains("1 fix dropped as outranked"), "\(human.stdout)")
  }
}

/// Issue 15: peers that send nothing must not keep the real receiver out of the four slots
/// of `nmea+tcp-listen`.
@Suite struct PeerSlotSquattingTests {
  /// Connects to `port` until the connection stays open past a short wait (a refused one is
  /// closed at once); returns it, or throws after `timeout` seconds.
  static func connectUntilKept(_ port: Int, timeout: Double = 15) throws -> Int32 {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      let fd = try connectTCP("127.0.0.1", port)
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      if poll(&p, 1, 300) == 0 { return fd }  // not closed: kept
      close(fd)
    }
    throw HarnessError("never kept a slot")
  }

  /// Whether `fd` was closed by the other side (EOF readable now).
  static func closedByPeer(_ fd: Int32) -> Bool {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&p, 1, 0) == 1 else { return false }
    var byte: UInt8 = 0
    return recv(fd, &byte, 1, Int32(MSG_PEEK)) == 0
  }

  @Test func squattersAreEvictedAndTheReceiverKeepsItsSlot() throws {
    // Before: four idle connections from any local user refused the receiver for good.
    let port = freePort()
    let daemon = try LocdProcess(arguments: ["--source", "nmea+tcp-listen://:\(port)"])
    _ = try daemon.waitForStatus { $0.sourceState() == .known(.connected) }
    let squatters = try (0..<4).map { _ in try connectTCP("127.0.0.1", port) }
    defer { squatters.forEach { close($0) } }
    try daemon.waitForCounters { $0["peers"] == 4 }
    let receiver = try Self.connectUntilKept(port)
    defer { close(receiver) }
    try writeAll(receiver, epochs(2, endingSecondsAgo: 4))
    var c = try daemon.waitForCounters { $0["fixes"] == 2 }
    #expect(c["evictedPeers"] == 1)
    #expect(squatters.filter { Self.closedByPeer($0) }.count == 1, "the oldest squatter made room")
    // More squatters come: they take the other squatters' slots, never the receiver's.
    var more: [Int32] = []
    defer { more.forEach { close($0) } }
    for _ in 0..<6 { more.append(try connectTCP("127.0.0.1", port)) }
    try writeAll(receiver, epochs(2, endingSecondsAgo: 1, firstIndex: 2))
    c = try daemon.waitForCounters { $0["fixes"] == 4 }
    #expect(!Self.closedByPeer(receiver))
    #expect(c["peers"] == 4)
  }
}
