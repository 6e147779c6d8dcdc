import Foundation
import LocCore
import Testing

private func date(_ text: String) -> CivilDate { CivilDate(iso: text)! }

private func place(_ lat: Double, _ lon: Double, height: Double = 0) -> SolarCalculator {
  SolarCalculator(coordinate: Coordinate(lat: lat, lon: lon)!, height: Meters(height))
}

private let tromso = place(69.6492, 18.9553)
private let paris = place(48.8566, 2.3522)

@Suite struct SolarCalculatorTests {
  @Test func tromsoPolarNightAndNextSunriseInJanuary() throws {
    let oslo = try systemZone("Europe/Oslo")
    let day = tromso.day(date("2024-12-21"), in: oslo)
    #expect(day[.sunrise] == .never(.polarNight))
    #expect(day[.sunset] == .never(.polarNight))
    #expect(day[.civilDawn]?.instant != nil)  // civil twilight still happens around noon
    #expect(day[.solarNoon]?.instant != nil)
    let next = try #require(tromso.next(.sunrise, after: day.interval.lowerBound))
    let local = oslo.localDate(at: next)
    #expect(local.year == 2025 && local.month == 1 && (10...20).contains(local.day), "\(local)")
    #expect(abs(tromso.position(at: next).elevation.value - tromso.horizon.value) < 0.001)
    // Nothing earlier: the day before it has no sunrise either.
    #expect(tromso.day(local.adding(days: -1), in: oslo)[.sunrise] == .never(.polarNight))
  }

  @Test func tromsoMidnightSun() throws {
    let day = tromso.day(date("2024-06-20"), in: try systemZone("Europe/Oslo"))
    #expect(day[.sunrise] == .never(.polarDay))
    #expect(day[.sunset] == .never(.polarDay))
    #expect(day[.astronomicalDusk] == .never(.polarDay))
    #expect(tromso.period(at: Instant(iso8601: "2024-06-20T23:00:00Z")!) != .night)
  }

  @Test func northPoleHasOneSunriseAYear() throws {
    let pole = place(90, 0)
    let sunrise = try #require(pole.next(.sunrise, after: Instant(iso8601: "2024-01-01T00:00:00Z")!))
    #expect(sunrise.utcDate.month == 3 && (14...22).contains(sunrise.utcDate.day), "\(sunrise.iso8601())")
    let sunset = try #require(pole.next(.sunset, after: sunrise))
    #expect(sunset.utcDate.month == 9 && (20...30).contains(sunset.utcDate.day), "\(sunset.iso8601())")
    let day = pole.day(date("2024-06-20"), in: .utc)
    #expect(day[.sunset] == .never(.polarDay))
    #expect(day[.solarNoon]?.instant != nil)
    #expect(abs(pole.position(at: Instant(iso8601: "2024-06-20T12:00:00Z")!).elevation.value - 23.4) < 0.1)
  }

  @Test func neverReachedElevationHasNoNextOccurrence() {
    #expect(tromso.next(.elevation(80, .rising), after: Instant(iso8601: "2024-06-01T00:00:00Z")!) == nil)
    #expect(tromso.next(.sunrise, after: Instant(iso8601: "2024-06-01T00:00:00Z")!, searchingDays: 10) == nil)
  }

  @Test func customElevationFallsBetweenTwilights() throws {
    let zone = try systemZone("Europe/Paris")
    let custom = try #require(SolarEvent(name: "elevation:-8.5:evening"))
    #expect(custom == .elevation(-8.5, .setting))
    #expect(custom.description == "elevation:-8.5:evening")
    let day = paris.day(date("2024-03-20"), in: zone, events: [.civilDusk, custom, .nauticalDusk])
    let civil = try #require(day[.civilDusk]?.instant)
    let mine = try #require(day[custom]?.instant)
    let nautical = try #require(day[.nauticalDusk]?.instant)
    #expect(civil < mine && mine < nautical)
    #expect(abs(paris.position(at: mine).elevation.value + 8.5) < 0.001)
    #expect(day[.sunrise] == nil)  // not asked for
  }

  @Test func eventsSitOnTheirThresholdsGoingTheRightWay() throws {
    // The solver works on an interpolated track; the position uses the full series: they must
    // agree, for places from pole to pole and every named event.
    let zone = ZoneRules.utc
    var checked = 0
    for lat in stride(from: -85.0, through: 85, by: 17) {
      for (k, d) in ["2024-03-20", "2024-06-21", "2025-09-23", "2026-12-21", "2030-02-11"].enumerated() {
        let calculator = place(lat, -170 + Double(k) * 83)
        let day = calculator.day(date(d), in: zone, events: SolarEvent.named)
        for (event, occurrence) in day {
          guard case .at(let t) = occurrence, let crossing = calculator.crossing(of: event) else { continue }
          let before = calculator.position(at: t.adding(seconds: -30)).elevation.value
          let at = calculator.position(at: t).elevation.value
          let after = calculator.position(at: t.adding(seconds: 30)).elevation.value
          #expect(abs(at - crossing.elevation.value) < 0.0005, "\(lat) \(d) \(event)")
          #expect((after > before) == (crossing.direction == .rising), "\(lat) \(d) \(event)")
          #expect(day.interval.contains(t))
          checked += 1
        }
      }
    }
    #expect(checked > 300)
  }

  @Test func namedEventsComeInTheOrderOfADay() throws {
    let zone = try systemZone("Europe/Paris")
    // Midsummer in Paris has no astronomical night: the Sun stays above -17.7 degrees.
    #expect(paris.day(date("2024-06-21"), in: zone)[.astronomicalDusk] == .never(.polarDay))
    let day = paris.day(date("2024-04-15"), in: zone, events: SolarEvent.named)
    let instants = SolarEvent.named.map { day[$0]?.instant }
    #expect(instants.allSatisfy { $0 != nil })
    let times = instants.compactMap { $0 }
    #expect(times == times.sorted())
    #expect(day.count == SolarEvent.named.count)
    #expect(day.map(\.event) == SolarEvent.named)
  }

