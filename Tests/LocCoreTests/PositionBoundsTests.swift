import LocCore
import Testing

/// Issue 40, item 4: no trust in impossible numbers. Every position from outside is held to
/// what its kind of source can physically give (`PositionBounds`, `FixPlausibility`); the
/// floors and ranges the tests expect are the ones docs/SOURCES.md, "Bounds", gives with
/// their reasons (ichnaea's WIFI_MIN_ACCURACY 10 m, beaconDB's 50 m for a cell, MaxMind's
/// whole kilometres for an address, RTK's centimetre, the Challenger Deep, the Kármán line).
@Suite struct PositionBoundsTests {
  @Test(arguments: [
    (PositionProvenance.gnss, 0.01), (.wifi, 10), (.cell, 50), (.ip, 1000), (.staticFile, 0.01),
    (.manual, 0.01),
  ])
  func eachKindHasItsFloor(origin: PositionProvenance, floor: Double) {
    #expect(PositionBounds.accuracyFloor(origin) == Meters(floor))
  }

  @Test func aMeasurementBelowItsFloorIsRaisedAndAStatementRefused() {
    // 1e-300 m: the issue's answer, said to be better than any atom.
    for origin in [PositionProvenance.wifi, .cell, .ip] {
      let floor = PositionBounds.accuracyFloor(origin).value
      let judged = PositionBounds.accuracy(1e-300, of: origin)
      #expect(judged.value == floor, "\(origin)")
      #expect(judged.outOfBounds == OutOfBounds(.accuracy, 1e-300, bound: floor, .raised), "\(origin)")
      // At the floor and above: taken as it came.
      #expect(PositionBounds.accuracy(floor, of: origin) == PositionBounds.Judged(value: floor))
      #expect(PositionBounds.accuracy(floor * 3, of: origin) == PositionBounds.Judged(value: floor * 3))
    }
    for origin in [PositionProvenance.staticFile, .manual] {
      let judged = PositionBounds.accuracy(1e-300, of: origin)
      #expect(judged.value == nil)
      #expect(judged.outOfBounds == OutOfBounds(.accuracy, 1e-300, bound: 0.01, .refused))
      #expect(PositionBounds.accuracy(0.01, of: origin).value == 0.01)
    }
  }

  @Test func nothingAtOrBelowZeroNorBeyondHalfTheEarthIsAnAccuracy() {
    for origin in [PositionProvenance.wifi, .cell, .ip, .staticFile, .manual] {
      for bad in [0.0, -20] {
        #expect(PositionBounds.accuracy(bad, of: origin).value == nil)
        #expect(PositionBounds.accuracy(bad, of: origin).outOfBounds?.bound == 0)
      }
      // Half the equator, 20,037,508 m, is the largest radius that still says something.
      #expect(PositionBounds.accuracy(20_037_508, of: origin).value == 20_037_508)
      let beyond = PositionBounds.accuracy(20_037_509, of: origin)
      #expect(beyond.value == nil && beyond.outOfBounds?.bound == 20_037_508)
    }
  }

