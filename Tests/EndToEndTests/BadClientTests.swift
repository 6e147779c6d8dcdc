import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Hostile and broken clients: each gets its error code and a counter, and the daemon
/// keeps serving everyone else.
@Suite struct BadClientTests {
  @Test func brokenRequestsGetStableErrorCodes() throws {
    let daemon = try LocdProcess()
    let client = try RawClient(path: daemon.socketPath)
    guard case .greeting(let greeting) = try client.readMessage() else {
      Issue.record("no greeting")
      return
    }
    #expect(greeting.version.major == 1)
    /// Sends `line` and expects an error `code`, for request `id` (`.some(nil)`: no id).
    func expectError(_ line: String, _ code: ErrorCode, id: RequestID?? = .none) throws {
      try client.send(line + "\n")
      let (errorID, reply) = try client.error()
      #expect(reply.code == .known(code), "\(line) -> \(reply)")
      if let id { #expect(errorID == id, "\(line)") }
    }
    // Before the handshake, a valid request is refused.
    try expectError(#"{"id":1,"method":"status"}"#, .handshakeRequired, id: .number(1))
    try expectError(
      #"{"id":2,"method":"hello","params":{"protocol":2}}"#, .unsupportedVersion, id: .number(2))
    try client.send(.hello(app: nil), id: .number(3))
    #expect(try client.reply(to: .number(3), .hello(app: nil)).access == .admin)
    try expectError("this is not json", .invalidJSON, id: .some(nil))
    try expectError(#"{"id":4,"method":"status""#, .invalidJSON)
    try expectError(#"[1,2,3]"#, .invalidRequest)
    try expectError(#"{"method":"status"}"#, .invalidRequest)
    try expectError(#"{"id":5}"#, .invalidRequest, id: .number(5))
    try expectError(#"{"id":6,"method":"teleport"}"#, .unknownMethod, id: .number(6))
    try expectError(
      #"{"id":"x","method":"set-location","params":{"lat":91,"lon":0}}"#, .invalidParams, id: .string("x"))
    try expectError(#"{"id":7,"method":"subscribe","params":{"events":["weather"]}}"#, .invalidParams)
    try expectError(String(repeating: "[", count: 5000), .invalidJSON)
    try expectError(#"{"id":8,"method":"hello","params":{"protocol":1}}"#, .invalidRequest)
    // Binary junk with a NUL and invalid UTF-8 inside a string.
    try client.send([0x00, 0xFF, 0xFE, 0x0A])
    #expect(try client.error().reply.code == .known(.invalidJSON))
    try client.send([0x7B, 0x22, 0x69, 0x64, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D, 0x0A])
    #expect(try client.error().reply.code == .known(.invalidJSON))
    // Still serving, on the same connection and to others.
    try client.send(.status, id: .number(9))
    _ = try client.reply(to: .number(9), .status)
    let s = try daemon.status()
    #expect(s.server.counters.invalidJSON == 5)
    #expect(s.server.counters.invalidRequests == 6)  // incl. invalid-params and a second hello
    #expect(s.server.counters.unknownMethods == 1)
    #expect(s.server.counters.beforeHandshake == 1)
  }

  @Test func aOneMebibyteLineIsRefusedAndTheConnectionGoesOn() throws {
    let daemon = try LocdProcess()
    let client = try RawClient(path: daemon.socketPath)
    try client.handshake()
    var big = Array(#"{"id":1,"method":"status","params":{"pad":""#.utf8)
    big += [UInt8](repeating: 0x61, count: 1 << 20)
    big += Array("\"}}\n".utf8)
    try client.send(big)
    #expect(try client.error().reply.code == .known(.requestTooLarge))
    // Exactly one error for the whole line, then normal service.
    try client.send(.status, id: .number(2))
    _ = try client.reply(to: .number(2), .status)
    // A huge line without any newline, then the peer vanishes: nothing is kept.
    let other = try RawClient(path: daemon.socketPath)
    try other.handshake()
    try other.send([UInt8](repeating: 0x20, count: 4 << 20))
    #expect(try other.error().reply.code == .known(.requestTooLarge))
    let s = try daemon.status()
    #expect(s.server.counters.tooLarge == 2)
    let rss = residentKiB(daemon.pid)
    #expect(rss < 64 * 1024, "locd grew to \(rss) KiB")
  }

  @Test func aThousandConcurrentClientsAreServed() throws {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = max(limit.rlim_cur, min(limit.rlim_max, 4096))
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    let daemon = try LocdProcess()
    #expect(try daemon.locctl(["set-location", "35.6762", "139.6503"]).status == 0)
    var clients: [RawClient] = []
    for _ in 0..<1000 { clients.append(try RawClient(path: daemon.socketPath)) }
    // All handshake and ask at once, then all answers are read.
    for c in clients { _ = try c.readMessage() }
    for (i, c) in clients.enumerated() {
      try c.send(
        #"{"id":0,"method":"hello","params":{"protocol":1}}"# + "\n" + #"{"id":\#(i + 1),"method":"status"}"#
          + "\n")
    }
    var answered = 0
    for (i, c) in clients.enumerated() {
      _ = try c.reply(to: .number(0), .hello(app: nil))
      if try c.reply(to: .number(Int64(i + 1)), .status).position.tier == .manual { answered += 1 }
    }
    #expect(answered == 1000)
    #expect(try daemon.status().server.sessions == 1001)
    clients.removeAll()
    _ = try daemon.waitForStatus { $0.server.sessions == 1 }
  }

  @Test func tooManyClientsAreTurnedAwayWithAReason() throws {
    // The three never say hello: a long HandshakeTimeout keeps a loaded machine from
    // dropping one of them (which would free its slot) before the fourth connects.
    let daemon = try LocdProcess(config: "[Limits]\nMaxClients=3\nHandshakeTimeout=1h\n")
    var clients: [RawClient] = []
    for _ in 0..<3 {
      let c = try RawClient(path: daemon.socketPath)
      _ = try c.readMessage()
      clients.append(c)
    }
    let extra = try RawClient(path: daemon.socketPath)
    #expect(try extra.error().reply.code == .known(.tooManyClients))
    #expect(try extra.readLine() == nil)
    clients.removeFirst()
    // A slot is free again: the next client (locctl) is served, and the refusal was counted.
    let s = try daemon.waitForStatus { $0.server.counters.refusedTooMany >= 1 }
    #expect(s.server.sessions == 1)
  }

  @Test func aClientThatNeverReadsIsDroppedAndOthersAreUnaffected() throws {
    let daemon = try LocdProcess(
      arguments: ["--source", "replay:\(Binaries.fixture("nmea/nmea-rtk.log").path)?speed=max&loop=1"],
      config: "[Limits]\nMaxQueuedBytesPerClient=65536\n")
    let reader = try RawClient(path: daemon.socketPath)
    try reader.handshake()
    let stuck = try RawClient(path: daemon.socketPath)
    try stuck.handshake()
    // Subscribe to everything, then never read: the looped 10 Hz replay at full speed
    // produces far more than the socket buffer plus the queue limit.
    try stuck.send(#"{"id":1,"method":"subscribe","params":{"events":"all"}}"# + "\n")
    try reader.send(#"{"id":1,"method":"subscribe","params":{"events":["source-status"]}}"# + "\n")
    _ = try reader.readMessage()
    let s = try daemon.waitForStatus(timeout: 20) { $0.server.counters.droppedSlow == 1 }
    #expect(s.server.sessions == 2)  // the reader and this status client
    #expect(daemon.log.contains("not reading (queue over 65536 bytes)"))
    // The reader still gets answers.
    try reader.send(.status, id: .number(2))
    var gotReply = false
    for _ in 0..<100 where !gotReply {
      if case .reply(.number(2), _) = try reader.readMessage() { gotReply = true }
    }
    #expect(gotReply)
  }

  @Test func aClientThatNeverSaysHelloIsDropped() throws {
    let daemon = try LocdProcess(config: "[Limits]\nHandshakeTimeout=300ms\n")
    let silent = try RawClient(path: daemon.socketPath)
    _ = try silent.readMessage()
    #expect(try silent.error(timeout: 5).reply.code == .known(.handshakeTimeout))
    #expect(try silent.readLine() == nil)
    #expect(try daemon.status().server.counters.droppedHandshake == 1)
  }
}
