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
    let r1 = Self.pass("$A*00\r\n$B", &gate)
    #expect(r1 == "$A*00\r\n$B")
    #expect(gate.ignoredBytes == 0 && gate.ignoredLines == 0)
  }

  @Test func aPauseFinishesTheLineInProgressThenCountsWhatFollows() {
    var gate = LineGate()
    _ = Self.pass("$A*00\r\n$B,1", &gate)
    let r2 = gate.pause()
    #expect(r2)
    let r3 = gate.pause()
    #expect(!r3)
    #expect(gate.finishingLine)
    // The rest of $B's line is decoded; the next line, 7 bytes with one line end, is not.
    let r4 = Self.pass(",2*00\r\n$C*00\r\n", &gate)
    #expect(r4 == ",2*00\r\n")
    #expect(!gate.finishingLine)
    #expect(gate.ignoredBytes == 7 && gate.ignoredLines == 1)
    let r5 = Self.pass("$D", &gate)
    #expect(r5 == nil)
    #expect(gate.ignoredBytes == 9 && gate.ignoredLines == 1)
  }

  @Test func aPauseAtALineStartDecodesNothingMore() {
    var gate = LineGate()
    _ = Self.pass("$A*00\r\n", &gate)
    let r6 = gate.pause()
    #expect(r6)
    #expect(!gate.finishingLine)
    let r7 = Self.pass("$B*00\r\n", &gate)
    #expect(r7 == nil)
    #expect(gate.ignoredBytes == 7 && gate.ignoredLines == 1)
  }

  @Test func aResumeInTheMiddleOfALineWaitsForTheNextLine() {
    var gate = LineGate()
    let r8 = gate.resume()
    #expect(!r8)
    _ = gate.pause()
    _ = Self.pass("$A,1", &gate)
    let r9 = gate.resume()
    #expect(r9)
    // ",2*00\r\n" ends the ignored line (7 more bytes, its line end); "$B" is decoded.
    let r10 = Self.pass(",2", &gate)
    #expect(r10 == nil)
    let r11 = Self.pass("*00\r\n$B", &gate)
    #expect(r11 == "$B")
    #expect(gate.ignoredBytes == 11 && gate.ignoredLines == 1)
  }

  @Test func aNewStreamStartsAtALineStart() {
    var gate = LineGate()
    _ = Self.pass("$A,1", &gate)
    gate.begin()
    let r12 = gate.pause()
    #expect(r12)
    // The old stream's half line is not finished on the new one.
    #expect(!gate.finishingLine)
    let r13 = Self.pass("$B*00\r\n", &gate)
    #expect(r13 == nil)
  }
}
