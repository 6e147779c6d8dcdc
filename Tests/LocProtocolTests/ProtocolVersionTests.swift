import LocProtocol
import Testing

@Suite struct ProtocolVersionTests {
  @Test func isVersionOne() {
    #expect(ProtocolVersion.major == 1)
  }
}
