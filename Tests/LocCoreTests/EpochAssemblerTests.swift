import Foundation
import LocCore
import Testing

@Suite struct EpochAssemblerTests {
  static func decode(_ bodies: [String], referenceTime: Instant? = nil) -> (
    fixes: [Fix], counters: NMEACounters
  ) {
    NMEAFixtures.decode(lines: bodies.map(nmea), referenceTime: referenceTime)
  }

  /// Feeds sentences one at a time and records how many fixes are out after each.
  static func fixesAfterEachLine(_ bodies: [String]) -> [Int] {
    var decoder = NMEADecoder()
    var count = 0
    var counts: [Int] = []
    for body in bodies {
      Array((nmea(body) + "\r\n").utf8).withUnsafeBytes { decoder.feed($0) { _ in count += 1 } }
      counts.append(count)
    }
    return counts
  }

  static func at(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int, ms: Int = 0) -> Instant {
    Instant(
      utc: CivilDate(year: y, month: mo, day: d)!, hour: h, minute: mi, second: s, microsecond: ms * 1000)
  }

  static func gga(
    _ time: String, sats: String = "08", alt: String = "545.4", quality: Int = 1, talker: String = "GP"
  )
    -> String
  {
    "\(talker)GGA,\(time),4807.038,N,01131.000,E,\(quality),\(sats),0.9,\(alt),M,46.9,M,,"
  }

  static func rmc(_ time: String, date: String = "280224", status: String = "A", lat: String = "4807.038")
    -> String
  {
    "GPRMC,\(time),\(status),\(lat),N,01131.000,E,010.0,084.4,\(date),,,A"
  }

