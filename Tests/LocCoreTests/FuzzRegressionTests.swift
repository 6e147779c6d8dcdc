import LocCore
import Testing

/// Inputs the fuzzers (fuzz/run.sh) found, each with what went wrong, kept as plain tests.
@Suite struct FuzzRegressionTests {
  /// fuzz timerrule: an offset with a sub-second part was written back without it, so a rule
  /// read back from the timer store (which keeps the text) was not the rule that was added.
  @Test(arguments: [
    ("sunrise+1h30m4usec5s Mon,Wed-Fri", "sunrise+1h30m5s4us Mon,Wed-Fri"),
    ("sunset-0.5s", "sunset-500ms"),
    ("civil-dusk+250ms", "civil-dusk+250ms"),
    ("sunset-30m", "sunset-30m"),
  ])
  func aRuleWritesBackToItself(_ text: String, _ canonical: String) throws {
    let rule = try TimerRule(parsing: text)
    #expect(rule.description == canonical)
    #expect(try TimerRule(parsing: rule.description) == rule)
  }
}
