import LocCore
import Testing

/// `CoordinateText`, the one coordinate syntax (locctl(1), COORDINATES; decision 0045): every
/// form it reads, to the double, and every refusal with the problem it names.
@Suite struct CoordinateTextTests {
  func read(_ text: String) throws -> Coordinate { try CoordinateText.parse(text).coordinate }

  func problem(_ text: String) -> CoordinateText.Problem? {
    do throws(CoordinateText.Problem) {
      _ = try CoordinateText.parse(text)
      return nil
    } catch {
      return error
    }
  }

  @Test(arguments: [
    ("59.91,10.75", 59.91, 10.75), ("59.91, 10.75", 59.91, 10.75), ("59.91 10.75", 59.91, 10.75),
    ("  59.91\t10.75 ", 59.91, 10.75), ("-33.92,18.42", -33.92, 18.42), ("+1.5,-0.25", 1.5, -0.25),
    ("59.91 ,10.75", 59.91, 10.75), ("12.,.5", 12, 0.5), ("90,-180", 90, -180), ("0,0", 0, 0),
  ])
  func decimalDegrees(_ text: String, _ lat: Double, _ lon: Double) throws {
    let c = try read(text)
    #expect(c.latitude.value == lat && c.longitude.value == lon, "\(text): \(c)")
  }

  @Test(arguments: [
    ("59.91N 10.75E", 59.91, 10.75), ("N59.91 E10.75", 59.91, 10.75), ("33.92S,18.42E", -33.92, 18.42),
    ("33.92 S, 18.42 W", -33.92, -18.42), ("S 33.92 W 18.42", -33.92, -18.42),
    ("59.91n 10.75e", 59.91, 10.75),
    ("59.91N E10.75", 59.91, 10.75), ("N 59.91 10.75 E", 59.91, 10.75), ("0N,0W", 0, 0),
    ("59.91 10.75W", 59.91, -10.75),
  ])
  func hemisphereLetters(_ text: String, _ lat: Double, _ lon: Double) throws {
    let c = try read(text)
    #expect(c.latitude.value == lat && c.longitude.value == lon, "\(text): \(c)")
  }

  @Test func degreesMinutesSeconds() throws {
    // 59°54'50" is 215690 seconds of arc: one division, the nearest double to 59.913888...
    let oslo = (lat: 215_690.0 / 3600, lon: 38_708.0 / 3600)
    for text in [
      "59°54'50\"N 10°45'8\"E", "59°54′50″N 10°45′8″E", "59d54m50sN 10d45m8sE", "59°54'50\"N,10°45'8\"E",
      "59° 54' 50\" N, 10° 45' 8\" E", "N59°54'50\" E10°45'8\"", "59°54’50”N 10°45’8”E",
      "59°54'50''N 10°45'8''E",
      "59º54'50\"N 10º45'8\"E", "59°54'50\" 10°45'8\"",
    ] {
      let c = try read(text)
      #expect(c.latitude.value == oslo.lat && c.longitude.value == oslo.lon, "\(text): \(c)")
    }
    #expect(abs(oslo.lat - 59.913_888_9) < 1e-7)
    let south = try read("33°55'12\"S 18°25'26\"E")
    #expect(south.latitude.value == -122_112.0 / 3600)
    #expect(try read("-33°55'12\", 18°25'26\"").latitude.value == south.latitude.value)
    // Degrees and decimal minutes; degrees alone with their mark.
    let minutes = try read("59°54.83'N 10°45.13'E")
    #expect(abs(minutes.latitude.value - (59 + 54.83 / 60)) < 1e-12)
    #expect(abs(minutes.longitude.value - (10 + 45.13 / 60)) < 1e-12)
    #expect(try read("59.91° 10.75°") == read("59.91,10.75"))
    // 33d55ms: minutes then the letter S, not seconds (seconds need a number).
    #expect(try read("33d55mS 18d25mE").latitude.value < 0)
    #expect(try read("33d55m12ss 18d25m26se") == south)
  }