  @Test func ggaOnlyStreamBorrowsTheDateAndCrossesMidnight() {
    let r = Self.decode([Self.rmc("235958"), Self.gga("235959"), Self.gga("000000"), Self.gga("000001")])
    #expect(
      r.fixes.map(\.time) == [
        Self.at(2024, 2, 28, 23, 59, 58), Self.at(2024, 2, 28, 23, 59, 59), Self.at(2024, 2, 29, 0, 0, 0),
        Self.at(2024, 2, 29, 0, 0, 1),
      ])
    #expect(r.counters.undatedEpochs == 0)
  }

  @Test func withoutAnyDateOnlyAReferenceHelps() {
    let stream = [Self.gga("235959"), Self.gga("000000"), Self.gga("000001")]
    let none = Self.decode(stream)
    #expect(none.fixes.isEmpty)
    #expect(none.counters.undatedEpochs == 3)
    let dated = Self.decode(stream, referenceTime: Self.at(2026, 1, 1, 0, 0, 30))
    #expect(
      dated.fixes.map(\.time) == [
        Self.at(2025, 12, 31, 23, 59, 59), Self.at(2026, 1, 1, 0, 0, 0), Self.at(2026, 1, 1, 0, 0, 1),
      ])
    #expect(dated.fixes.allSatisfy { !$0.dateSuspect })
  }

  @Test func theEpochBeforeTheFirstDateIsEmittedWhenTheDateComes() {
    // A log that starts between a cycle's RMC and its GGA (gp-320fw-2019-04-06-overflow.log).
    let r = Self.decode([Self.gga("235959"), Self.rmc("000000", date: "010324"), Self.gga("000000")])
    #expect(r.fixes.map(\.time) == [Self.at(2024, 2, 29, 23, 59, 59), Self.at(2024, 3, 1, 0, 0, 0)])
    #expect(r.counters.undatedEpochs == 0)
  }

  @Test func rmcOnlyStreamIsEmittedWithoutWaitingOnceLearned() {
    let times = ["120000", "120001", "120002", "120003", "120004", "120005"]
    // Three cycles end with RMC (each closed by the next RMC), then RMC ends every cycle.
    #expect(Self.fixesAfterEachLine(times.map { Self.rmc($0) }) == [0, 1, 2, 4, 5, 6])
    #expect(Self.fixesAfterEachLine(times.map { Self.gga($0) }) == [0, 0, 0, 0, 0, 0])  // no date, ever
  }

  @Test func aTimelessLastSentenceIsLearnedToo() {
    func cycle(_ t: String) -> [String] {
      [
        Self.rmc(t), Self.gga(t), "GPGSA,A,3,04,05,09,12,,,,,,,,,2.5,1.3,2.1",
        "GPGSV,2,1,05,01,17,083,03,02,20,056,27,07,18,123,25,08,,,15",
        "GPGSV,2,2,05,09,17,083,03",
      ]
    }
    let counts = Self.fixesAfterEachLine(
      cycle("120000") + cycle("120001") + cycle("120002") + cycle("120003") + cycle("120004"))
    // Cycles 1 to 3 are emitted by the next cycle's RMC; then the last GSV part ends cycle 4.
    #expect(counts[4] == 0 && counts[5] == 1 && counts[10] == 2 && counts[15] == 3)
    #expect(counts[18] == 3 && counts[19] == 4)
    #expect(counts[24] == 5)
    var decoder = NMEADecoder()
    for body in cycle("120000") + cycle("120001") + cycle("120002") + cycle("120003") {
      Array((nmea(body) + "\r\n").utf8).withUnsafeBytes { decoder.feed($0) { _ in } }
    }
    #expect(decoder.learnedCycleEnd == "GPGSV")
  }

  /// A 1 Hz receiver whose bursts come whole and far apart (TCP, fast serial): the live
  /// decoder flushes each cycle after a quiet pause, before the next cycle's time is seen.
  /// The pause teaches the cycle's end as a time change does, so from the fourth cycle a
  /// fix goes out on its GGA, not half a second later at the pause.
  @Test func aQuietPauseTeachesTheCyclesEnd() {
    var decoder = NMEADecoder()
    var fixes = 0
    for t in ["120000", "120001", "120002"] {
      for body in [Self.rmc(t), Self.gga(t)] {
        Array((nmea(body) + "\r\n").utf8).withUnsafeBytes { decoder.feed($0) { _ in fixes += 1 } }
      }
      #expect(decoder.learnedCycleEnd == nil)
      decoder.flush { _ in fixes += 1 }  // the pause after the burst
    }
    #expect(fixes == 3)
    #expect(decoder.learnedCycleEnd == "GPGGA")
    Array((nmea(Self.rmc("120003")) + "\r\n").utf8).withUnsafeBytes { decoder.feed($0) { _ in fixes += 1 } }
    #expect(fixes == 3)
    Array((nmea(Self.gga("120003")) + "\r\n").utf8).withUnsafeBytes { decoder.feed($0) { _ in fixes += 1 } }
    #expect(fixes == 4, "emitted on the cycle's last sentence, without waiting for the pause")
    decoder.flush { _ in fixes += 1 }
    #expect(fixes == 4, "nothing left to flush")
    // The end of the input teaches nothing: a decoder that only ever finishes learns no end.
    var offline = NMEADecoder()
    Array((nmea(Self.rmc("120000")) + "\r\n").utf8).withUnsafeBytes { offline.feed($0) { _ in } }
    offline.finish { _ in }
    #expect(offline.learnedCycleEnd == nil)
  }

  @Test func tenHertzKeepsMilliseconds() {
    var stream: [String] = []
    for tenth in 0..<10 {
      stream += [Self.gga("123456.\(tenth)0"), Self.rmc("123456.\(tenth)0")]
    }
    let r = Self.decode(stream)
    #expect(r.fixes.count == 10)
    #expect(
      r.fixes.map { $0.time.microsecondsSinceEpoch % 1_000_000 } == (0..<10).map { Int64($0) * 100_000 })
    #expect(r.fixes.allSatisfy { $0.mode == .threeD && $0.coordinate != nil })
  }

  @Test func aLateSentenceIsDroppedAndTheLearnedEndForgotten() {
    var decoder = NMEADecoder()
    var fixes: [Fix] = []
    let stream = [
      Self.gga("120000"), Self.rmc("120000"), Self.gga("120001"), Self.rmc("120001"), Self.gga("120002"),
      Self.rmc("120002"), Self.gga("120003"), Self.rmc("120003"), "GPZDA,120003.00,28,02,2024,00,00",
      Self.gga("120004"), Self.rmc("120004"),
    ]
    for body in stream {
      Array((nmea(body) + "\r\n").utf8).withUnsafeBytes { decoder.feed($0) { fixes.append($0) } }
      if body.hasPrefix("GPRMC,120003") { #expect(decoder.learnedCycleEnd == "GPRMC") }
    }
    #expect(decoder.counters.lateSentences == 1)
    #expect(decoder.learnedCycleEnd == nil)
    decoder.finish { fixes.append($0) }
    #expect(fixes.count == 5)
  }

  @Test func timeGoingBackwardsIsCountedAndStillEmitted() {
    let r = Self.decode([Self.rmc("194124"), Self.rmc("194125"), Self.rmc("194111"), Self.rmc("194112")])
    #expect(r.fixes.count == 4)
    #expect(r.counters.timeWentBackwards == 1)
  }

  @Test func weekRolloverNeedsAReference() {
    // gp-320fw: a receiver with the 10-bit week bug says 1999-08-22 on 2019-04-07.
    let stream = [Self.rmc("000429", date: "220899")]
    let plain = Self.decode(stream)
    #expect(plain.fixes.first?.time == Self.at(1999, 8, 22, 0, 4, 29))
    #expect(plain.fixes.first?.dateSuspect == false)
    let fixed = Self.decode(stream, referenceTime: Self.at(2019, 4, 10, 12, 0, 0))
    #expect(fixed.fixes.first?.time == Self.at(2019, 4, 7, 0, 4, 29))
    #expect(fixed.fixes.first?.dateSuspect == true)
    #expect(fixed.counters.rolloverCorrections == 1)
    // A date within 512 weeks of the reference is left alone.
    let recent = Self.decode(
      [Self.rmc("000429", date: "220815")], referenceTime: Self.at(2019, 4, 10, 12, 0, 0))
    #expect(recent.fixes.first?.dateSuspect == false)
  }

  /// Issue 43, item 3: a log recorded in 2014 played through a serial port on 2026-12-07 was
  /// 12.6 years behind, more than 512 weeks, so every fix was moved forward one period of
  /// 1024 weeks (19.6 years) to 2034: "dated 7.7 years ahead", 39 corrections. A receiver
  /// with the week bug reports a date one period early, so its corrected date lands on the
  /// clock; a correction that lands in the future is no such receiver (an old log, a clock
  /// set back) and the date is kept as it came. A day of slack covers a clock a little
  /// behind (a machine without a real-time clock that booted with an old time).
  @Test func aRolloverCorrectionThatWouldLandInTheFutureIsNotMade() {
    let stream = [Self.rmc("102030", date: "150614")]
    let now = Self.at(2026, 12, 7, 12, 0, 0)
    let r = Self.decode(stream, referenceTime: now)
    #expect(r.fixes.first?.time == Self.at(2014, 6, 15, 10, 20, 30))
    #expect(r.fixes.first?.dateSuspect == false)
    #expect(r.counters.rolloverCorrections == 0 && r.counters.rolloverRefused == 1)
    // The gp-320fw case still is corrected, and so is one whose corrected date lies a few
    // hours after a clock that is behind.
    let buggy = Self.decode(
      [Self.rmc("000429", date: "220899")], referenceTime: Self.at(2019, 4, 6, 20, 0, 0))
    #expect(buggy.fixes.first?.time == Self.at(2019, 4, 7, 0, 4, 29))
    #expect(buggy.counters.rolloverCorrections == 1)
  }

  @Test func modeFollowsAltitudeSatellitesAndThePreviousEpoch() {
    let r = Self.decode([
      // GSA says 2D, but GGA has an altitude from 8 satellites: 3D (Telit).
      Self.rmc("120000"), Self.gga("120000"), "GPGSA,A,2,01,02,03,04,05,06,07,08,,,,,1.6,1.3,0.9",
      // RMC only: the dimension of the previous fix.
      Self.rmc("120001"),
      // Three satellites cannot make 3D, held altitude or not (MTK).
      Self.rmc("120002"), Self.gga("120002", sats: "03"),
      // A GGA without altitude: 2D.
      Self.rmc("120003"), Self.gga("120003", alt: ""),
      // No fix, then RMC only: 2D, nothing to inherit.
      Self.rmc("120004", status: "V"), Self.rmc("120005"),
    ])
    #expect(r.fixes.map(\.mode) == [.threeD, .threeD, .twoD, .twoD, .noFix, .twoD])
    #expect(r.fixes[0].altitudeMSL == Meters(545.4) && r.fixes[0].geoidSeparation == Meters(46.9))
    #expect(r.fixes[1].altitudeMSL == nil)
    #expect(r.fixes[4].coordinate == nil && r.fixes[4].speed == nil && r.fixes[4].quality == nil)
  }

  @Test func gsaDecidesWithoutGGA() {
    let r = Self.decode([Self.rmc("120006"), "GPGSA,A,3,01,02,03,04,,,,,,,,,1.6,1.3,0.9"])
    #expect(r.fixes.map(\.mode) == [.threeD])
  }

  @Test func accuracyFromGSTElseHDOP() {
    let r = Self.decode([
      Self.gga("120000"), "GNGST,120000.00,235111,,,,2.3,3.5,4.0", Self.rmc("120000"),
      Self.gga("120001"), Self.rmc("120001"),
    ])
    // Accuracy is the 68 % radius. For a circular normal error of σ per axis the probability
    // within r is 1 − exp(−r²/2σ²), so the radius is σ·√(−2 ln 0.32).
    let radius68PerSigma = (-2 * log(0.32)).squareRoot()
    // GST: σlat 2.3 m, σlon 3.5 m; the circular error of the same variance has
    // σ = √((2.3² + 3.5²) / 2).
    #expect(
      close(
        r.fixes[0].horizontalAccuracy?.value, ((2.3 * 2.3 + 3.5 * 3.5) / 2).squareRoot() * radius68PerSigma))
    // HDOP 0.9 (the GGA's) × UERE 5 m is the distance RMS, σ√2.
    #expect(close(r.fixes[1].horizontalAccuracy?.value, 0.9 * 5 / 2.0.squareRoot() * radius68PerSigma))
  }

  @Test func satelliteCounts() {
    let r = Self.decode([
      Self.rmc("120000"), Self.gga("120000", sats: "12", talker: "GN"),
      "GNGSA,A,3,13,16,21,15,10,29,27,20,,,,,1.05,0.64,0.83,1",
      "GNGSA,A,3,82,66,81,,,,,,,,,,1.05,0.64,0.83,2",
      "GNGSA,A,3,07,12,33,,,,,,,,,,1.05,0.64,0.83,3",
      // GPS twice (two signals), GLONASS once, BeiDou under both of its talkers' names.
      "GPGSV,1,1,12,05,06,110,19,1", "GPGSV,1,1,12,05,06,110,,6", "GLGSV,1,1,10,65,53,144,,1",
      "BDGSV,1,1,03,13,19,043,17",
    ])
    #expect(r.fixes.first?.satellitesUsed == 14)
    #expect(r.fixes.first?.satellitesInView == 25)
    #expect(r.fixes.first?.pdop == 1.05 && r.fixes.first?.hdop == 0.64 && r.fixes.first?.vdop == 0.83)
  }

  @Test func combinedTalkerWinsAndQualityFollowsIt() {
    let r = Self.decode([
      "GPGGA,120000,4807.038,N,01131.000,E,1,05,0.9,545.4,M,46.9,M,,",
      "GNGGA,120000,4807.040,N,01131.000,E,4,14,0.9,545.0,M,46.9,M,,", Self.rmc("120000"),
    ])
    #expect(close(r.fixes.first?.coordinate?.latitude.value, 48 + 7.040 / 60))
    #expect(r.fixes.first?.quality == .rtkFixed)
    #expect(r.fixes.first?.altitudeMSL == Meters(545.0))
  }

  @Test func zeroSatellitesIsNoFix() {
    // Hemisphere: "1,00" while it propagates a lost fix.
    let r = Self.decode([Self.gga("120000", sats: "00"), "GPZDA,120000.00,28,02,2024,00,00"])
    #expect(r.fixes.count == 1)
    #expect(r.fixes.first?.mode == .noFix && r.fixes.first?.coordinate == nil)
  }

  @Test func flushEmitsThePendingEpoch() {
    var decoder = NMEADecoder()
    var fixes: [Fix] = []
    Array((nmea(Self.rmc("120000")) + "\r\n").utf8).withUnsafeBytes { decoder.feed($0) { fixes.append($0) } }
    #expect(fixes.isEmpty)
    decoder.flush { fixes.append($0) }
    #expect(fixes.count == 1)
    decoder.flush { fixes.append($0) }
    #expect(fixes.count == 1)
  }
}
