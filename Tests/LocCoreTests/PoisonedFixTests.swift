import LocCore
import Testing

/// Issue 15, "Poisoned position": fixes that lie about their time, speed, accuracy or
/// altitude, and sources that any local user can write to.
@Suite struct PoisonedFixTests {
  let gps = SourceID(0)
  let udp = SourceID(1)
  let home = Coordinate(lat: 59.9139, lon: 10.7522)!
  let clock = at("2026-06-01T12:00:00Z")

  func fix(_ c: Coordinate, _ t: Instant, accuracy: Double? = 5, speed: Double? = nil) -> Fix {
    Fix(
      time: t, coordinate: c, mode: .threeD, quality: .gps, speed: speed.map { MetersPerSecond($0) },
      horizontalAccuracy: accuracy.map { Meters($0) })
  }

  /// Decodes NMEA text (each line with its checksum) as a live source would, with `reference`.
  func decode(_ lines: [String], reference: Instant? = nil) -> (fixes: [Fix], counters: NMEACounters) {
    var decoder = NMEADecoder(referenceTime: reference, gpsdJSON: true)
    var fixes: [Fix] = []
    let text = lines.map { $0.hasPrefix("{") ? $0 + "\n" : nmeaLine($0) }.joined()
    Array(text.utf8).withUnsafeBytes { decoder.feed($0) { fixes.append($0) } }
    decoder.finish { fixes.append($0) }
    return (fixes, decoder.counters)
  }

