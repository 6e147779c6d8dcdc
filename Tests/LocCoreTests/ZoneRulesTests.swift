import Foundation
import LocCore
import Testing

/// Rules read from the system's TZif files (Debian tzdata); the pure core only sees bytes.
func systemZone(_ name: String) throws -> ZoneRules {
  let url = URL(fileURLWithPath: "/usr/share/zoneinfo").appendingPathComponent(name)
  return try ZoneRules(name: name, tzif: [UInt8](try Data(contentsOf: url)))
}

func utc(_ iso: String) -> Instant { Instant(iso8601: iso)! }

func wall(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int = 0) -> LocalDateTime {
  LocalDateTime(date: CivilDate(year: y, month: mo, day: d)!, hour: h, minute: mi)!
}

@Suite struct ZoneRulesTests {
  @Test func europeSpringGapAndAutumnFold() throws {
    let paris = try systemZone("Europe/Paris")
    #expect(paris.utcOffsetSeconds(at: utc("2024-03-31T00:59:59Z")) == 3600)
    #expect(paris.abbreviation(at: utc("2024-03-31T00:59:59Z")) == "CET")
    #expect(paris.utcOffsetSeconds(at: utc("2024-03-31T01:00:00Z")) == 7200)
    #expect(paris.isDaylightSaving(at: utc("2024-03-31T01:00:00Z")))
    #expect(paris.abbreviation(at: utc("2024-07-01T12:00:00Z")) == "CEST")
    // 02:30 does not exist on the spring day, and exists twice on the autumn day.
    #expect(paris.instants(at: wall(2024, 3, 31, 2, 30)).isEmpty)
    #expect(paris.instants(at: wall(2024, 3, 31, 3, 0)) == [utc("2024-03-31T01:00:00Z")])
    #expect(
      paris.instants(at: wall(2024, 10, 27, 2, 30)) == [
        utc("2024-10-27T00:30:00Z"), utc("2024-10-27T01:30:00Z"),
      ])
    #expect(paris.instants(at: wall(2024, 10, 27, 3, 0)) == [utc("2024-10-27T02:00:00Z")])
    let spring = paris.localDay(CivilDate(year: 2024, month: 3, day: 31)!)
    #expect(spring.upperBound.seconds(since: spring.lowerBound) == 23 * 3600)
    let autumn = paris.localDay(CivilDate(year: 2024, month: 10, day: 27)!)
    #expect(autumn.upperBound.seconds(since: autumn.lowerBound) == 25 * 3600)
    #expect(autumn.lowerBound == utc("2024-10-26T22:00:00Z"))
    let next = try #require(paris.nextTransition(after: utc("2024-06-01T00:00:00Z")))
    #expect(next.instant == utc("2024-10-27T01:00:00Z"))
    #expect(next.before.abbreviation == "CEST" && next.after.abbreviation == "CET")
    #expect(paris.localDateTime(at: utc("2024-10-27T01:30:00Z")).description == "2024-10-27T02:30:00")
  }

  @Test func lordHoweHalfHourDaylightSaving() throws {
    let lordHowe = try systemZone("Australia/Lord_Howe")
    #expect(lordHowe.utcOffsetSeconds(at: utc("2024-01-15T00:00:00Z")) == 11 * 3600)
    #expect(lordHowe.utcOffsetSeconds(at: utc("2024-06-15T00:00:00Z")) == 10 * 3600 + 1800)
    // 2024-04-07 02:00 +11 -> 01:30 +1030: 01:30..02:00 twice, a 24.5-hour day.
    #expect(lordHowe.instants(at: wall(2024, 4, 7, 1, 45)).count == 2)
    let autumn = lordHowe.localDay(CivilDate(year: 2024, month: 4, day: 7)!)
    #expect(autumn.upperBound.seconds(since: autumn.lowerBound) == 24.5 * 3600)
    // 2024-10-06 02:00 +1030 -> 02:30 +11: a 23.5-hour day.
    #expect(lordHowe.instants(at: wall(2024, 10, 6, 2, 15)).isEmpty)
    let spring = lordHowe.localDay(CivilDate(year: 2024, month: 10, day: 6)!)
    #expect(spring.upperBound.seconds(since: spring.lowerBound) == 23.5 * 3600)
  }

  @Test func chathamQuarterHourOffsets() throws {
    let chatham = try systemZone("Pacific/Chatham")
    #expect(chatham.utcOffsetSeconds(at: utc("2024-07-01T00:00:00Z")) == 12 * 3600 + 45 * 60)
    #expect(chatham.utcOffsetSeconds(at: utc("2024-01-01T00:00:00Z")) == 13 * 3600 + 45 * 60)
    #expect(chatham.localDateTime(at: utc("2024-01-01T00:00:00Z")).description == "2024-01-01T13:45:00")
    // Midnight local on 2024-07-01 is 11:15 UTC the day before.
    #expect(chatham.startOfDay(CivilDate(year: 2024, month: 7, day: 1)!) == utc("2024-06-30T11:15:00Z"))
  }

  @Test func cairoDayStartsAtOneWhenClocksJumpAtMidnight() throws {
    let cairo = try systemZone("Africa/Cairo")
    let day = CivilDate(year: 2024, month: 4, day: 26)!
    #expect(cairo.instants(at: LocalDateTime(midnightOf: day)).isEmpty)
    #expect(cairo.startOfDay(day) == utc("2024-04-25T22:00:00Z"))
    #expect(cairo.localDateTime(at: cairo.startOfDay(day)).description == "2024-04-26T01:00:00")
    let range = cairo.localDay(day)
    #expect(range.upperBound.seconds(since: range.lowerBound) == 23 * 3600)
    // Autumn: the last Thursday of October ends at 24:00 EEST, so 23:xx happens twice.
    #expect(cairo.instants(at: wall(2024, 10, 31, 23, 30)).count == 2)
  }

  @Test func santiagoChangesAtLocalMidnight() throws {
    let santiago = try systemZone("America/Santiago")
    // 2024-09-08: 00:00 -04 becomes 01:00 -03; the day starts at 01:00.
    let spring = CivilDate(year: 2024, month: 9, day: 8)!
    #expect(santiago.startOfDay(spring) == utc("2024-09-08T04:00:00Z"))
    #expect(santiago.localDateTime(at: santiago.startOfDay(spring)).hour == 1)
    // 2024-04-06 24:00 -03 becomes 23:00 -04: 2024-04-06 lasts 25 hours.
    let autumn = santiago.localDay(CivilDate(year: 2024, month: 4, day: 6)!)
    #expect(autumn.upperBound.seconds(since: autumn.lowerBound) == 25 * 3600)
  }

  @Test func apiaSkippedDecember30th2011() throws {
    let apia = try systemZone("Pacific/Apia")
    let skipped = CivilDate(year: 2011, month: 12, day: 30)!
    #expect(apia.instants(at: LocalDateTime(date: skipped, hour: 12)!).isEmpty)
    #expect(apia.localDay(skipped).isEmpty)
    #expect(apia.startOfDay(skipped) == utc("2011-12-30T10:00:00Z"))
    #expect(apia.startOfDay(skipped.adding(days: 1)) == utc("2011-12-30T10:00:00Z"))
    #expect(apia.localDate(at: utc("2011-12-30T09:59:59Z")).description == "2011-12-29")
    #expect(apia.localDate(at: utc("2011-12-30T10:00:00Z")).description == "2011-12-31")
    let day29 = apia.localDay(skipped.adding(days: -1))
    #expect(day29.upperBound.seconds(since: day29.lowerBound) == 24 * 3600)
  }

  @Test func fixedZonesAndUTC() throws {
    let plus3 = try systemZone("Etc/GMT+3")
    #expect(plus3.utcOffsetSeconds(at: utc("2024-06-01T00:00:00Z")) == -3 * 3600)
    #expect(plus3.nextTransition(after: utc("2024-06-01T00:00:00Z")) == nil)
    #expect(ZoneRules.utc.localDateTime(at: utc("2024-06-01T12:34:56Z")).description == "2024-06-01T12:34:56")
    #expect(ZoneRules.utc.instants(at: wall(2024, 6, 1, 12)) == [utc("2024-06-01T12:00:00Z")])
  }

  @Test func footerDecidesAfterTheTable() throws {
    // Fat files list transitions until 2037; later instants come from the TZ string footer.
    let newYork = try systemZone("America/New_York")
    #expect(newYork.footer != nil)
    #expect(newYork.utcOffsetSeconds(at: utc("2090-07-04T12:00:00Z")) == -4 * 3600)
    #expect(newYork.utcOffsetSeconds(at: utc("2090-12-25T12:00:00Z")) == -5 * 3600)
    let next = try #require(newYork.nextTransition(after: utc("2090-01-01T00:00:00Z")))
    // Second Sunday of March 2090 is the 12th; 02:00 EST = 07:00 UTC.
    #expect(next.instant == utc("2090-03-12T07:00:00Z"))
  }

  @Test func malformedBytesThrowAndNeverTrap() throws {
    let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/Europe/Oslo")))
    #expect(throws: ZoneRules.ParseError.notTZif) { try ZoneRules(name: "x", tzif: Array("hello".utf8)) }
    // Every truncation either fails cleanly or (past the 64-bit data) only loses the footer.
    var accepted = 0
    for length in stride(from: 0, to: good.count, by: 7) {
      if (try? ZoneRules(name: "x", tzif: Array(good[0..<length]))) != nil { accepted += 1 }
    }
    #expect(accepted == 0)
    // Flipping single bytes must never trap.
    var flipped = good
    for i in stride(from: 0, to: good.count, by: 3) {
      flipped[i] ^= 0xFF
      _ = try? ZoneRules(name: "x", tzif: flipped)
      flipped[i] = good[i]
    }
    // Leap-second ("right/") files are refused rather than misread.
    let right = URL(fileURLWithPath: "/usr/share/zoneinfo/right/Europe/Oslo")
    if let bytes = try? Data(contentsOf: right) {
      #expect(throws: ZoneRules.ParseError.leapSeconds) { try ZoneRules(name: "x", tzif: [UInt8](bytes)) }
    }
  }
}

