import LocCore
import Testing

/// Issue 40, item 4: the static file (geoclue's /etc/geolocation format) took an accuracy of
/// 1e-300 m, an altitude of 1e308 m and read `0x3b` as 59. geoclue reads each number with
/// g_ascii_strtod and refuses what strtod flags with ERANGE; locd reads no more than that:
/// strtod's decimal form (a sign, digits, a fraction, an exponent) without its hexadecimal,
/// `inf` and `nan`, and each value within what a place can be (docs/SOURCES.md, "Bounds").
@Suite struct StaticFileBoundsTests {
  @Test(arguments: [
    ("0x3b\n10.7\n23\n15\n", "line 1: the latitude 0x3b is hexadecimal, not a decimal number"),
    ("59.9\n-0X1p4\n23\n15\n", "line 2: the longitude -0X1p4 is hexadecimal, not a decimal number"),
    (
      "59.9\n10.7\n23\n1e-300\n",
      "line 4: the accuracy 1e-300 m is below 0.01 m (no machine's place is known to less than a centimetre)"
    ),
    (
      "59.9\n10.7\n23\n0.001\n",
      "line 4: the accuracy 0.001 m is below 0.01 m (no machine's place is known to less than a centimetre)"
    ),
    (
      "59.9\n10.7\n23\n3e7\n",
      "line 4: the accuracy 30000000 m is above 20037508 m (half the Earth's circumference)"
    ),
    ("59.9\n10.7\n1e308\n15\n", "line 3: the altitude 1e+308 m is outside -11000…100000 m"),
    ("59.9\n10.7\n-12000\n15\n", "line 3: the altitude -12000 m is outside -11000…100000 m"),
    ("59.9\n10.7\n1e400\n15\n", "line 3: the altitude 1e400 is beyond what a number can hold"),
    ("1e-400\n10.7\n23\n15\n", "line 1: the latitude 1e-400 is beyond what a number can hold"),
    ("59.9\n10.7\n23\ninfinity\n", "line 4: the accuracy is not a number"),
    ("59.9N\n10.7\n23\n15\n", "line 1: the latitude is not a number"),
    ("59,9\n10.7\n23\n15\n", "line 1: the latitude is not a number"),
    ("59.9\n10.7\n23\n1e\n", "line 4: the accuracy is not a number"),
    ("59.9\n10.7\n.\n15\n", "line 3: the altitude is not a number"),
  ])
  func aValueBeyondItsBoundOrSyntaxMakesTheFileUnusableNamingIt(text: String, problem: String) {
    #expect(throws: StaticLocationFile.Problem(description: problem)) { try StaticLocationFile.parse(text) }
  }

  @Test func everyDecimalFormStrtodReadsIsReadAsTheSameNumber() throws {
    // An explicit + (ISO 6709 writes one), a fraction without digits before or after the point,
    // an exponent (Python's str(0.00005) is "5e-05"); the values are the decimals as written.
    let c = try StaticLocationFile.parse("+59.9139\n.5\n5.\n5e-02\n")
    #expect(c.coordinate == Coordinate(lat: 59.9139, lon: 0.5))
    #expect(c.altitude == Meters(5) && c.accuracy == Meters(0.05))
    // 0 written any way is 0; the deepest sea floor and a centimetre are places.
    let d = try StaticLocationFile.parse("0e400\n-0\n-10935\n0.01\n")
    #expect(d.coordinate == Coordinate(lat: 0, lon: 0) && d.altitude == Meters(-10_935))
    #expect(d.accuracy == Meters(0.01))
  }
}