  @Test func daylightSavingDaysAreTwentyThreeOrTwentyFiveHours() throws {
    let zone = try systemZone("Europe/Paris")
    let autumn = paris.day(date("2024-10-27"), in: zone)
    #expect(autumn.interval.upperBound.seconds(since: autumn.interval.lowerBound) == 25 * 3600)
    let spring = paris.day(date("2024-03-31"), in: zone)
    #expect(spring.interval.upperBound.seconds(since: spring.interval.lowerBound) == 23 * 3600)
    for day in [autumn, spring] {
      for (event, occurrence) in day {
        #expect(occurrence.instant.map { day.interval.contains($0) } == true, "\(event)")
      }
    }
    // Cairo jumps from 00:00 to 01:00 on 2024-04-26: its day starts at 01:00.
    let cairo = try systemZone("Africa/Cairo")
    let cairoDay = place(30.0444, 31.2357).day(date("2024-04-26"), in: cairo)
    #expect(cairo.localDateTime(at: cairoDay.interval.lowerBound).hour == 1)
    #expect(cairoDay[.sunrise]?.instant != nil)
  }

  @Test func longIntervalsAreScannedDayByDay() throws {
    let start = Instant(iso8601: "2024-03-01T00:00:00Z")!
    let week = start..<start.adding(seconds: 7 * 86_400)
    let parisWeek = paris.day(date("2024-03-01"), interval: week)
    #expect(parisWeek.occurrences(of: .sunrise).count == 7)
    #expect(parisWeek.occurrences(of: .solarNoon).count == 7)
    let polar = tromso.day(
      date("2024-12-01"),
      interval: Instant(iso8601: "2024-12-01T00:00:00Z")!..<Instant(iso8601: "2024-12-20T00:00:00Z")!)
    #expect(polar[.sunrise] == .never(.polarNight))
    #expect(polar[.astronomicalDawn]?.instant != nil)
    // From a week with sunrises into polar night: it did cross, just not on every day.
    let mixed = tromso.day(
      date("2024-11-20"),
      interval: Instant(iso8601: "2024-11-20T00:00:00Z")!..<Instant(iso8601: "2024-12-10T00:00:00Z")!)
    #expect(mixed.occurrences(of: .sunrise).count >= 5)
  }

  @Test func skippedDayHasNoEvents() throws {
    let apia = try systemZone("Pacific/Apia")
    let day = place(-13.8333, -171.7667).day(date("2011-12-30"), in: apia)
    #expect(day.interval.isEmpty)
    for (_, occurrence) in day { #expect(occurrence == .never(.otherDay)) }
  }

  @Test func heightLowersTheHorizon() throws {
    let zone = try systemZone("Europe/Paris")
    let high = place(48.8566, 2.3522, height: 100)
    // 1.76' * sqrt(100) = 17.6' of dip.
    #expect(abs(high.horizon.value - (-50.0 / 60 - 17.6 / 60)) < 1e-9)
    let low = try #require(paris.day(date("2024-06-21"), in: zone)[.sunrise]?.instant)
    let early = try #require(high.day(date("2024-06-21"), in: zone)[.sunrise]?.instant)
    let minutes = low.seconds(since: early) / 60
    #expect(minutes > 2 && minutes < 4, "\(minutes)")
    #expect(place(48.8566, 2.3522, height: -5).horizon == paris.horizon)
  }

  @Test func periodsFollowTheElevation() throws {
    let zone = try systemZone("Europe/Paris")
    let day = paris.day(date("2024-01-15"), in: zone)
    let noon = try #require(day[.solarNoon]?.instant)
    let sunset = try #require(day[.sunset]?.instant)
    let civil = try #require(day[.civilDusk]?.instant)
    let nautical = try #require(day[.nauticalDusk]?.instant)
    let astronomical = try #require(day[.astronomicalDusk]?.instant)
    #expect(paris.period(at: noon) == .day)
    #expect(paris.period(at: sunset.adding(seconds: -60)) == .goldenHour)
    #expect(paris.period(at: sunset.adding(seconds: 60)) == .civilTwilight)
    #expect(paris.period(at: civil.adding(seconds: 60)) == .nauticalTwilight)
    #expect(paris.period(at: nautical.adding(seconds: 60)) == .astronomicalTwilight)
    #expect(paris.period(at: astronomical.adding(seconds: 60)) == .night)
    let noonPosition = paris.position(at: noon)
    // Upper transit: due south, at 90 - latitude + declination (about -21 degrees in mid-January).
    #expect(abs(noonPosition.azimuth.value - 180) < 0.01)
    #expect(abs(noonPosition.elevation.value - (90 - 48.8566 - 21.2)) < 0.3)
    #expect(SunPosition(elevation: -5, azimuth: 0).isBlueHour)
    #expect(SunPosition(elevation: 2, azimuth: 0).isGoldenHour)
  }

  @Test func eventNamesRoundTrip() {
    for event in SolarEvent.named + [.elevation(-8.5, .setting), .elevation(10, .rising)] {
      #expect(SolarEvent(name: event.description) == event)
    }
    #expect(SolarEvent(name: "elevation:12:rising") == .elevation(12, .rising))
    for bad in [
      "", "noon", "elevation:x:evening", "elevation:-8.5", "elevation:95:evening", "elevation:nan:morning",
      "elevation:-8.5:noon",
    ] {
      #expect(SolarEvent(name: bad) == nil, "\(bad)")
    }
  }
}