@Suite struct PosixTZRuleTests {
  @Test func parsesCommonForms() throws {
    let cet = try #require(PosixTZRule("CET-1CEST,M3.5.0,M10.5.0/3"))
    #expect(cet.standard.utcOffsetSeconds == 3600 && cet.standard.abbreviation == "CET")
    #expect(cet.daylight?.utcOffsetSeconds == 7200 && cet.daylight?.abbreviation == "CEST")
    let kathmandu = try #require(PosixTZRule("<+0545>-5:45"))
    #expect(kathmandu.standard.utcOffsetSeconds == 5 * 3600 + 45 * 60 && kathmandu.daylight == nil)
    #expect(kathmandu.standard.abbreviation == "+0545")
    let lordHowe = try #require(PosixTZRule("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0"))
    #expect(lordHowe.daylight?.utcOffsetSeconds == 11 * 3600)
    for bad in [
      "", "C", "CET", "CET-1CEST,M3.5.0", "CET-1CEST,M13.5.0,M10.5.0", "<ab>1", "EST5EDT,J0,J365",
      "CET-25", "CET-1CEST,M3.5.0/168,M10.5.0", "CET-1 ",
    ] {
      #expect(PosixTZRule(bad) == nil, "\(bad)")
    }
  }

  @Test func rulesFromStringMatchTheFile() throws {
    let fromString = try #require(ZoneRules(name: "Europe/Paris", posix: "CET-1CEST,M3.5.0,M10.5.0/3"))
    let fromFile = try systemZone("Europe/Paris")
    var t = utc("1997-01-01T00:00:00Z")
    while t < utc("2060-01-01T00:00:00Z") {
      let a = try #require(fromString.nextTransition(after: t))
      let b = try #require(fromFile.nextTransition(after: t))
      #expect(a == b)
      t = a.instant
    }
  }

