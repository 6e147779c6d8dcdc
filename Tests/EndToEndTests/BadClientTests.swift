import Foundation
import Glibc
import LocCore
import Testing

/// Hostile and broken clients: each gets its error code and a counter, and the daemon
/// keeps serving everyone else.
@Suite struct BadClientTests {
  @Test func brokenRequestsGetStableErrorCodes() throws {
    let daemon = try LocdProcess()
    let client = try RawClient(path: daemon.socketPath)
    let greeting = try client.readJSON()
    #expect(greeting["type"]?.string == "hello")
    #expect(greeting["protocol"]?["major"]?.number == 1)
    func expectError(_ line: String, _ code: String, id: JSON? = nil) throws {
      try client.send(line + "\n")
      let reply = try client.readJSON()
      #expect(reply["type"]?.string == "error", "\(line) -> \(reply.serialized)")
      #expect(reply["error"]?["code"]?.string == code, "\(line) -> \(reply.serialized)")
      if let id { #expect(reply["id"] == id) }
    }
    // Before the handshake, a valid request is refused.
    try expectError(#"{"id":1,"method":"status"}"#, "handshake-required", id: .number(1))
    try expectError(
      #"{"id":2,"method":"hello","params":{"protocol":2}}"#, "unsupported-version", id: .number(2))
    try client.send(#"{"id":3,"method":"hello","params":{"protocol":1}}"# + "\n")
    #expect(try client.readJSON()["result"]?["access"]?.string == "admin")
    try expectError("this is not json", "invalid-json", id: .null)
    try expectError(#"{"id":4,"method":"status""#, "invalid-json")
    try expectError(#"[1,2,3]"#, "invalid-request")
    try expectError(#"{"method":"status"}"#, "invalid-request")
    try expectError(#"{"id":5}"#, "invalid-request", id: .number(5))
    try expectError(#"{"id":6,"method":"teleport"}"#, "unknown-method", id: .number(6))
    try expectError(
      #"{"id":"x","method":"set-location","params":{"lat":91,"lon":0}}"#, "invalid-params", id: .string("x"))
    try expectError(#"{"id":7,"method":"subscribe","params":{"events":["weather"]}}"#, "invalid-params")
    try expectError(String(repeating: "[", count: 5000), "invalid-json")
    try expectError(#"{"id":8,"method":"hello","params":{"protocol":1}}"#, "invalid-request")
    // Binary junk with a NUL and invalid UTF-8 inside a string.
    try client.send([0x00, 0xFF, 0xFE, 0x0A])
    #expect(try client.readJSON()["error"]?["code"]?.string == "invalid-json")
    try client.send([0x7B, 0x22, 0x69, 0x64, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D, 0x0A])
    #expect(try client.readJSON()["error"]?["code"]?.string == "invalid-json")
    // Still serving, on the same connection and to others.
    try client.send(#"{"id":9,"method":"status"}"# + "\n")
    #expect(try client.readJSON()["id"]?.number == 9)
    let s = try daemon.status()
    #expect(s["server"]?["invalidJSON"]?.number == 5)
    #expect(s["server"]?["invalidRequests"]?.number == 6)  // incl. invalid-params and a second hello
    #expect(s["server"]?["unknownMethods"]?.number == 1)
    #expect(s["server"]?["beforeHandshake"]?.number == 1)
  }

  @Test func aOneMebibyteLineIsRefusedAndTheConnectionGoesOn() throws {
    let daemon = try LocdProcess()
    let client = try RawClient(path: daemon.socketPath)
    try client.handshake()
    var big = Array(#"{"id":1,"method":"status","params":{"pad":""#.utf8)
    big += [UInt8](repeating: 0x61, count: 1 << 20)
    big += Array("\"}}\n".utf8)
    try client.send(big)
    let reply = try client.readJSON()
    #expect(reply["error"]?["code"]?.string == "request-too-large")
    // Exactly one error for the whole line, then normal service.
    try client.send(#"{"id":2,"method":"status"}"# + "\n")
    #expect(try client.readJSON()["id"]?.number == 2)
    // A huge line without any newline, then the peer vanishes: nothing is kept.
    let other = try RawClient(path: daemon.socketPath)
    try other.handshake()
    try other.send([UInt8](repeating: 0x20, count: 4 << 20))
    #expect(try other.readJSON()["error"]?["code"]?.string == "request-too-large")
    let s = try daemon.status()
    #expect(s["server"]?["tooLarge"]?.number == 2)
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
    for c in clients { _ = try c.readJSON() }
    for (i, c) in clients.enumerated() {
      try c.send(
        #"{"id":0,"method":"hello","params":{"protocol":1}}"# + "\n" + #"{"id":\#(i + 1),"method":"status"}"#
          + "\n")
    }
    var answered = 0
    for (i, c) in clients.enumerated() {
      _ = try c.readJSON()
      let status = try c.readJSON()
      if status["id"]?.number == Double(i + 1), status["result"]?["position"]?["tier"]?.string == "manual" {
        answered += 1
      }
    }
    #expect(answered == 1000)
    #expect(try daemon.status()["server"]?["sessions"]?.number == 1001)
    clients.removeAll()
    _ = try daemon.waitForStatus { $0["server"]?["sessions"]?.number == 1 }
  }

  @Test func tooManyClientsAreTurnedAwayWithAReason() throws {
    let daemon = try LocdProcess(config: "[Limits]\nMaxClients=3\n")
    var clients: [RawClient] = []
    for _ in 0..<3 {
      let c = try RawClient(path: daemon.socketPath)
      _ = try c.readJSON()
      clients.append(c)
    }
    let extra = try RawClient(path: daemon.socketPath)
    let refused = try extra.readJSON()
    #expect(refused["error"]?["code"]?.string == "too-many-clients")
    #expect(try extra.readLine() == nil)
    clients.removeFirst()
    // A slot is free again: the next client (locctl) is served, and the refusal was counted.
    let s = try daemon.waitForStatus { ($0["server"]?["refusedTooMany"]?.number ?? 0) >= 1 }
    #expect(s["server"]?["sessions"]?.number == 1)
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
    _ = try reader.readJSON()
    let s = try daemon.waitForStatus(timeout: 20) { $0["server"]?["droppedSlow"]?.number == 1 }
    #expect(s["server"]?["sessions"]?.number == 2)  // the reader and this status client
    #expect(daemon.log.contains("not reading (queue over 65536 bytes)"))
    // The reader still gets answers.
    try reader.send(#"{"id":2,"method":"status"}"# + "\n")
    var gotReply = false
    for _ in 0..<100 where !gotReply {
      let m = try reader.readJSON()
      gotReply = m["id"]?.number == 2 && m["type"]?.string == "reply"
    }
    #expect(gotReply)
  }

  @Test func aClientThatNeverSaysHelloIsDropped() throws {
    let daemon = try LocdProcess(config: "[Limits]\nHandshakeTimeout=300ms\n")
    let silent = try RawClient(path: daemon.socketPath)
    _ = try silent.readJSON()
    let bye = try silent.readJSON(timeout: 5)
    #expect(bye["error"]?["code"]?.string == "handshake-timeout")
    #expect(try silent.readLine() == nil)
    #expect(try daemon.status()["server"]?["droppedHandshake"]?.number == 1)
  }
}
