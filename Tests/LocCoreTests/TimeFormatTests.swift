import LocCore
import Testing

/// The one place locd formats times: expectations are the formats' definitions (RFC 3339
/// offsets, zero padding) and the wording docs/PROTOCOL.md and locctl(1) show.
@Suite struct TimeFormatTests {
  @Test func offsetsAreRFC3339() {
    #expect(TimeFormat.utcOffset(seconds: 0) == "+00:00")
    #expect(TimeFormat.utcOffset(seconds: 7200) == "+02:00")
    #expect(TimeFormat.utcOffset(seconds: -12_600) == "-03:30")
    #expect(TimeFormat.utcOffset(seconds: 20_700) == "+05:45")  // Asia/Kathmandu
  }

  @Test func clocksArePadded() {
    #expect(TimeFormat.clock(secondOfDay: 0) == "00:00")
    #expect(TimeFormat.clock(secondOfDay: 7 * 3600 + 5 * 60 + 9) == "07:05")
    #expect(TimeFormat.clock(secondOfDay: 7 * 3600 + 5 * 60 + 9, seconds: true) == "07:05:09")
    #expect(TimeFormat.padded(-42, width: 4) == "-0042")
  }

  @Test func durationsForPeople() {
    #expect(TimeFormat.duration(.milliseconds(500)) == "0.5 s")
    #expect(TimeFormat.duration(.seconds(45)) == "45 s")
    #expect(TimeFormat.duration(.seconds(90)) == "90 s")
    #expect(TimeFormat.duration(.seconds(120)) == "2 min")
    #expect(TimeFormat.duration(.seconds(15 * 60)) == "15 min")
    #expect(TimeFormat.duration(.seconds(7200)) == "2 h")
    #expect(TimeFormat.duration(.seconds(5400)) == "1 h 30 min")
    #expect(TimeFormat.duration(.seconds(3 * 86_400)) == "3 d")
  }

  @Test func coarseAgesChangeRarely() {
    #expect(TimeFormat.coarseAge(nil) == "unknown")
    #expect(TimeFormat.coarseAge(.seconds(59)) == "<1 min")
    #expect(TimeFormat.coarseAge(.seconds(299)) == "4 min")
    #expect(TimeFormat.coarseAge(.seconds(3 * 3600 + 59)) == "3 h")
    #expect(TimeFormat.coarseAge(.seconds(2 * 86_400)) == "2 d")
  }

  @Test func distances() {
    #expect(TimeFormat.distance(Meters(49.6)) == "50 m")
    #expect(TimeFormat.distance(Meters(1500)) == "1.5 km")
  }

  @Test func instantsRoundTripISO8601() throws {
    let t = try #require(Instant(iso8601: "2026-06-21T01:23:45.123456Z"))
    #expect(t.iso8601() == "2026-06-21T01:23:45Z")
    #expect(t.iso8601(fractionDigits: 3) == "2026-06-21T01:23:45.123Z")
    #expect(t.iso8601(fractionDigits: 6) == "2026-06-21T01:23:45.123456Z")
    #expect(Instant(iso8601: "2026-06-21T01:23:45+00:00") == Instant(iso8601: "2026-06-21T01:23:45Z"))
    #expect(Instant(iso8601: "2026-06-21T01:23:45+02:00") == nil)
    // Read over the bytes: signs, spaces and stray characters anywhere are refused.
    for bad in [
      "2026-+6-21T01:23:45Z", "+026-06-21T01:23:45Z", "2026-06-21T+1:23:45Z", "2026-06-21T01:23:45.Z",
      "2026-06-21T01:23:45ZZ", "2026-06-21T01:23:45+00:0", "2026-06-21T01:23:45+00:00 ",
      "2026-02-30T01:23:45Z", "2026-06-21X01:23:45Z", "2026/06/21T01:23:45Z", "2026-06-21T01:23:4Z",
    ] {
      #expect(Instant(iso8601: bad) == nil, "\(bad)")
    }
    // A substring is read as its own characters.
    let line = "at 2026-06-21T01:23:45Z."
    #expect(Instant(iso8601: line.dropFirst(3).dropLast()) == Instant(iso8601: "2026-06-21T01:23:45Z"))
  }

  @Test func wallTimesWithOffset() throws {
    let local = try #require(
      LocalDateTime(date: CivilDate(year: 2026, month: 6, day: 21)!, hour: 21, minute: 22, second: 3))
    #expect(local.rfc3339(offsetSeconds: 7200) == "2026-06-21T21:22:03+02:00")
  }
}

@Suite struct ISO8601RoundTripTests {
  /// Every instant written with six fraction digits reads back as itself, across four
  /// centuries (leap days included).
  @Test func writtenInstantsReadBack() throws {
    var rng = SystemRandomNumberGenerator()
    for _ in 0..<20_000 {
      let micro = Int64.random(in: -2_208_988_800_000_000...7_258_118_400_000_000, using: &rng)
      let t = Instant(microsecondsSinceEpoch: micro)
      #expect(Instant(iso8601: t.iso8601(fractionDigits: 6)) == t)
      #expect(CivilDate(iso: t.utcDate.description) == t.utcDate)
    }
  }
}
