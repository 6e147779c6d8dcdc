import LocCore
import Testing

@Suite struct CivilDateTests {
  @Test func roundTripsEveryDayFrom1900To2100() {
    let start = CivilDate(year: 1900, month: 1, day: 1)!.daysSinceEpoch
    let end = CivilDate(year: 2100, month: 12, day: 31)!.daysSinceEpoch
    var previous = CivilDate(daysSinceEpoch: start - 1)
    for d in start...end {
      let date = CivilDate(daysSinceEpoch: d)
      #expect(date.daysSinceEpoch == d)
      #expect(date > previous)
      previous = date
    }
  }

  @Test func knownDates() {
    #expect(CivilDate(year: 1970, month: 1, day: 1)!.daysSinceEpoch == 0)
    #expect(CivilDate(year: 2000, month: 3, day: 1)!.daysSinceEpoch == 11_017)
    #expect(CivilDate(daysSinceEpoch: -1).description == "1969-12-31")
    #expect(CivilDate(year: 2026, month: 11, day: 29)!.weekday == 0)  // a Sunday
    #expect(CivilDate(year: 2024, month: 2, day: 30) == nil)
    #expect(CivilDate(year: 2023, month: 2, day: 29) == nil)
    #expect(CivilDate(year: 2000, month: 2, day: 29) != nil)
    #expect(CivilDate(year: 1900, month: 2, day: 29) == nil)
  }

  @Test func isoTimesRoundTrip() {
    let t = Instant(
      utc: CivilDate(year: 2019, month: 4, day: 12)!, hour: 0, minute: 40, second: 3,
      microsecond: 250_000)
    #expect(t.iso8601() == "2019-04-12T00:40:03Z")
    #expect(t.iso8601(fractionDigits: 3) == "2019-04-12T00:40:03.250Z")
    #expect(Instant(iso8601: "2019-04-12T00:40:03.250Z") == t)
    #expect(Instant(iso8601: "2019-04-12T00:40:03.25+00:00") == t)
    #expect(Instant(iso8601: "2019-04-12T24:40:03Z") == nil)
    #expect(Instant(iso8601: "2019-04-12T00:40:03") == nil)
    let before1970 = Instant(secondsSinceEpoch: -0.5)
    #expect(before1970.iso8601(fractionDigits: 1) == "1969-12-31T23:59:59.5Z")
  }
}
