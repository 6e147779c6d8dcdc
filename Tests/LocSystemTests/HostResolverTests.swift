import Glibc
import Testing

@testable import LocSystem

/// The resolver thread's answer travels as bytes (`HostResolver.encode`); what the loop
/// decodes must be what the thread looked up, and a reply cut short must be an error.
@Suite struct HostResolverTests {
  static func addresses(_ host: String) throws -> [SocketAddress] {
    try SocketAddress.resolve(host: host, port: 2947, socketType: Int32(SOCK_STREAM.rawValue), passive: false)
  }

  @Test func addressesSurviveTheTripThroughBytes() throws {
    let sent = try HostResolverTests.addresses("127.0.0.1") + HostResolverTests.addresses("::1")
    let decoded = try HostResolver.decode(HostResolver.encode(.success(sent))).get()
    #expect(decoded.map(\.description) == ["127.0.0.1:2947", "[::1]:2947"])
  }

  @Test func anErrorSurvivesTheTripThroughBytes() {
    let error = SocketAddress.ResolveError(description: "resolve gps.invalid: Name or service not known")
    #expect(throws: error) { try HostResolver.decode(HostResolver.encode(.failure(error))).get() }
  }

  @Test func aReplyCutShortIsAnError() throws {
    let bytes = HostResolver.encode(.success(try HostResolverTests.addresses("127.0.0.1")))
    // Empty (the thread ended without a word), and one byte short of the address.
    let broken = SocketAddress.ResolveError(description: "resolve: no complete answer")
    for cut in [[], Array(bytes.dropLast())] {
      #expect(throws: broken) { try HostResolver.decode(cut).get() }
    }
  }

  @Test func aNameIsAnsweredByTheThreadThroughTheLoop() throws {
    let loop = try EventLoop()
    let resolver = HostResolver(loop: loop)
    var outcome: HostResolver.Outcome?
    // "localhost" is a name: it takes the thread path, whatever address it has first.
    resolver.resolve(host: "localhost", port: 2947, socketType: Int32(SOCK_STREAM.rawValue), passive: false) {
      outcome = $0
    }
    #expect(pump(loop) { outcome != nil })
    let addresses = try #require(try outcome?.get())
    #expect(addresses.allSatisfy { $0.description == "127.0.0.1:2947" || $0.description == "[::1]:2947" })
  }
}
