import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// A local user who opens connections and holds them (issue 15, "Stalls and squatting"):
/// the peers are real processes of uid 65534 (ForeignClients), the daemon the built locd.
@Suite(.enabled(if: getuid() == 0, "needs root to run clients as other uids"))
struct SquattingTests {
  /// Anyone may connect; access is decided by uid and groups, as on a shared machine.
  static let open = "[Daemon]\nSocketMode=0666\nSocketGroup=\n"

  /// The first message connection `index` received.
  func first(_ clients: ForeignClients, _ index: Int) throws -> ServerMessage {
    try #require(try clients.messages(index).first)
  }

  @Test func aUserWhoTakesEverySlotStillLeavesRootTheReservedOnes() throws {
    // Before: nobody's 12 connections took all 12 slots and root was answered
    // too-many-clients (2,100 of them against the default 2048).
    let daemon = try LocdProcess(
      config: SquattingTests.open + "[Limits]\nMaxClients=12\nReservedAdminClients=2\nMaxClientsPerUser=100\n"
    )
    let squatter = try ForeignClients(daemon, count: 12)
    try squatter.wait { r in (0..<12).allSatisfy { r[$0]?.isEmpty == false } }
    var greeted = 0
    var refused = 0
    for i in 0..<12 {
      switch try first(squatter, i) {
      case .greeting: greeted += 1
      case .error(_, let e) where e.code == .known(.tooManyClients): refused += 1
      case let other: Issue.record("connection \(i): \(other.line)")
      }
    }
    // 12 slots, 2 of them kept for administrators: 10 for nobody.
    #expect(greeted == 10)
    #expect(refused == 2)
    // Root gets the two reserved slots: a held connection and locctl beside it.
    let root = try RawClient(path: daemon.socketPath)
    #expect(try root.handshake().access == .admin)
    let s = try daemon.status()
    #expect(s.server.counters.refusedTooMany == 2)
  }

  @Test func oneUserIsHeldToItsShareOfConnections() throws {
    let daemon = try LocdProcess(config: SquattingTests.open + "[Limits]\nMaxClientsPerUser=3\n")
    let user = try ForeignClients(daemon, count: 5)
    try user.wait { r in (0..<5).allSatisfy { r[$0]?.isEmpty == false } }
    let refusals = try (0..<5).compactMap { i -> ErrorReply? in
      guard case .error(_, let e) = try first(user, i) else { return nil }
      return e
    }
    #expect(refusals.count == 2)
    for e in refusals {
      #expect(e.code == .known(.tooManyClients))
      #expect(e.message.contains("uid 65534"), "\(e.message)")
    }
    // The refused connections are closed; the three others are served.
    try user.wait { r in r.values.filter { $0.last == "EOF" }.count == 2 }
    try user.send(nil, .status, id: .number(1))
    try user.wait { r in r.values.filter { $0.count >= 2 && $0.last != "EOF" }.count == 3 }
    #expect(try daemon.status().server.counters.refusedPerUser == 2)
  }

  @Test func aSessionThatCanDoNothingIsClosedAfterTheIdleTimeout() throws {
    let daemon = try LocdProcess(config: SquattingTests.open + "[Limits]\nIdleTimeout=300ms\n")
    let stranger = try ForeignClients(daemon, count: 1)
    try stranger.helloAll()
    // The hello is answered (access none), then, 300 ms later, idle-timeout and the end.
    try stranger.wait { $0[0]?.last == "EOF" }
    let messages = try stranger.messages(0)
    #expect(messages.count == 3, "\(messages.map(\.line))")
    guard case .reply(.number(0), let hello) = try #require(messages.dropFirst().first) else {
      Issue.record("no hello reply: \(messages.map(\.line))")
      return
    }
    #expect(try HelloResult(json: hello, path: WirePath()).access == .none)
    guard case .error(nil, let e) = try #require(messages.last) else {
      Issue.record("no last words: \(messages.map(\.line))")
      return
    }
    #expect(e.code == .known(.idleTimeout))
    // Root's sessions have access and are never closed for idling: one held past the timeout
    // still answers.
    let root = try RawClient(path: daemon.socketPath)
    try root.handshake()
    #expect(try daemon.waitForStatus { $0.server.counters.droppedIdle == 1 }.server.sessions == 2)
    usleep(600_000)
    try root.send(.status, id: .number(1))
    #expect(try root.reply(to: .number(1), .status).server.counters.droppedIdle == 1)
  }

  @Test func aReloadThatTakesAUserOutOfTheReadGroupEndsTheirReading() throws {
    // gid 100 (users) exists on every Debian system.
    let daemon = try LocdProcess(config: SquattingTests.open + "ReadGroup=100\n")
    #expect(try daemon.locctl(["set-location", "48.8566", "2.3522"]).status == 0)
    let reader = try ForeignClients(daemon, count: 1, groups: [100])
    try reader.helloAll()
    try reader.send(0, .subscribe([.location]), id: .number(1))
    try reader.send(0, .status, id: .number(2))
    let reply = try reader.message(0, { $0.isReply(to: 2) })
    guard case .reply(_, let status) = reply else {
      Issue.record("expected the status reply, got \(reply)")
      return
    }
    #expect(
      try StatusView(json: status, path: WirePath()).position.position?.coordinate.latitude.value == 48.8566)
    // The group leaves the configuration; before, the open session kept reading.
    try (SquattingTests.open).write(
      toFile: daemon.directory + "/locd.conf", atomically: true, encoding: .utf8)
    #expect(try daemon.locctl(["reload"]).status == 0)
    let changed = try reader.message(0) { m in
      if case .event(let e) = m, case .accessChanged = e.data { return true }
      return false
    }
    guard case .event(let event) = changed, case .accessChanged(let change) = event.data else {
      Issue.record("expected an access-changed event, got \(changed)")
      return
    }
    #expect(change.from == .read)
    #expect(change.to == .none)
    #expect(change.unsubscribed == [.location])
    #expect(change.events.isEmpty)
    let seenBefore = try reader.messages(0).count
    try reader.send(0, .status, id: .number(3))
    guard case .error(_, let e) = try reader.message(0, { $0.isReply(to: 3) }) else {
      Issue.record("status answered: \(try reader.messages(0).map(\.line))")
      return
    }
    #expect(e.code == .known(.permissionDenied))
    // Nothing with coordinates came after the change.
    #expect(try reader.messages(0).dropFirst(seenBefore).allSatisfy { $0.isReply(to: 3) })
    #expect(daemon.log.contains("access read -> none (configuration-reloaded)"))
  }
}

extension ServerMessage {
  /// Whether this answers (a reply or an error) request `id`.
  func isReply(to id: Int64) -> Bool {
    switch self {
    case .reply(.number(id), _), .error(.number(id)?, _): return true
    default: return false
    }
  }
}
