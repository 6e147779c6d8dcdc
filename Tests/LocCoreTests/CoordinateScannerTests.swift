import LocCore
import Testing

/// `CoordinateScanner` (locctl tz -'s line reader) against the standard library's reading of
/// the same text (`Double(String)`, which is strtod(3)-exact), and its shape rules.
@Suite struct CoordinateScannerTests {
  func scan(_ line: String) -> (Double, Double)? {
    let bytes = Array(line.utf8) + [0]
    return bytes.withUnsafeBufferPointer { CoordinateScanner.numbers($0.baseAddress!, 0, bytes.count - 1) }
  }

  @Test(arguments: [
    "59.9139,10.7522", "59.9139 10.7522", "59.9139, 10.7522", " -33.8688\t151.2093\r", "+1.5,-0.000001",
    "0,0", "90,180", "-90,-180", "12.,.5", "38.879412345678901234,-6.97070000000000000001",
    "0.1234567890123456789,1",
  ])
  func readsWhatTheStandardLibraryReads(_ line: String) throws {
    let got = try #require(scan(line), "\(line)")
    let words = line.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" || $0 == "\r" })
    #expect(words.count == 2)
    let lat = try #require(Double(String(words[0])))
    let lon = try #require(Double(String(words[1])))
    #expect(got.0 == lat && got.1 == lon, "\(line): \(got)")
  }

  @Test func everyShortDecimalReadsExactly() throws {
    // A pseudo-random sweep of 6- and 7-decimal coordinates, the usual shape of tz input.
    var x: UInt64 = 0x9E37_79B9_7F4A_7C15
    for _ in 0..<20_000 {
      x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let lat = Double(Int64(x >> 40) % 180_000_000) / 1e6 - 90
      let lon = Double(Int64((x >> 8) & 0xFFFF_FFFF) % 3_600_000_000) / 1e7 - 180
      let line = "\(lat),\(lon)"
      let got = try #require(scan(line), "\(line)")
      #expect(got.0 == Double(String(line.split(separator: ",")[0]))!, "\(line)")
      #expect(got.1 == Double(String(line.split(separator: ",")[1]))!, "\(line)")
    }
  }

  @Test(arguments: [
    "", "59.9", "59.9,", ",10", "59.9;10.7", "1e3,2", "nan,0", "inf,0", "59.9 10.7 3", "59..9,1", "-,1",
    "59.9,,10.7", "0x10,1",
  ])
  func rejectsOtherShapes(_ line: String) {
    #expect(scan(line) == nil, "\(line)")
  }

  @Test func coordinatesOutOfRangeAreNil() {
    let bytes = Array("91,0".utf8)
    let c = bytes.withUnsafeBufferPointer { CoordinateScanner.coordinate($0.baseAddress!, 0, bytes.count) }
    #expect(c == nil)
  }
}
