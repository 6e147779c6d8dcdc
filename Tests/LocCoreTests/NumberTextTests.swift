import Testing

@testable import LocCore

/// Numbers on the wire: the shortest text that reads back, cut to 15 significant digits when
/// it needs 16 or 17 (digits a double cannot hold as a decimal: noise of an earlier step).
@Suite struct NumberTextTests {
  func text(_ n: Double) -> String { JSON.number(n).serialized }

  @Test func floatNoiseIsCutAt15Digits() {
    // 136 × 0.1 is 13.600000000000001 in binary; the decimal meant is 13.6.
    #expect(text(136 * 0.1) == "13.6")
    #expect(text(0.1 + 0.2) == "0.3")
    #expect(text(-(0.1 + 0.2)) == "-0.3")
    #expect(text(1.1 * 1.1) == "1.21")
    #expect(text(59.913_912_345_678_9 * 1.000_000_000_000_000_1) == "59.9139123456789")
  }

  @Test func numbersOf15DigitsOrFewerAreUnchanged() {
    for (n, s) in [
      (13.6, "13.6"), (59.9139123, "59.9139123"), (-33.8688, "-33.8688"), (0.001, "0.001"),
      (123_456.789_012_345, "123456.789012345"), (2.5, "2.5"), (1e-7, "1e-07"),
    ] {
      #expect(text(n) == s, "\(n)")
    }
    #expect(text(42) == "42")
  }

  @Test func theCutTextReadsBackAsTheNearestDoubleTo15Digits() {
    // Each value with 16-17 significant digits, and the 15-digit decimal it must become.
    for (n, s) in [(0.1 + 0.7, "0.8"), (4.35 * 100, "435"), (1 / 3.0, "0.333333333333333")] {
      #expect(text(n) == s, "\(n)")
    }
  }
}
