import LocCore
import Testing

/// The static file in geoclue's format: four numbers one a line (latitude, longitude,
/// altitude, accuracy radius), `#` comments on their own line or after a number, blank lines
/// skipped (geoclue 2.7's static source, geoclue(5)). The expected values are the file's own
/// numbers; anything malformed makes the whole file unusable, naming the line.
@Suite struct StaticLocationFileTests {
  /// A file as geoclue's documentation lays it out: a heading comment, each number with a
  /// trailing comment.
  static let geoclueStyle = """
    # The office, measured once with a survey receiver
    59.9139   # latitude
    10.7522   # longitude
    23        # altitude (m above sea level)
    15        # accuracy radius (m)

    """

  @Test func readsTheFourNumbersWithTheirComments() throws {
    let c = try StaticLocationFile.parse(Self.geoclueStyle)
    #expect(c.coordinate == Coordinate(lat: 59.9139, lon: 10.7522))
    #expect(c.altitude == Meters(23))
    #expect(c.accuracy == Meters(15))
  }

  @Test func blankLinesTabsAndCarriageReturnsAreSkipped() throws {
    let c = try StaticLocationFile.parse("\r\n\t-33.8568\r\n151.2153\t#opera house\r\n\n5\r\n2.5\r\n")
    #expect(c.coordinate == Coordinate(lat: -33.8568, lon: 151.2153))
    #expect(c.altitude == Meters(5) && c.accuracy == Meters(2.5))
  }

  @Test(arguments: [
    ("", "the latitude is missing (four lines: latitude, longitude, altitude, accuracy)"),
    ("59.9\n10.7\n23\n", "the accuracy is missing (four lines: latitude, longitude, altitude, accuracy)"),
    ("59.9\n10.7\n23\n15\n16\n", "line 5: more than four values"),
    ("59.9\nten\n23\n15\n", "line 2: the longitude is not a number"),
    ("59.9\nnan\n23\n15\n", "line 2: the longitude is not a number"),
    ("59.9\n10.7\ninf\n15\n", "line 3: the altitude is not a number"),
    ("91\n10.7\n23\n15\n", "latitude or longitude out of range"),
    ("59.9\n181\n23\n15\n", "latitude or longitude out of range"),
    ("59.9\n10.7\n23\n0\n", "the accuracy must be above 0 m"),
    ("59.9\n10.7\n23\n-3\n", "the accuracy must be above 0 m"),
    ("59.9 10.7\n23\n15\n1\n", "line 1: the latitude is not a number"),
  ])
  func aMalformedFileIsUnusableWithTheLineThatIsWrong(text: String, problem: String) {
    #expect(throws: StaticLocationFile.Problem(description: problem)) { try StaticLocationFile.parse(text) }
  }

  @Test func aFileAboveTheLimitIsRefusedWithoutReadingIt() {
    let big = String(repeating: "#", count: StaticLocationFile.sizeLimit + 1)
    #expect(throws: StaticLocationFile.Problem(description: "larger than 4096 bytes")) {
      try StaticLocationFile.parse(big)
    }
  }

  @Test func theStateMadeFromAFileIsAStaticPositionAndNothingElse() throws {
    let now = Instant(microsecondsSinceEpoch: 1_790_000_000_000_000)
    let s = StaticFileState.read("/etc/geolocation", text: Self.geoclueStyle, at: now)
    let p = try #require(s.position)
    #expect(p.origin == .staticFile && p.source == "static:/etc/geolocation" && p.receivedAt == now)
    #expect(s.problem == nil)
    #expect(StaticFileState.read("/etc/geolocation", text: nil, at: now).position == nil)
    let bad = StaticFileState.read("/etc/geolocation", text: "x", at: now)
    #expect(bad.position == nil && bad.problem == "line 1: the latitude is not a number")
  }
}
