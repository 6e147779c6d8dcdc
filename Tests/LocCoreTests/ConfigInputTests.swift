import LocCore
import Testing

/// Numbers in configuration and timer files never trap: whatever the text, it is a value or a
/// problem with `file:line` and a reason (issue 10: a repeated `FreshFor=8999999999999999us`
/// overflowed the time-span parser and killed `locd --check-config`, and a running daemon on
/// SIGHUP, with a trap).
@Suite struct ConfigInputTests {
  @Test func timeSpans() throws {
    #expect(try TimeSpan.parse("10s") == .seconds(10))
    #expect(try TimeSpan.parse("1h 30min") == .seconds(5400))
    #expect(try TimeSpan.parse("1h30min") == .seconds(5400))
    #expect(try TimeSpan.parse("250ms") == .milliseconds(250))
    #expect(try TimeSpan.parse("15") == .seconds(15))
    #expect(try TimeSpan.parse("2d") == .seconds(172_800))
    #expect(try TimeSpan.parse("0.5s") == .milliseconds(500))
    #expect(throws: TimeSpan.ParseError.empty) { try TimeSpan.parse("  ") }
    #expect(throws: TimeSpan.ParseError.notANumber("-1s")) { try TimeSpan.parse("-1s") }
    #expect(throws: TimeSpan.ParseError.notANumber("1.2.3s")) { try TimeSpan.parse("1.2.3s") }
    #expect(throws: TimeSpan.ParseError.unknownUnit("parsecs")) { try TimeSpan.parse("5 parsecs") }
    // Digits of other scripts are digits to Character.isNumber, not to a span.
    #expect(throws: TimeSpan.ParseError.notANumber("٣s")) { try TimeSpan.parse("٣s") }
  }

  @Test func aSpanThatOverflowsIsTooLongNotATrap() throws {
    // Each term below the old per-term bound (9e15 us), their sum past Int64: this trapped.
    let term = "8999999999999999us"
    #expect(throws: TimeSpan.ParseError.tooLong) {
      try TimeSpan.parse(Array(repeating: term, count: 1100).joined(separator: " "))
    }
    #expect(throws: TimeSpan.ParseError.tooLong) { try TimeSpan.parse(term + " " + term) }
    #expect(throws: TimeSpan.ParseError.tooLong) {
      try TimeSpan.parse(String(repeating: "9", count: 400) + "d")
    }
    #expect(try TimeSpan.parse("9000000000000000us") == TimeSpan.maximum)
    #expect(throws: TimeSpan.ParseError.tooLong) { try TimeSpan.parse("9000000000000001us") }
  }

  @Test func anOverflowingSpanInTheConfigurationIsAProblemAtItsLine() {
    var c = DaemonConfig()
    let line = "FreshFor=" + Array(repeating: "8999999999999999us", count: 1100).joined(separator: " ")
    let problems = c.apply(fileText: "[Position]\n\(line)\n", fileName: "/etc/locd/locd.conf")
    #expect(problems.map(\.line) == [2])
    #expect(problems.first?.file == "/etc/locd/locd.conf")
    #expect(problems.first?.message.hasPrefix("FreshFor= must be a time span") == true)
    #expect(c.freshFor == DaemonConfig().freshFor)
  }

  @Test func anOverflowingTimerOffsetIsAParseError() {
    #expect(throws: TimerRule.ParseError.self) {
      try TimerRule(parsing: "sunset-8999999999999999us8999999999999999us")
    }
  }

  @Test func aHugeReplaySpeedIsWrittenBackWithoutATrap() throws {
    // `String(Int(f))` trapped for a whole factor past Int's range: the daemon writes every
    // source's URI into its status and logs.
    let uri = try SourceURI(parsing: "replay:/x.log?speed=1e300")
    #expect(uri.description == "replay:/x.log?speed=1e+300&loop=0")
    #expect(try SourceURI(parsing: uri.description) == uri)
  }
}
