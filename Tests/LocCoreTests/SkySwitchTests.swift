import Testing

@testable import LocCore

/// The run-time switch of sky assembly (decision 0069): the daemon assembles skies only while
/// someone reads satellites, and turns it on and off while a receiver streams. The fixes
/// must not notice: their satellite counts and DOPs come from GGA's and GSA's counts and
/// GSV's "in view" header (and gpsd's SKY counts), which are read whether or not the
/// satellites' ids and blocks are.
@Suite struct SkySwitchTests {
  /// Decodes `bytes` line by line, with `skiesOn(lineIndex)` saying whether skies are
  /// assembled before that line; returns the fixes, and for each line whether a new sky came
  /// and whether skies were on for it.
  static func decode(_ bytes: [UInt8], gpsdJSON: Bool = false, skiesOn: (Int) -> Bool)
    -> (fixes: [Fix], newSkyWhileOff: Int, newSkyWhileOn: Int, skyWhileOff: Bool)
  {
    var decoder = NMEADecoder(gpsdJSON: gpsdJSON)
    var fixes: [Fix] = []
    var offNew = 0
    var onNew = 0
    var skyWhileOff = false
    var start = 0
    var index = 0
    while start < bytes.count {
      let end = bytes[start...].firstIndex(of: 10).map { $0 + 1 } ?? bytes.count
      let on = skiesOn(index)
      decoder.assemblesSkies = on
      let before = decoder.skyCount
      bytes[start..<end].withUnsafeBytes { line in decoder.feed(line) { fixes.append($0) } }
      if decoder.skyCount != before { if on { onNew += 1 } else { offNew += 1 } }
      if !on, decoder.sky != nil { skyWhileOff = true }
      start = end
      index += 1
    }
    decoder.finish { fixes.append($0) }
    return (fixes, offNew, onNew, skyWhileOff)
  }

  /// A gpsd JSON stream: SKY with its counts and satellites, then a TPV (gpsd's fields).
  static let gpsdJSON: [UInt8] = Array(
    (0..<6).map { i in
      "{\"class\":\"SKY\",\"device\":\"/dev/ttyUSB0\",\"hdop\":0.9,\"pdop\":1.6,\"nSat\":3,\"uSat\":2,"
        + "\"satellites\":[{\"PRN\":7,\"el\":12.0,\"az\":45.0,\"ss\":30.0,\"used\":true},"
        + "{\"PRN\":9,\"el\":40.0,\"az\":145.0,\"ss\":33.0,\"used\":true},"
        + "{\"PRN\":11,\"el\":60.0,\"az\":245.0,\"ss\":20.0,\"used\":false}]}\n"
        + "{\"class\":\"TPV\",\"device\":\"/dev/ttyUSB0\",\"mode\":3,\"time\":\"2026-06-01T10:00:0\(i).000Z\","
        + "\"lat\":59.9,\"lon\":10.7,\"altMSL\":20.5,\"eph\":5.0}\n"
    }.joined().utf8)

  /// Every fixture log, decoded with skies on throughout, off throughout, and switched every
  /// few lines: the same fixes each time (the counts, DOPs and everything else).
  @Test(arguments: NMEAFixtures.logs)
  func fixesAreTheSameWithAndWithoutSkies(_ log: String) {
    let bytes = NMEAFixtures.bytes(log)
    let on = Self.decode(bytes) { _ in true }
    let off = Self.decode(bytes) { _ in false }
    let switched = Self.decode(bytes) { ($0 / 7) % 2 == 0 }
    #expect(on.fixes == off.fixes, "\(log): skies off changed the fixes")
    #expect(on.fixes == switched.fixes, "\(log): switching skies changed the fixes")
    // Off, no sky is made and none is kept.
    #expect(off.newSkyWhileOn == 0 && off.newSkyWhileOff == 0 && !off.skyWhileOff)
    #expect(switched.newSkyWhileOff == 0 && !switched.skyWhileOff)
  }