  @Test func aStatedAltitudeLiesBetweenTheDeepestSeaFloorAndTheKarmanLine() {
    // The Challenger Deep (about −10,935 m), Everest (8,849 m), a balloon at 53 km: places.
    for place in [-10_935.0, -430, 0, 8_849, 53_000, 100_000, -11_000] {
      #expect(PositionBounds.statedAltitude(place) == PositionBounds.Judged(value: place), "\(place)")
    }
    #expect(
      PositionBounds.statedAltitude(1e308).outOfBounds
        == OutOfBounds(.altitude, 1e308, bound: 100_000, .refused))
    #expect(PositionBounds.statedAltitude(100_001).value == nil)
    #expect(
      PositionBounds.statedAltitude(-11_001).outOfBounds
        == OutOfBounds(.altitude, -11_001, bound: -11_000, .refused))
  }

  @Test func aCoordinateOffTheGlobeNamesTheValueThatIs() {
    #expect(PositionBounds.coordinate(lat: 59.9, lon: 10.7) == .success(Coordinate(lat: 59.9, lon: 10.7)!))
    #expect(PositionBounds.coordinate(lat: 90, lon: -180) == .success(Coordinate(lat: 90, lon: -180)!))
    #expect(
      PositionBounds.coordinate(lat: 123, lon: 10)
        == .failure(OutOfBounds(.latitude, 123, bound: 90, .refused)))
    #expect(
      PositionBounds.coordinate(lat: -91, lon: 10)
        == .failure(OutOfBounds(.latitude, -91, bound: -90, .refused)))
    // Only the value off the globe is recorded: the latitude here could be a real one.
    #expect(
      PositionBounds.coordinate(lat: 59.9, lon: -180.5)
        == .failure(OutOfBounds(.longitude, -180.5, bound: -180, .refused)))
  }

  @Test func theWordsSayTheFieldTheValueTheBoundAndWhatWasDone() {
    #expect(
      OutOfBounds(.accuracy, 1e-300, bound: 10, .raised).description
        == "accuracy 1e-300 m is below 10 m: raised to it")
    #expect(
      OutOfBounds(.altitude, 1e308, bound: 100_000, .refused).description
        == "altitude 1e+308 m is above 100000 m: refused")
    #expect(
      OutOfBounds(.accuracy, 0, bound: 0, .refused).description == "accuracy 0 m is not above 0 m: refused")
    #expect(
      OutOfBounds(.latitude, 123, bound: 90, .refused).description == "latitude 123° is above 90°: refused")
    #expect(OutOfBounds(.speed, -3, bound: 0, .refused).description == "speed -3 m/s is below 0 m/s: refused")
  }

  // MARK: Decimals in text

  /// strtod(3)'s decimal form (C11 7.22.1.3: an optional sign, a nonempty sequence of digits
  /// optionally containing a radix point, an optional exponent part), each read as that
  /// decimal's nearest double.
  @Test(arguments: [
    ("59", 59.0), ("-33.8568", -33.8568), ("+59.9", 59.9), (".5", 0.5), ("5.", 5), ("5e-05", 0.00005),
    ("1E3", 1000), ("-0", 0), ("0e400", 0), ("000.000", 0), ("1e-307", 1e-307),
  ])
  func strtodsDecimalsAreRead(word: String, value: Double) {
    #expect(DecimalText.read(Substring(word)) == .number(value))
  }

  /// What strtod also reads and locd does not: hexadecimal (C11's "0x" form), infinity and
  /// NaN, and any number whose magnitude overflows a double or underflows below its smallest
  /// normal value, 2.2250738585072014e-308 (strtod's ERANGE, which geoclue refuses).
  @Test(arguments: [
    ("0x3b", DecimalText.Reading.hexadecimal), ("-0X1p4", .hexadecimal), ("0x", .hexadecimal),
    ("inf", .notANumber), ("-infinity", .notANumber), ("nan", .notANumber), ("NAN(1)", .notANumber),
    ("1e400", .outOfRange), ("-1e309", .outOfRange), ("1e-400", .outOfRange), ("1e-310", .outOfRange),
    ("", .notANumber), ("-", .notANumber), (".", .notANumber), ("1e", .notANumber), ("1e+", .notANumber),
    ("59.9N", .notANumber), ("1,5", .notANumber), (" 5", .notANumber), ("5 ", .notANumber),
    ("1.2.3", .notANumber), ("--5", .notANumber), ("٥", .notANumber),
  ])
  func everythingElseIsNot(word: String, reading: DecimalText.Reading) {
    #expect(DecimalText.read(Substring(word)) == reading, "\(word)")
  }

  @Test func aConfigurationSpeedIsADecimalToo() {
    // [Regions] MaxSpeed= was read by Double(String): 0x10 was 16 m/s.
    var c = DaemonConfig()
    let problems = c.apply(fileText: "[Regions]\nMaxSpeed=0x10\n", fileName: "c")
    #expect(problems.count == 1 && c.regions.maxSpeed == DaemonConfig().regions.maxSpeed, "\(problems)")
    #expect(c.apply(fileText: "[Regions]\nMaxSpeed=12.5\n", fileName: "c").isEmpty)
    #expect(c.regions.maxSpeed == MetersPerSecond(12.5))
  }

  // MARK: GNSS, through the decoders (NMEA, gpsd's JSON; a modem's traces are NMEA too)

  func decode(_ lines: [String]) -> (fixes: [Fix], counters: NMEACounters) {
    var decoder = NMEADecoder(referenceTime: at("2026-06-01T12:00:00Z"), gpsdJSON: true)
    var fixes: [Fix] = []
    let text = lines.map { $0.hasPrefix("{") ? $0 + "\n" : nmeaLine($0) }.joined()
    Array(text.utf8).withUnsafeBytes { decoder.feed($0) { fixes.append($0) } }
    decoder.finish { fixes.append($0) }
    return (fixes, decoder.counters)
  }

  @Test func aReceiversAccuracyBelowACentimetreIsRaisedToIt() throws {
    // GST σlat = σlon = 0.000001 m: a 68 % radius of 1.5 µm (σ × 1.5096), below RTK's 1 cm.
    let gst = decode([
      "GPGGA,120000.00,5900.000,N,01000.000,E,4,12,0.5,20,M,18,M,,",
      "GPGST,120000.00,0.0,0.0,0.0,0.0,0.000001,0.000001,0.0",
      "GPRMC,120000.00,A,5900.000,N,01000.000,E,0.0,0.0,010626,,,A",
    ])
    let fix = try #require(gst.fixes.last)
    #expect(fix.horizontalAccuracy == Meters(0.01))
    let raised = try #require(fix.outOfBounds.first)
    #expect(raised.field == .accuracy && raised.action == .raised && raised.bound == 0.01)
    #expect(abs(raised.value - 0.000001 * HorizontalAccuracy.radius68PerSigma) < 1e-12)
    #expect(gst.counters.implausibleValues == 0, "raised, not dropped")
    // gpsd's eph of 1e-300 (a 95 % radius): the same floor.
    let tpv = decode([
      #"{"class":"TPV","mode":3,"time":"2026-06-01T12:00:00.000Z","lat":59.0,"lon":10.0,"eph":1e-300}"#
    ])
    #expect(tpv.fixes.last?.horizontalAccuracy == Meters(0.01))
    #expect(tpv.fixes.last?.outOfBounds.map(\.action) == [.raised])
    // An RTK fix's eph of 3 cm (a 68 % radius of 1.85 cm) is kept as it came.
    let rtk = decode([
      #"{"class":"TPV","mode":3,"time":"2026-06-01T12:00:01.000Z","lat":59.0,"lon":10.0,"eph":0.03}"#
    ])
    let kept = try #require(rtk.fixes.last?.horizontalAccuracy?.value)
    #expect(
      abs(kept - 0.03 / HorizontalAccuracy.radius95PerSigma * HorizontalAccuracy.radius68PerSigma) < 1e-12)
    #expect(rtk.fixes.last?.outOfBounds.isEmpty == true)
  }

  @Test func everyFieldDroppedFromAFixSaysItsValueAndBound() throws {
    // The bounds of FixPlausibility (decision 0018), each now with its value on the fix.
    let tpv = decode([
      #"{"class":"TPV","mode":3,"time":"2026-06-01T12:00:00.000Z","lat":59.0,"lon":10.0,"#
        + #""altMSL":1e9,"speed":-3,"eph":1e300,"track":720,"geoidSep":-5000}"#
    ])
    let fix = try #require(tpv.fixes.last)
    let found = Set(fix.outOfBounds)
    #expect(
      found == [
        OutOfBounds(.speed, -3, bound: 0, .refused), OutOfBounds(.altitude, 1e9, bound: 100_000, .refused),
        OutOfBounds(.geoidSeparation, -5000, bound: -200, .refused),
        OutOfBounds(.course, 720, bound: 360, .refused),
        OutOfBounds(
          .accuracy, 1e300 / HorizontalAccuracy.radius95PerSigma * HorizontalAccuracy.radius68PerSigma,
          bound: 10_000, .refused),
      ])
    #expect(tpv.counters.implausibleValues == 5)
  }

  @Test func aTPVOffTheGlobeIsAFixWithoutAPositionAndSaysWhichValue() throws {
    let tpv = decode([#"{"class":"TPV","mode":3,"time":"2026-06-01T12:00:00.000Z","lat":123.0,"lon":10.0}"#])
    let fix = try #require(tpv.fixes.last)
    #expect(fix.coordinate == nil)
    #expect(fix.outOfBounds == [OutOfBounds(.latitude, 123, bound: 90, .refused)])
  }

  // MARK: The record status shows

  @Test func theReportKeepsOneEntryPerSourceFieldAndActionAndAtMostEight() {
    var r = OutOfBoundsReport()
    let t = at("2026-06-01T12:00:00Z")
    r.note(OutOfBounds(.altitude, 1e9, bound: 100_000, .refused), from: "gpsd://a", .gnss, at: t)
    r.note(
      OutOfBounds(.altitude, 2e9, bound: 100_000, .refused), from: "gpsd://a", .gnss, at: t.adding(seconds: 1)
    )
    #expect(r.refused == 2 && r.raised == 0 && r.recent.count == 1)
    #expect(r.recent.first?.count == 2 && r.recent.first?.value.value == 2e9)
    #expect(r.recent.first?.last == t.adding(seconds: 1))
    for i in 0..<10 {
      r.note(OutOfBounds(.accuracy, 1e-300, bound: 10, .raised), from: "service \(i)", .wifi, at: t)
    }
    #expect(r.recent.count == OutOfBoundsReport.kept && OutOfBoundsReport.kept == 8)
    #expect(r.recent.first?.source == "service 2" && r.recent.last?.source == "service 9")
    #expect(r.refused == 2 && r.raised == 10)
  }
}
