import Testing

@testable import LocCore

/// NMEA sentences locd writes (the gpsd face's `nmea` watch): their checksums, and that locd's
/// own decoder reads them back into the fix they were made from.
@Suite struct NMEAWriterTests {
  static let fix = Fix(
    time: Instant(iso8601: "2026-06-21T12:34:56.250Z")!,
    coordinate: Coordinate(latitude: -37.784788333, longitude: 175.314896667),
    mode: .threeD, quality: .gps, altitudeMSL: Meters(59.9), geoidSeparation: Meters(23.7),
    speed: MetersPerSecond(0.355),
    course: Degrees(181.39), satellitesUsed: 8, pdop: 1.8, hdop: 1.1, vdop: 1.5)

  @Test func checksumsAreTheXorOfTheBody() {
    // NMEA 0183: XOR of every byte between `$` and `*`, two upper-case hex digits. For
    // "GPGLL,,": 47 ^ 50 ^ 47 ^ 4C ^ 4C = 50, and the two commas (2C) cancel: 50.
    #expect(NMEAWriter.sentence("GPGLL", ["", ""]) == "$GPGLL,,*50\r\n")
    for s in NMEAWriter.cycle(Self.fix, sky: nil) {
      let body = s.dropFirst().prefix { $0 != "*" }
      var x: UInt8 = 0
      for b in body.utf8 { x ^= b }
      #expect(s.hasSuffix(NMEAWriter.hex(x) + "\r\n"), "\(s)")
    }
  }

  @Test func locdsDecoderReadsTheFixBack() throws {
    let sky = Sky(
      satellites: (1...9).map {
        Satellite(
          constellation: .gps, svid: $0, prn: $0, elevation: 30, azimuth: 100, signal: 35, used: $0 <= 8)
      })
    var decoder = NMEADecoder(referenceTime: Self.fix.time)
    var fixes: [Fix] = []
    // A second cycle one second later ends the first epoch.
    var next = Self.fix
    next.time = Self.fix.time.adding(seconds: 1)
    let text = NMEAWriter.cycle(Self.fix, sky: sky).joined() + NMEAWriter.cycle(next, sky: sky).joined()
    Array(text.utf8).withUnsafeBytes { decoder.feed($0) { fixes.append($0) } }
    decoder.finish { fixes.append($0) }
    let f = try #require(fixes.first)
    #expect(f.time == Self.fix.time)
    #expect(abs(f.coordinate!.latitude.value - Self.fix.coordinate!.latitude.value) < 1e-8)
    #expect(abs(f.coordinate!.longitude.value - Self.fix.coordinate!.longitude.value) < 1e-8)
    #expect(f.mode == .threeD && f.altitudeMSL == Meters(59.9) && f.geoidSeparation == Meters(23.7))
    #expect(abs(f.speed!.value - 0.355) < 0.001 && f.course == Degrees(181.39))
    #expect(f.hdop == 1.1 && f.vdop == 1.5 && f.pdop == 1.8 && f.satellitesUsed == 8, "\(f)")
  }
}
