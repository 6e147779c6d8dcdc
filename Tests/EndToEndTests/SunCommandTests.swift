import Foundation
import LocCore
import LocHost
import Testing

/// `locctl sun`, through the built binary.
@Suite struct SunCommandTests {
  /// Issue 43, item 10: a place in degrees, minutes and seconds was shown with 15 decimals
  /// (59.91388888888889). 54'50" is 54.8333' = 0.913889°; 45'8" is 0.752222°: at most 7
  /// decimals, as status shows a coordinate given without an accuracy.
  @Test func aPlaceInDMSIsShownWithAtMostSevenDecimals() throws {
    let r = try run(Binaries.locctl, ["sun", "--at", "59°54'50\"N 10°45'8\"E", "--date", "2026-12-07"])
    #expect(r.status == 0, "\(r.stderr)")
    let first = String(r.stdout.split(separator: "\n").first ?? "")
    #expect(first.contains(" at 59.9138889, 10.7522222"), "\(first)")
  }

  @Test func jsonMatchesTheReferenceForTromsoInDecember() throws {
    let r = try run(
      Binaries.locctl,
      ["sun", "--at", "69.6492,18.9553", "--tz", "Europe/Oslo", "--date", "2024-12-21", "--json"])
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n")
    #expect(lines.count == 1)
    let day = try JSON.parse(String(lines[0]))
    #expect(day["date"]?.string == "2024-12-21")
    #expect(day["timezone"]?.string == "Europe/Oslo")
    // Reference rows (Tests/Fixtures/solar/reference.csv, Skyfield/DE421), rounded to the second.
    let expected = [
      "astronomical_dawn": "2024-12-21T05:28:35Z", "civil_dawn": "2024-12-21T08:31:32Z",
      "solar_noon": "2024-12-21T10:42:27Z", "civil_dusk": "2024-12-21T12:53:22Z",
      "astronomical_dusk": "2024-12-21T15:56:18Z",
    ]
    for (event, iso) in expected {
      let ours = try #require(day[event]?.string.flatMap { Instant(iso8601: $0) }, "\(event)")
      #expect(abs(ours.seconds(since: Instant(iso8601: iso)!)) <= 2, "\(event)")
    }
    #expect(day["sunrise"]?.isNull == true)
    #expect(day["sunset"]?.isNull == true)
    #expect(day["polar"]?["sunrise"]?.string == "night")
    #expect(day["polar"]?["sunset"]?.string == "night")
    #expect(day["polar"]?.object?.keys.count == 2)  // every null explained, nothing else
    let keys = day.object?.keys ?? []
    #expect(
      keys == [
        "date", "timezone", "astronomical_dawn", "nautical_dawn", "civil_dawn", "sunrise", "solar_noon",
        "sunset",
        "civil_dusk", "nautical_dusk", "astronomical_dusk", "polar",
      ])
  }

  /// Ten years are made in two halves at once (SunJSON.parallelFrom); the lines must be those
  /// of ten one-year runs, which take the single-thread path, in order: Tromsø (polar day and
  /// night) and London in New York time (events on the previous or next local day).
  @Test(arguments: [
    ["--at", "69.6492,18.9553", "--tz", "Europe/Oslo"], ["--at", "51.5,-0.12", "--tz", "America/New_York"],
  ])
  func tenYearsInTwoHalvesAreTheSameAsTenYearsOneByOne(_ place: [String]) throws {
    let whole = try run(
      Binaries.locctl, ["sun"] + place + ["--date", "2026-01-01", "--days", "3660", "--json"])
    #expect(whole.status == 0, "\(whole.stderr)")
    var pieces = ""
    var date = CivilDate(year: 2026, month: 1, day: 1)!
    for _ in 0..<10 {
      let r = try run(
        Binaries.locctl, ["sun"] + place + ["--date", date.description, "--days", "366", "--json"])
      #expect(r.status == 0, "\(r.stderr)")
      pieces += r.stdout
      date = date.adding(days: 366)
    }
    #expect(whole.stdout.split(separator: "\n").count == 3660)
    #expect(whole.stdout == pieces)
  }

  @Test func severalDaysAndCustomEvents() throws {
    let r = try run(
      Binaries.locctl,
      [
        "sun", "--at", "-33.4489,-70.6693", "--tz", "America/Santiago", "--date", "2024-09-07", "--days", "3",
        "--json", "--event", "elevation:-8.5:evening",
      ])
    #expect(r.status == 0, "\(r.stderr)")
    let days = try r.stdout.split(separator: "\n").map { try JSON.parse(String($0)) }
    #expect(days.map { $0["date"]?.string } == ["2024-09-07", "2024-09-08", "2024-09-09"])
    for day in days {
      let dusk = try #require(day["civil_dusk"]?.string.flatMap { Instant(iso8601: $0) })
      let custom = try #require(day["elevation:-8.5:evening"]?.string.flatMap { Instant(iso8601: $0) })
      #expect(custom > dusk)
    }
  }

  @Test func anEventTwiceInOneDayIsReportedTwice() throws {
    // McMurdo, 2024-04-07, 25 hours long: two astronomical dusks (reference rows
    // 2024-04-06T11:28:55Z and 2024-04-07T11:11:55Z).
    let r = try run(
      Binaries.locctl,
      ["sun", "--at", "-77.8463,166.6683", "--tz", "Antarctica/McMurdo", "--date", "2024-04-07", "--json"])
    let day = try JSON.parse(r.stdout)
    let first = try #require(day["astronomical_dusk"]?.string.flatMap { Instant(iso8601: $0) })
    let second = try #require(
      day["also"]?["astronomical_dusk"]?.array?.first?.string.flatMap { Instant(iso8601: $0) })
    #expect(abs(first.seconds(since: Instant(iso8601: "2024-04-06T11:28:55Z")!)) <= 2)
    #expect(abs(second.seconds(since: Instant(iso8601: "2024-04-07T11:11:55Z")!)) <= 2)
    let table = try run(
      Binaries.locctl,
      ["sun", "--at", "-77.8463,166.6683", "--tz", "Antarctica/McMurdo", "--date", "2024-04-07"])
    #expect(table.stdout.contains("(astronomical_dusk also at 23:11:5"))
  }

  @Test func tableUsesLocalTimeAndExplainsGaps() throws {
    let r = try run(
      Binaries.locctl, ["sun", "--at", "69.6492,18.9553", "--tz", "Europe/Oslo", "--date", "2024-06-20"],
      environment: ["NO_COLOR": "1"])
    #expect(r.status == 0)
    #expect(r.stdout.contains("2024-06-20"))
    // Solar noon: the reference row says 10:45:52Z, 12:45:52 in CEST.
    #expect(r.stdout.contains(" 12:45:5"))
    #expect(r.stdout.contains("-day: the Sun stays above that elevation all day"))
    #expect(r.stdout.contains("times in CEST"))
  }

  /// The twilight columns are named twice (astro, nautical, civil before sunrise and after
  /// sunset): a line above the header says which are dawn's and which dusk's.
  @Test func tableHeaderSaysDawnAndDusk() throws {
    let r = try run(
      Binaries.locctl, ["sun", "--at", "59.91,10.75", "--tz", "Europe/Oslo", "--date", "2026-03-20"],
      environment: ["NO_COLOR": "1"])
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n").map(String.init)
    try #require(lines.count >= 4)
    let groups = lines[1]
    let names = lines[2]
    #expect(names.hasPrefix("date        astro"), "\(names)")
    let dawn = try #require(groups.range(of: "dawn"))
    let dusk = try #require(groups.range(of: "dusk"))
    // Each group word stands over the first column of its three.
    #expect(
      groups.distance(from: groups.startIndex, to: dawn.lowerBound)
        == names.distance(
          from: names.startIndex, to: names.range(of: "astro")!.lowerBound))
    #expect(
      groups.distance(from: groups.startIndex, to: dusk.lowerBound)
        == names.distance(
          from: names.startIndex, to: names.range(of: "civil", options: .backwards)!.lowerBound))
    #expect(lines[3].hasPrefix("2026-03-20"))
  }

  /// `--utc`: the same local days, the times in UTC (Oslo's noon at 13:10 CET is 12:10 UTC).
  @Test func utcShowsTheTableInUTC() throws {
    let args = ["sun", "--at", "59.91,10.75", "--tz", "Europe/Oslo", "--date", "2026-01-15"]
    let local = try run(Binaries.locctl, args, environment: ["NO_COLOR": "1"])
    let utc = try run(Binaries.locctl, ["--utc"] + args, environment: ["NO_COLOR": "1"])
    #expect(local.status == 0 && utc.status == 0, "\(local.stderr) \(utc.stderr)")
    func noon(_ out: String) -> String? {
      let row = out.split(separator: "\n").first { $0.hasPrefix("2026-01-15") }
      return row.map { $0.split(separator: " ").map(String.init) }.map { $0[5] }
    }
    let l = try #require(noon(local.stdout))
    let u = try #require(noon(utc.stdout))
    #expect(l.hasPrefix("12:") || l.hasPrefix("13:"), "\(l)")
    #expect(Int(l.prefix(2))! - Int(u.prefix(2))! == 1, "\(l) \(u)")
    #expect(utc.stdout.contains("times in UTC"), "\(utc.stdout)")
    #expect(local.stdout.contains("times in CET"), "\(local.stdout)")
  }

  /// The pixels of a PNG at (x, y) points, as `#rrggbb`, read by a few lines of Python's
  /// standard library (zlib and the five PNG filters), independent of the code that drew it.
  static func pixels(_ png: String, _ points: [(Int, Int)]) throws -> [String] {
    let script = """
      import sys, zlib, struct
      data = open(sys.argv[1], 'rb').read()
      assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n'
      pos, idat = 8, b''
      while pos < len(data):
          n, kind = struct.unpack('>I4s', data[pos:pos + 8])
          body = data[pos + 8:pos + 8 + n]
          if kind == b'IHDR':
              w, h, depth, colour = struct.unpack('>IIBB', body[:10])
          if kind == b'IDAT':
              idat += body
          pos += 12 + n
      assert depth == 8 and colour in (2, 6)
      bpp = 4 if colour == 6 else 3
      raw = zlib.decompress(idat)
      stride = w * bpp
      rows, prev = [], bytearray(stride)
      for r in range(h):
          f = raw[r * (stride + 1)]
          line = bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
          for i in range(stride):
              a = line[i - bpp] if i >= bpp else 0
              b = prev[i]
              c = prev[i - bpp] if i >= bpp else 0
              if f == 1: line[i] = (line[i] + a) & 255
              elif f == 2: line[i] = (line[i] + b) & 255
              elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
              elif f == 4:
                  p = a + b - c
                  pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                  line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
          rows.append(line)
          prev = line
      for arg in sys.argv[2:]:
          x, y = map(int, arg.split(','))
          px = rows[y][x * bpp:x * bpp + 3]
          print('#%02x%02x%02x' % tuple(px))
      """
    let r = try run(
      URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, png] + points.map { "\($0.0),\($0.1)" })
    guard r.status == 0 else { throw HarnessError("python3: \(r.stderr)") }
    return r.stdout.split(separator: "\n").map(String.init)
  }

  /// `sun --svg` and `--png`: a year at Oslo, rendered by rsvg-convert (librsvg) and looked at
  /// pixel by pixel: noon in June is daylight, 03:00 in December night, and around the table's
  /// own sunrise and civil dusk of a day the colour changes where the table says.
  @Test func aYearAsAPictureShowsDaylightWhereTheTableSaysItIs() throws {
    let place = ["sun", "--at", "59.91,10.75", "--tz", "Europe/Oslo"]
    let svg = try run(Binaries.locctl, place + ["--date", "2026-03-01", "--svg"])
    #expect(svg.status == 0, "\(svg.stderr)")
    #expect(svg.stdout.hasPrefix("<?xml") && svg.stdout.hasSuffix("</svg>\n"))
    for band in ["night", "astronomical", "nautical", "civil", "day"] {
      #expect(svg.stdout.contains("<path class=\"\(band)\""), "\(band)")
    }
    #expect(svg.stdout.contains("Europe/Oslo at 59.91, 10.75, 2026"))
    // Today is marked in this year's picture, not in another year's.
    let thisYear = Instant(secondsSinceEpoch: Date().timeIntervalSince1970).utcDate.year
    let now = try run(Binaries.locctl, place + ["--date", "\(thisYear)-06-01", "--svg"])
    #expect(now.stdout.contains("class=\"today\""))
    #expect(
      !(try run(Binaries.locctl, place + ["--date", "2020-06-01", "--svg"])).stdout.contains(
        "class=\"today\""))
    let dir = LocdProcess.makeDirectory()
    let png = dir + "/oslo.png"
    let r = try run(
      URL(fileURLWithPath: "/bin/sh"),
      ["-c", "exec \"$0\" \"$@\" > \(png)", Binaries.locctl.path] + place + ["--date", "2026-03-01", "--png"])
    #expect(r.status == 0, "\(r.stderr)")
    // The chart's geometry (SunChart): x = 56 + 2 × (day of the year + 0.5), y = 44 + 20 px an hour.
    func x(_ dayOfYear: Int) -> Int { 56 + 2 * dayOfYear + 1 }
    func y(_ minutes: Double) -> Int { Int(44 + minutes / 3) }
    let day = "#f6d776"
    let night = "#0d1330"
    let civil = "#7c9ed8"
    let nautical = "#3a5aa0"
    // 2026-03-20 is day 78 of the year (0-based); its sunrise and civil dusk from the table.
    let json = try run(Binaries.locctl, place + ["--date", "2026-03-20", "--json"])
    let reference = try JSON.parse(json.stdout)
    let zone = try ZoneDatabase().rules(named: "Europe/Oslo")
    func minutes(_ key: String) throws -> Double {
      let t = try #require(reference[key]?.string.flatMap { Instant(iso8601: $0) })
      let l = zone.localDateTime(at: t)
      return Double(l.hour * 60 + l.minute) + Double(l.second) / 60
    }
    let sunrise = try minutes("sunrise")
    let dusk = try minutes("civil_dusk")
    let got = try Self.pixels(
      png,
      [
        (x(171), y(12 * 60 + 30)), (x(354), y(3 * 60 + 30)), (x(78), y(sunrise - 6)), (x(78), y(sunrise + 6)),
        (x(78), y(dusk - 6)), (x(78), y(dusk + 6)),
      ])
    #expect(got == [day, night, civil, day, civil, nautical], "\(got)")
    // --png to a terminal is refused; without rsvg-convert it says what to install.
    let missing = try run(Binaries.locctl, place + ["--png"], environment: ["PATH": "/nonexistent"])
    #expect(missing.status == 1, "\(missing.stderr)")
    #expect(
      missing.stderr.contains("--png needs rsvg-convert (apt install librsvg2-bin)"), "\(missing.stderr)")
    let both = try run(Binaries.locctl, place + ["--svg", "--days", "3"])
    #expect(both.status == 2 && both.stderr.contains("draws a whole year"), "\(both.stderr)")
  }

  /// A date that is not one says which part is wrong, not only the year range.
  @Test func aBadDateSaysWhatIsWrong() throws {
    for (date, message) in [
      ("2026-13-01", "there is no month 13 (01 to 12)"),
      ("2026-02-29", "2026-02 has 28 days, there is no day 29"),
      ("1800-01-01", "the year must be 1900 to 2100"), ("2026-1-1", "expected a date YYYY-MM-DD"),
    ] {
      let r = try run(Binaries.locctl, ["sun", "--at", "1,2", "--date", date])
      #expect(r.status == 2, "\(date)")
      #expect(r.stderr.hasPrefix("locctl sun: --date '\(date)': \(message)"), "\(date): \(r.stderr)")
    }
  }

  @Test func defaultZoneIsTheSystemZone() throws {
    let r = try run(
      Binaries.locctl, ["sun", "--at", "35.6762,139.6503", "--date", "2024-03-20", "--json"],
      environment: ["TZ": "Asia/Tokyo"])
    #expect(r.status == 0)
    let day = try JSON.parse(r.stdout)
    #expect(day["timezone"]?.string == "Asia/Tokyo")
    // Without --date: today in that zone.
    let today = try run(Binaries.locctl, ["sun", "--at", "0,0", "--json"], environment: ["TZ": "UTC"])
    let date = try JSON.parse(today.stdout)["date"]?.string
    let now = Instant(secondsSinceEpoch: Date().timeIntervalSince1970).utcDate.description
    #expect(
      date == now || date == Instant(secondsSinceEpoch: Date().timeIntervalSince1970 - 60).utcDate.description
    )
  }

  @Test func badInputIsAUsageError() throws {
    for arguments in [
      ["sun", "--at", "91,0"], ["sun", "--at", "abc"],
      ["sun", "--at", "1,2", "--tz", "Mars/Olympus"],
      ["sun", "--at", "1,2", "--tz", "../../etc/passwd"], ["sun", "--at", "1,2", "--date", "2024-02-30"],
      ["sun", "--at", "1,2", "--days", "0"], ["sun", "--at", "1,2", "--event", "teatime"],
      ["sun", "--at", "1,2", "extra"],
    ] {
      let r = try run(Binaries.locctl, arguments)
      #expect(r.status == 2, "\(arguments)")
      #expect(r.stderr.hasPrefix("locctl sun: "), "\(arguments): \(r.stderr)")
      #expect(r.stdout.isEmpty)
    }
    // Without --at the place is locd's: with no locd that is "not running" (3), with the hint.
    let r = try run(Binaries.locctl, ["--socket", "/nonexistent/locd.sock", "sun"])
    #expect(r.status == 3)
    #expect(r.stderr.contains("--at LAT,LON"), "\(r.stderr)")
  }
}
