import LocCore
import Testing

@Suite struct StoredStateTests {
  let position = Position(
    coordinate: Coordinate(lat: -45.8776, lon: 170.5001)!, accuracy: 3.5, altitude: 12,
    time: Instant(secondsSinceEpoch: 1_555_029_600.25),
    receivedAt: Instant(secondsSinceEpoch: 1_800_000_000), source: "gpsd://127.0.0.1:2947")

  @Test func roundTrips() throws {
    var manual = position
    manual.source = "manual"
    manual.name = "cabin \"north\""
    let state = StoredState(lastKnown: position, manual: manual)
    let bytes = state.encoded()
    #expect(bytes.last == 0x0A)
    #expect(try StoredState(decoding: bytes) == state)
    #expect(try StoredState(decoding: StoredState().encoded()) == StoredState())
  }

  @Test(arguments: [
    "", "{", "null", "[]", #"{"version":2}"#, #"{"lastKnown":null}"#,
    #"{"version":1,"lastKnown":{"lat":91,"lon":0,"time":"2026-01-01T00:00:00Z","receivedAt":"2026-01-01T00:00:00Z","source":"x"}}"#,
    #"{"version":1,"lastKnown":{"lat":1,"lon":0,"time":"yesterday","receivedAt":"2026-01-01T00:00:00Z","source":"x"}}"#,
    #"{"version":1,"lastKnown":{"lat":1,"lon":0,"time":"2026-01-01T00:00:00Z","receivedAt":"2026-01-01T00:00:00Z","source":"x","accuracy":-1}}"#,
  ])
  func rejectsCorruptFiles(_ text: String) {
    #expect(throws: StoredState.DecodeError.self) { try StoredState(decoding: Array(text.utf8)) }
  }

  @Test func rejectsTruncationAtEveryLength() {
    let bytes = StoredState(lastKnown: position).encoded()
    // Every proper prefix that is not the full object must be rejected, never misread.
    for n in 0..<(bytes.count - 1) {
      #expect(throws: StoredState.DecodeError.self) { try StoredState(decoding: Array(bytes[0..<n])) }
    }
  }
}