  @Test func geoURIs() throws {
    let plain = try CoordinateText.parse("geo:59.91,10.75")
    let oslo = try read("59.91,10.75")
    #expect(plain == CoordinateText.Reading(coordinate: oslo))
    let full = try CoordinateText.parse("GEO:59.91,-10.75,12.5;CRS=WGS84;U=35")
    let west = try read("59.91,-10.75")
    #expect(full.coordinate == west)
    #expect(full.altitude == Meters(12.5) && full.uncertainty == Meters(35))
    let u = try CoordinateText.parse("geo:-33.92,18.42;u=0.5;name=home")
    #expect(u.uncertainty == Meters(0.5) && u.altitude == nil && u.coordinate.latitude.value == -33.92)
    #expect(try CoordinateText.parse(" geo:0,0;crs=wgs84 ").coordinate == read("0,0"))
  }

  @Test(arguments: [
    ("geo:59.91,10.75;crs=utm", CoordinateText.Problem.crs("utm")),
    ("geo:59.91,10.75;crs=", .crs("")),
    ("geo:91,10", .latitude(91)),
    ("geo:10,-181", .longitude(-181)),
  ])
  func geoURIRefusals(_ text: String, _ expected: CoordinateText.Problem) {
    #expect(problem(text) == expected, "\(text)")
  }

  @Test(arguments: [
    "geo:59.91", "geo:59.91,10.75,1,2", "geo:+59.91,10.75", "geo:59.91,1e1", "geo:59.91,10.75;u=-3",
    "geo:59.91,10.75;u=35;u=40", "geo:59.91,10.75;crs=wgs84;crs=wgs84", "geo:59.91,10.75;",
    "geo:59.91, 10.75",
    "geo:.5,1", "geo:5.,1",
  ])
  func malformedGeoURIsNameTheURI(_ text: String) {
    guard case .geo(let uri, _)? = problem(text) else {
      Issue.record("\(text): \(String(describing: problem(text)))")
      return
    }
    #expect(uri == text)
    #expect(problem(text)!.description.contains("geo:LAT,LON[,ALT][;crs=wgs84][;u=METRES]"))
  }

  @Test func rangesSayWhichWayIsNegative() {
    #expect(problem("91,0") == .latitude(91))
    #expect(problem("-90.5 0") == .latitude(-90.5))
    #expect(problem("0,180.5") == .longitude(180.5))
    #expect(problem("95S 10E") == .latitude(-95))
    #expect(problem("10N 181W") == .longitude(-181))
    #expect(problem("90°30'N 0E") == .latitude(90.5))
    #expect(problem("91,0")!.description.contains("south negative"))
    #expect(problem("0,181")!.description.contains("west negative"))
  }

  @Test func refusals() {
    #expect(problem("") == .empty && problem("  ") == .empty)
    for text in ["59.91", "59.91,", "59.91N", "N59.91", "59°54'50\"N", "N"] {
      #expect(problem(text)?.isIncomplete == true, "\(text)")
    }
    #expect(problem("59.91")?.description.contains("only a latitude") == true)
    for text in [",10.75", "59.91,,10.75", "59.91,10.75,", "59.91 10.75,"] {
      #expect(problem(text) == .shape, "\(text)")
    }
    // Bare degrees, minutes and seconds are not guessed at.
    #expect(problem("59 54 50 N 10 45 8 E") == .tooMany)
    #expect(problem("59 54 50") == .tooMany)
    #expect(problem("1 2 3")!.description.contains("59d54m50sN"))
    for (text, word) in [
      ("abc", "abc"), ("1e3,2", "1e3"), ("nan,0", "nan"), ("inf 0", "inf"), ("59.9;10.7", "59.9;10.7"),
      ("59..9,1", "59..9"), ("0x10,1", "0x10"), ("59.91N10.75E", "59.91N10.75E"), ("North 59", "North"),
      ("-,1", "-"),
    ] {
      #expect(problem(text) == .notANumber(word), "\(text): \(String(describing: problem(text)))")
    }
    #expect(problem("10.75E 59.91N") == .hemisphere("10.75E", latitude: true))
    #expect(problem("59.91N 10.75N") == .hemisphere("10.75N", latitude: false))
    #expect(problem("59.91 10.75 N") == .hemisphere("10.75 N", latitude: false))
    #expect(problem("10.75E 59.91N")!.description.contains("latitude, which comes first") == false)
    #expect(problem("59.91N 10.75N")!.description.contains("latitude, which comes first"))
    #expect(problem("-33.92S,18.42E") == .letterAndSign("-33.92S"))
    #expect(problem("N-59.91 10.75") == .letterAndSign("N-59.91"))
    #expect(problem("59.91 10.75 E N") == .tooMany)
  }