  @Test func aFixDatedAheadOfTheClockIsRejectedAndLocksNobodyOut() throws {
    // The three dates of the issue, as the decoder reads them: ZDA year 2100, RMC year "79"
    // (NMEA's two digits: 2079), a gpsd TPV dated 9999.
    let zda = decode([
      "GPZDA,120000.00,01,06,2100,00,00", "GPGGA,120000.00,5900.000,N,01000.000,E,1,08,0.9,20,M,18,M,,",
    ])
    let rmc = decode(["GPRMC,120000.00,A,5900.000,N,01000.000,E,0.0,0.0,010679,,,A"])
    let tpv = decode([
      #"{"class":"TPV","mode":3,"time":"9999-01-01T00:00:00.000Z","lat":59.0,"lon":10.0,"eph":10}"#
    ])
    let future = try [zda, rmc, tpv].map { try #require($0.fixes.last, "a fix decoded") }
    #expect(future.map { $0.time.utcDate.year } == [2100, 2079, 9999])
    for bad in future {
      var acc = FixAcceptance()
      #expect(acc.judge(fix(home, clock.adding(.seconds(-1))), from: gps, at: clock) == .accept)
      #expect(acc.judge(bad, from: udp, trust: .localUsers, at: clock) == .reject(.future))
      // The honest fixes after it, from both sources, are not "old": nothing was taken from it.
      var t = clock
      for i in 1...5 {
        t = t.adding(.seconds(1))
        #expect(acc.judge(fix(home, t), from: i % 2 == 0 ? gps : udp, at: t) == .accept)
      }
    }
  }

  @Test func aFixSlightlyAheadNeverBecomesTheReferenceForOld() {
    // 4 min ahead is within the 5 min tolerance: taken, but counted as "now" when compared.
    var acc = FixAcceptance()
    #expect(acc.judge(fix(home, clock.adding(.seconds(240))), from: udp, at: clock) == .accept)
    // The same source and another, with honest times one second later: neither is old.
    #expect(
      acc.judge(fix(home, clock.adding(.seconds(1))), from: gps, at: clock.adding(.seconds(1))) == .accept)
    #expect(
      acc.judge(fix(home, clock.adding(.seconds(2))), from: udp, at: clock.adding(.seconds(2))) == .accept)
    // Nor does its time stretch the jump check: 5 km away "4 minutes later" is 5 km in 1 s.
    let far = home.destination(distance: 5000, bearing: 0)
    #expect(
      acc.judge(fix(far, clock.adding(.seconds(243))), from: udp, at: clock.adding(.seconds(3)))
        == .reject(.implausibleJump))
  }

  @Test func underTheReplayClockFixTimesAreTheClock() {
    // `locd --clock replay`: the engine's now is each fix's own time, so none is ahead.
    var acc = FixAcceptance()
    var t = at("2100-01-01T00:00:00Z")
    for _ in 0..<5 {
      #expect(acc.judge(fix(home, t), from: gps, at: t) == .accept)
      t = t.adding(.seconds(1))
    }
  }

  @Test func anAbsurdSpeedDoesNotSwitchTheJumpCheckOff() throws {
    // A speed of 1e200 in a TPV, 99,999,999 knots in an RMC: the decoder drops both, counted.
    let decoded = decode(
      [
        #"{"class":"TPV","mode":3,"time":"2026-06-01T12:00:01.000Z","lat":50.0,"lon":10.0,"speed":1e200}"#,
        "GPRMC,120002.00,A,5000.000,N,01000.000,E,99999999,0.0,010626,,,A",
      ], reference: clock)
    #expect(decoded.fixes.count == 2)
    #expect(decoded.fixes.allSatisfy { $0.speed == nil })
    #expect(decoded.counters.implausibleValues == 2)
    let far = try #require(decoded.fixes.first)
    // And if a fix reaches acceptance with one anyway, it is not believed.
    var acc = FixAcceptance()
    #expect(acc.judge(fix(home, clock), from: gps, at: clock) == .accept)
    let there = try #require(far.coordinate)
    let t = clock.adding(.seconds(1))
    #expect(
      acc.judge(fix(there, t, speed: 1e200 * 1852 / 3600), from: udp, at: t) == .reject(.implausibleJump))
    // 1,000 knots is the bound: a reported 450 m/s covers 1.2 km in a second (3 × 450 m/s
    // allows 1,350 m/s), 900 m/s is beyond it and allows nothing.
    let near = home.destination(distance: 1200, bearing: 90)
    var b = FixAcceptance()
    #expect(b.judge(fix(home, clock), from: gps, at: clock) == .accept)
    #expect(b.judge(fix(near, t, speed: 900), from: gps, at: t) == .reject(.implausibleJump))
    #expect(b.judge(fix(near, t.adding(.seconds(1)), speed: 450), from: gps, at: t) == .accept)
  }

  @Test func zeroErrorsAreNoAccuracy() throws {
    // GST with σlat = σlon = 0 (fields a receiver left at 0): the HDOP gives the accuracy.
    let gst = decode([
      "GPGGA,120000.00,5900.000,N,01000.000,E,1,08,1.0,20,M,18,M,,",
      "GPGST,120000.00,0.0,0.0,0.0,0.0,0.0,0.0,0.0",
      "GPRMC,120000.00,A,5900.000,N,01000.000,E,0.0,0.0,010626,,,A",
    ])
    // HDOP 1.0 × 5 m is the distance RMS; the 68 % radius is drms / √2 × 1.5096 = 5.337 m.
    let accuracy = try #require(gst.fixes.last?.horizontalAccuracy?.value)
    #expect(abs(accuracy - 5.0 / 2.0.squareRoot() * 1.509_592_185) < 1e-6)
    // HDOP 0 and a TPV with eph 0: no accuracy at all, never 0 m.
    let hdop0 = decode([
      "GPGGA,120000.00,5900.000,N,01000.000,E,1,08,0.0,20,M,18,M,,",
      "GPRMC,120000.00,A,5900.000,N,01000.000,E,0.0,0.0,010626,,,A",
    ])
    #expect(hdop0.fixes.last?.horizontalAccuracy == nil)
    let eph0 = decode([
      #"{"class":"TPV","mode":3,"time":"2026-06-01T12:00:00.000Z","lat":59.0,"lon":10.0,"eph":0}"#
    ])
    #expect(eph0.fixes.last?.horizontalAccuracy == nil)
  }

  @Test func altitudeSpeedAndAccuracyHaveBounds() throws {
    let tpv = decode([
      #"{"class":"TPV","mode":3,"time":"2026-06-01T12:00:00.000Z","lat":59.0,"lon":10.0,"#
        + #""altMSL":1e9,"speed":-3,"eph":1e300,"track":720,"geoidSep":5000}"#,
      #"{"class":"TPV","mode":3,"time":"2026-06-01T12:00:01.000Z","lat":59.0,"lon":10.0,"#
        + #""altMSL":8848,"speed":250,"eph":30,"track":359.9,"geoidSep":18}"#,
    ])
    #expect(tpv.fixes.count == 2)
    let bad = try #require(tpv.fixes.first)
    #expect(bad.altitudeMSL == nil && bad.speed == nil && bad.horizontalAccuracy == nil)
    #expect(bad.course == nil && bad.geoidSeparation == nil)
    #expect(tpv.counters.implausibleValues == 5)
    // Everest, an airliner's ground speed, a poor fix: all kept.
    let good = try #require(tpv.fixes.last)
    #expect(good.altitudeMSL == 8848 && good.speed == 250 && good.course?.value == 359.9)
    #expect(good.horizontalAccuracy != nil && good.geoidSeparation == 18)
    // A GGA altitude below the Dead Sea by a kilometre is dropped too.
    let gga = decode(["GPGGA,120000.00,5900.000,N,01000.000,E,1,08,1.0,-5000,M,18,M,,"], reference: clock)
    #expect(gga.fixes.last?.altitudeMSL == nil)
    #expect(gga.counters.implausibleValues == 1)
  }

  @Test func aLessTrustedSourceNeverOverridesALiveMoreTrustedOne() {
    var settings = FixAcceptance.Settings()
    settings.liveFor = .seconds(10)
    var acc = FixAcceptance(settings: settings)
    var t = clock
    #expect(acc.judge(fix(home, t), from: gps, trust: .system, at: t) == .accept)
    // A local user's datagram, however plausible, while the receiver is live.
    let nearby = home.destination(distance: 30, bearing: 0)
    t = t.adding(.seconds(1))
    #expect(acc.judge(fix(nearby, t), from: udp, trust: .localUsers, at: t) == .reject(.outranked))
    #expect(acc.outranking(.localUsers, other: udp, at: t) == gps)
    // The receiver goes quiet: 10 s later it is no longer live and the other source counts.
    t = t.adding(.seconds(10))
    #expect(acc.judge(fix(nearby, t), from: udp, trust: .localUsers, at: t) == .accept)
    // A more trusted source is never outranked by a less trusted one.
    t = t.adding(.seconds(1))
    #expect(acc.judge(fix(home, t), from: gps, trust: .system, at: t) == .accept)
    // A trusted source that only repeats old fixes (a looping recording) is not live: after
    // `liveFor` of repeats, the other source counts again.
    let replayed = t
    for _ in 0..<11 {
      t = t.adding(.seconds(1))
      #expect(acc.judge(fix(home, replayed), from: gps, trust: .system, at: t) == .reject(.old))
    }
    #expect(acc.judge(fix(nearby, t), from: udp, trust: .localUsers, at: t) == .accept)
  }

  @Test func sourceTrustFollowsWhoCanWriteToIt() throws {
    let trusts = try [
      "serial:/dev/ttyUSB0", "replay:/x.log", "gpsd://127.0.0.1", "gpsd://localhost", "nmea+tcp://[::1]:1",
      "nmea+udp://:10110", "nmea+tcp-listen://127.0.0.2:1", "nmea+udp://0.0.0.0:10110", "gpsd://gps.lan",
      "nmea+tcp-listen://[::]:10110", "modem:", "modem:867698041234567",
    ].map { try SourceURI(parsing: $0).trust }
    // A modem is a device of the machine reached through root's ModemManager: as serial.
    #expect(
      trusts == [
        .system, .system, .system, .system, .system, .localUsers, .localUsers, .network, .network, .network,
        .system, .system,
      ])
  }
}

/// `$BODY*hh` and CR LF (NMEA 0183: the checksum is the XOR of the bytes between `$` and `*`).
func nmeaLine(_ body: String) -> String {
  let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
  let hex = Array("0123456789ABCDEF")
  return "$\(body)*\(hex[Int(sum >> 4)])\(hex[Int(sum & 15)])\r\n"
}
