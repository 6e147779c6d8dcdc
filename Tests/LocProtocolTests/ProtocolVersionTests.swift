import LocCore
import LocProtocol
import Testing

/// The greeting names the version this build speaks, and the handshake refuses another
/// major version on both sides (docs/PROTOCOL.md, "Versions").
@Suite struct ProtocolVersionTests {
  func greeting(_ line: String) throws -> Greeting {
    guard case .greeting(let g) = try ServerMessage.decode(Array(line.utf8)) else {
      throw WireDecodingError(WirePath(), "not a greeting: \(line)")
    }
    return g
  }

  @Test func greetingNamesTheVersionConstants() throws {
    let line = ServerMessage.greeting(Greeting(serverVersion: "9.8.7")).line
    let json = try JSON.parse(line)
    #expect(json["type"] == .string("hello"))
    #expect(json["protocol"]?["major"] == .int(ProtocolVersion.major))
    #expect(json["protocol"]?["minor"] == .int(ProtocolVersion.minor))
    #expect(json["server"] == .string("locd 9.8.7"))
    #expect(try greeting(line).version == ProtocolVersion.current)
  }

  @Test func clientGoesOnWithAnyMinorOfItsMajor() throws {
    let older = try greeting(#"{"type":"hello","protocol":{"major":1,"minor":0},"server":"locd 0.0.9"}"#)
    let newer = try greeting(
      #"{"type":"hello","protocol":{"major":1,"minor":7},"server":"locd 3.0","extra":1}"#)
    let client = ProtocolVersion(major: 1, minor: 1)
    #expect((try? older.check(client: client).get()) != nil)
    #expect((try? newer.check(client: client).get()) != nil)
  }

  @Test func clientRefusesAnotherMajor() throws {
    let client = ProtocolVersion(major: 1, minor: 1)
    for major in [0, 2, 10] {
      let g = try greeting(#"{"type":"hello","protocol":{"major":\#(major),"minor":0},"server":"locd x"}"#)
      switch g.check(client: client) {
      case .success: Issue.record("a client of 1.1 must not go on with a server of \(major).0")
      case .failure(let mismatch):
        #expect(mismatch.server == ProtocolVersion(major: major, minor: 0))
        #expect(
          mismatch.description.contains("the daemon speaks protocol \(major).0, this client speaks 1.x"))
      }
    }
  }

  @Test func helloCarriesTheMajorAndTheServerAnswersWithItsVersion() throws {
    let line = Call.hello(app: "org.example.Maps").request.line(id: .number(0))
    let (_, request) = try WireRequest.decode(Array(line.utf8)).get()
    #expect(request == .hello(protocolMajor: ProtocolVersion.major, app: "org.example.Maps", client: nil))
    let reply = try HelloResult(json: HelloResult(session: 3, access: .read).json)
    #expect(reply.version == .current && reply.access == .read && reply.session == 3)
  }

  @Test func versionsOrder() {
    #expect(ProtocolVersion(major: 1, minor: 9) < ProtocolVersion(major: 2, minor: 0))
    #expect(ProtocolVersion(major: 1, minor: 0) < ProtocolVersion(major: 1, minor: 1))
    #expect(ProtocolVersion(major: 1, minor: 1).description == "1.1")
  }
}