  @Test func extendedRuleTimes() throws {
    // Greenland (RFC 8536 §3.3.1 example form): negative transition times.
    let nuuk = try #require(ZoneRules(name: "nuuk", posix: "<-02>2<-01>,M3.5.0/-1,M10.5.0/0"))
    // Last Sunday of March 2030 is the 31st; -1:00 local (-02) is Saturday 23:00 -02 = 01:00 UTC.
    #expect(nuuk.nextTransition(after: utc("2030-01-01T00:00:00Z"))?.instant == utc("2030-03-31T01:00:00Z"))
    // Daylight all year: the end of one year meets the start of the next, which is no change.
    let always = try #require(ZoneRules(name: "always", posix: "EST5EDT,0/0,J365/25"))
    #expect(always.utcOffsetSeconds(at: utc("2030-01-01T04:30:00Z")) == -4 * 3600)
    #expect(always.utcOffsetSeconds(at: utc("2030-07-01T00:00:00Z")) == -4 * 3600)
    #expect(always.utcOffsetSeconds(at: utc("2030-12-31T23:00:00Z")) == -4 * 3600)
    #expect(always.nextTransition(after: utc("2030-06-01T00:00:00Z")) == nil)
    // Julian days skip February 29; zero-based days count it.
    let julian = try #require(ZoneRules(name: "j", posix: "AAA0BBB,J60/0,J300/0"))
    #expect(julian.nextTransition(after: utc("2024-01-01T00:00:00Z"))?.instant == utc("2024-03-01T00:00:00Z"))
    let zeroBased = try #require(ZoneRules(name: "n", posix: "AAA0BBB,59/0,300/0"))
    #expect(
      zeroBased.nextTransition(after: utc("2024-01-01T00:00:00Z"))?.instant == utc("2024-02-29T00:00:00Z"))
  }
}