  @Test func gpsdJSONFixesAreTheSameWithAndWithoutSkies() {
    let on = Self.decode(Self.gpsdJSON, gpsdJSON: true) { _ in true }
    let off = Self.decode(Self.gpsdJSON, gpsdJSON: true) { _ in false }
    let switched = Self.decode(Self.gpsdJSON, gpsdJSON: true) { $0 % 4 < 2 }
    #expect(on.fixes.count == 6)
    #expect(on.fixes == off.fixes && on.fixes == switched.fixes)
    // The SKY's counts reach the fix either way: 2 used of 3 in view, HDOP 0.9.
    #expect(off.fixes.first?.satellitesUsed == 2 && off.fixes.first?.satellitesInView == 3)
    #expect(off.fixes.first?.hdop == 0.9)
    // Skies only while on: one per SKY line read with skies on (SKY lines are the even ones;
    // switched, lines 0, 1, 4, 5, 8 and 9 are read with skies on: SKYs 0, 4 and 8).
    #expect(on.newSkyWhileOn == 6 && off.newSkyWhileOn == 0 && off.newSkyWhileOff == 0)
    #expect(switched.newSkyWhileOn == 3 && switched.newSkyWhileOff == 0 && !switched.skyWhileOff)
  }

  /// On, off, on in the middle of a receiver's stream: skies come while on (after the first
  /// whole cycle), none while off, and the sky after turning on again is a whole one, equal
  /// to the sky the same cycle gives a decoder that never stopped.
  @Test func skiesStopAndStartAgainMidStream() throws {
    let bytes = NMEAFixtures.bytes("bu353s4.log")
    let lines = bytes.split(separator: 10, omittingEmptySubsequences: false).count
    let third = lines / 3
    let on = { (i: Int) in i < third || i >= 2 * third }
    let switched = Self.decode(bytes, skiesOn: on)
    #expect(switched.newSkyWhileOn > 0 && switched.newSkyWhileOff == 0 && !switched.skyWhileOff)

    // Sky by sky, against a decoder that always assembles: every sky the switched decoder
    // makes in the last third is one the other made at the same line.
    var always = NMEADecoder()
    var switchedDecoder = NMEADecoder()
    var start = 0
    var index = 0
    var compared = 0
    while start < bytes.count {
      let end = bytes[start...].firstIndex(of: 10).map { $0 + 1 } ?? bytes.count
      switchedDecoder.assemblesSkies = on(index)
      let a = always.skyCount
      let b = switchedDecoder.skyCount
      bytes[start..<end].withUnsafeBytes { line in
        always.feed(line) { _ in }
        switchedDecoder.feed(line) { _ in }
      }
      if switchedDecoder.skyCount != b {
        #expect(always.skyCount != a && switchedDecoder.sky == always.sky, "line \(index)")
        if index >= 2 * third { compared += 1 }
      }
      start = end
      index += 1
    }
    #expect(compared > 0)
  }

  /// Turned on inside a cycle whose GSA went by, the assembler waits for the next cycle: its
  /// first sky shows the used satellites (a sky of the cut cycle would show none used).
  @Test func turnedOnInsideACycleTheSkyStartsWithTheNext() {
    var a = EpochAssembler(skies: false)
    func add(_ s: String) {
      guard case .sentence(let sentence) = parse(nmea(s)) else {
        Issue.record("not parsed: \(s)")
        return
      }
      a.add(sentence, arrivedAt: nil) { _, _ in }
    }
    add("GPGGA,100000.00,5954.000,N,01042.000,E,1,02,0.9,20.5,M,,M,,")
    add("GPGSA,A,3,17,28,,,,,,,,,,,1.6,0.9,1.2")
    a.assemblesSkies = true
    add("GPGSV,1,1,02,17,72,207,32,28,40,100,25")
    add("GPGGA,100001.00,5954.000,N,01042.000,E,1,02,0.9,20.5,M,,M,,")
    #expect(a.skyCount == 0)
    add("GPGSA,A,3,17,28,,,,,,,,,,,1.6,0.9,1.2")
    add("GPGSV,1,1,02,17,72,207,32,28,40,100,25")
    add("GPGGA,100002.00,5954.000,N,01042.000,E,1,02,0.9,20.5,M,,M,,")
    #expect(a.skyCount == 1)
    #expect(a.sky?.satellites.map(\.used) == [true, true])
  }
}