  @Test func degreesMinutesSecondsRefusals() {
    #expect(problem("59°75'N 10E") == .angle("59°75'N", "minutes must be below 60"))
    #expect(problem("59°54'60\"N 10E") == .angle("59°54'60\"N", "seconds must be below 60"))
    #expect(problem("59.5°30'N 10E") == .angle("59.5°30'N", "only the last part may have decimals"))
    #expect(problem("59°-54'N 10E") == .angle("59°-54'N", "only the degrees take a sign"))
    #expect(problem("54'N 10E") == .angle("54'", "minutes need degrees before them"))
    // Marks out of order end the angle: the next number starts with minutes.
    #expect(problem("59°54\"30' 10E") == .angle("30'", "minutes need degrees before them"))
  }

  @Test func twoWordsAreReadAsOne() throws {
    let oslo = try read("59.91,10.75")
    for words in [["59.91", "10.75"], ["59.91,", "10.75"], ["59.91N", "10.75E"], ["N59.91", "E10.75"]] {
      let r = try CoordinateText.read(words)
      #expect(r.reading.coordinate == oslo && r.words == 2, "\(words)")
    }
    let one = try CoordinateText.read(["home", "59.91,10.75", "150"], from: 1)
    #expect(one.reading.coordinate == oslo && one.words == 1)
    let two = try CoordinateText.read(["home", "59.91", "10.75", "150"], from: 1)
    #expect(two.reading.coordinate == oslo && two.words == 2)
    let dms = try CoordinateText.read(["59°54'50\"N", "10°45'8\"E"])
    let whole = try read("59°54'50\"N 10°45'8\"E")
    #expect(dms.reading.coordinate == whole && dms.words == 2)
    // A word holding a whole coordinate does not take the next; one alone stays incomplete.
    #expect(try CoordinateText.read(["geo:59.91,10.75", "10"]).words == 1)
    #expect(CoordinateText.wantsAnotherWord("59.91") && CoordinateText.wantsAnotherWord("59.91,"))
    #expect(!CoordinateText.wantsAnotherWord("59.91,10.75") && !CoordinateText.wantsAnotherWord("abc"))
    #expect(throws: CoordinateText.Problem.incomplete("59.91")) { try CoordinateText.read(["59.91"]) }
    #expect(throws: CoordinateText.Problem.longitude(200)) { try CoordinateText.read(["59.91", "200"]) }
    #expect(throws: CoordinateText.Problem.empty) { try CoordinateText.read([]) }
  }

  /// The plain decimal forms read to the same doubles as `CoordinateScanner`, `locctl tz -`'s
  /// byte reader, and both refuse what is not two numbers.
  @Test(arguments: [
    "59.9139,10.7522", "59.9139 10.7522", "59.9139, 10.7522", " -33.8688\t151.2093", "+1.5,-0.000001", "0,0",
    "90,180", "-90,-180", "12.,.5", "38.879412345678901234,-6.97070000000000000001",
    "0.1234567890123456789,1",
    "45.000000000000001,-0.3",
  ])
  func agreesWithTheScanner(_ line: String) throws {
    let bytes = Array(line.utf8)
    let scanned = try #require(
      bytes.withUnsafeBufferPointer { CoordinateScanner.coordinate($0.baseAddress!, 0, bytes.count) })
    #expect(try read(line) == scanned, "\(line)")
  }

  @Test(arguments: ["59.9", "59.9,", ",10", "59.9;10.7", "1e3,2", "nan,0", "59.9 10.7 3", "59..9,1", "91,0"])
  func refusesWhatTheScannerRefuses(_ line: String) {
    let bytes = Array(line.utf8)
    let scanned = bytes.withUnsafeBufferPointer {
      CoordinateScanner.coordinate($0.baseAddress!, 0, bytes.count)
    }
    #expect(scanned == nil && problem(line) != nil, "\(line)")
  }
}
