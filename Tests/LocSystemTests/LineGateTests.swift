import Testing

@testable import LocSystem

/// The pause gate of a live stream, without a stream: which bytes are decoded, which are
/// counted, by whole lines. Expected parts follow from the rule: a pause finishes the line in
/// progress, a resume waits for the next line start.
@Suite struct LineGateTests {
  /// The bytes of `text` passed through `gate`: the part to decode, as text.
  static func pass(_ text: String, _ gate: inout LineGate) -> String? {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBytes { raw in
      gate.pass(raw).map { String(decoding: bytes[$0], as: UTF8.self) }
    }
  }

  @Test func everythingIsDecodedWhileNotPaused() {
    var gate = LineGate()
    let decoded = Self.pass("$A*00\r\n$B", &gate)
    #expect(decoded == "$A*00\r\n$B")
    #expect(gate.ignoredBytes == 0 && gate.ignoredLines == 0)
  }

  @Test func aPauseFinishesTheLineInProgressThenCountsWhatFollows() {
    var gate = LineGate()
    _ = Self.pass("$A*00\r\n$B,1", &gate)
    let paused = gate.pause()
    #expect(paused)
    let pausedAgain = gate.pause()
    #expect(!pausedAgain)
    #expect(gate.finishingLine)
    // The rest of $B's line is decoded; the next line, 7 bytes with one line end, is not.
    let decoded = Self.pass(",2*00\r\n$C*00\r\n", &gate)
    #expect(decoded == ",2*00\r\n")
    #expect(!gate.finishingLine)
    #expect(gate.ignoredBytes == 7 && gate.ignoredLines == 1)
    let decodedAfter = Self.pass("$D", &gate)
    #expect(decodedAfter == nil)
    #expect(gate.ignoredBytes == 9 && gate.ignoredLines == 1)
  }

  @Test func aPauseAtALineStartDecodesNothingMore() {
    var gate = LineGate()
    _ = Self.pass("$A*00\r\n", &gate)
    let paused = gate.pause()
    #expect(paused)
    #expect(!gate.finishingLine)
    let decoded = Self.pass("$B*00\r\n", &gate)
    #expect(decoded == nil)
    #expect(gate.ignoredBytes == 7 && gate.ignoredLines == 1)
  }

  @Test func aResumeInTheMiddleOfALineWaitsForTheNextLine() {
    var gate = LineGate()
    let resumedUnpaused = gate.resume()
    #expect(!resumedUnpaused)
    _ = gate.pause()
    _ = Self.pass("$A,1", &gate)
    let resumed = gate.resume()
    #expect(resumed)
    // ",2*00\r\n" ends the ignored line (7 more bytes, its line end); "$B" is decoded.
    let decoded = Self.pass(",2", &gate)
    #expect(decoded == nil)
    let decodedAfter = Self.pass("*00\r\n$B", &gate)
    #expect(decodedAfter == "$B")
    #expect(gate.ignoredBytes == 11 && gate.ignoredLines == 1)
  }

  @Test func aNewStreamStartsAtALineStart() {
    var gate = LineGate()
    _ = Self.pass("$A,1", &gate)
    gate.begin()
    let paused = gate.pause()
    #expect(paused)
    // The old stream's half line is not finished on the new one.
    #expect(!gate.finishingLine)
    let decoded = Self.pass("$B*00\r\n", &gate)
    #expect(decoded == nil)
  }
}
