import LocCore
import Testing

@Suite struct NMEADecoderTests {
  @Test func everyFixtureGivesTheSameFixesAtEveryChunkSize() {
    #expect(NMEAFixtures.logs.count == 25)
    for log in NMEAFixtures.logs {
      let bytes = NMEAFixtures.bytes(log)
      let whole = NMEAFixtures.decode(bytes)
      #expect(!whole.fixes.isEmpty, "\(log)")
      for size in 1...64 {
        let chunked = NMEAFixtures.decode(bytes, chunkSize: size)
        #expect(chunked.fixes == whole.fixes, "\(log) at chunk size \(size)")
        #expect(chunked.counters == whole.counters, "\(log) at chunk size \(size)")
      }
    }
  }

  @Test func wrongChecksumsDropOnlyTheirSentences() {
    let bytes = NMEAFixtures.bytes("bu353s4.log")
    let good = NMEAFixtures.decode(bytes)
    // Spoil the checksum of every GGA: the RMC still gives each epoch its position and date.
    var spoilt = bytes
    var i = 0
    var spoiltCount = 0
    while i + 6 < spoilt.count {
      if spoilt[i] == 0x24, Array(spoilt[(i + 3)..<(i + 6)]) == Array("GGA".utf8) {
        var j = i
        while spoilt[j] != 0x2A { j += 1 }
        spoilt[j + 2] = spoilt[j + 2] == 0x30 ? 0x31 : 0x30
        spoiltCount += 1
      }
      i += 1
    }
    let r = NMEAFixtures.decode(spoilt)
    #expect(r.counters.badChecksums == spoiltCount)
    #expect(r.counters.sentences == good.counters.sentences - spoiltCount)
    #expect(r.counters.errors == 0)
    #expect(spoiltCount > 20)
    #expect(r.fixes.count == good.fixes.count)
    #expect(r.fixes.map(\.coordinate) == good.fixes.map(\.coordinate))
    #expect(r.fixes.allSatisfy { $0.altitudeMSL == nil })  // the altitude came only from GGA
  }

  @Test func truncatedSentencesAreCountedNotFatal() {
    // Every line of a log cut at a different place, each cut line followed by a good line.
    let lines = String(decoding: NMEAFixtures.bytes("quectel-l76k-nmea.log"), as: UTF8.self)
      .split(whereSeparator: \.isNewline).filter { $0.hasPrefix("$") }.prefix(200)
    var text = ""
    var goodText = ""
    for (k, line) in lines.enumerated() {
      text += line.prefix(1 + k % max(1, line.count - 1)) + "\r\n" + line + "\r\n"
      goodText += line + "\r\n"
    }
    let r = NMEAFixtures.decode(Array(text.utf8))
    let good = NMEAFixtures.decode(Array(goodText.utf8))
    func dropped(_ c: NMEACounters) -> Int { c.badChecksums + c.errors + c.skipped }
    #expect(dropped(r.counters) - dropped(good.counters) == lines.count)
    #expect(r.counters.sentences == good.counters.sentences)
    #expect(r.fixes == good.fixes)
    #expect(r.fixes.count > 10)
  }

  @Test func tenMebibytesOfRandomBytes() {
    var generator = SplitMix64(seed: 2026)
    var decoder = NMEADecoder(gpsdJSON: true)
    var fixes = 0
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    for _ in 0..<160 {
      for i in chunk.indices { chunk[i] = UInt8(truncatingIfNeeded: generator.next()) }
      chunk.withUnsafeBytes { decoder.feed($0) { _ in fixes += 1 } }
    }
    decoder.finish { _ in fixes += 1 }
    let c = decoder.counters
    #expect(c.junkBytes > 1_000_000)
    #expect(c.lines + c.truncatedLines + c.overlongLines > 0)
    #expect(fixes == 0)
  }

  @Test func aMebibyteLineWithoutNewline() {
    var bytes = Array(nmea(EpochAssemblerTests.rmc("120000")).utf8) + [13, 10]
    bytes += Array("$GPGGA,".utf8) + [UInt8](repeating: 0x31, count: 1 << 20)
    bytes += Array(("\r\n" + nmea(EpochAssemblerTests.rmc("120001")) + "\r\n").utf8)
    let r = NMEAFixtures.decode(bytes, chunkSize: 4096)
    #expect(r.counters.overlongLines == 1)
    #expect(r.fixes.count == 2)
  }

  @Test func gpsdJSONLinesBecomeFixes() {
    let text = """
      {"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}
      {"class":"SKY","device":"/dev/ttyUSB0","hdop":1.1,"nSat":12,"uSat":8}
      {"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"2014-12-31T03:07:20.000Z","lat":-37.784791667,\
      "lon":175.314896667,"altMSL":59.8,"speed":0.592,"track":181.39,"eph":20.9}
      {"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"2014-12-31T03:07:20.000Z","lat":-37.784791667,\
      "lon":175.314896667,"altMSL":59.8,"speed":0.592,"track":181.39,"eph":20.9}
      {"class":"TPV","mode":1}
      {not json}

      """
    var decoder = NMEADecoder(gpsdJSON: true)
    var fixes: [Fix] = []
    Array(text.utf8).withUnsafeBytes { decoder.feed($0) { fixes.append($0) } }
    decoder.finish { fixes.append($0) }
    #expect(fixes.count == 1)  // the repeated TPV and the one without time give nothing
    #expect(fixes.first?.satellitesUsed == 8)
    // gpsd's eph is a 95 % radius; the fix holds the 68 % one: × √(−2 ln 0.32) / √(−2 ln 0.05).
    #expect(close(fixes.first?.horizontalAccuracy?.value, 20.9 * 1.5095922 / 2.4477468, 1e-6))
    #expect(decoder.counters.gpsdReports == 5)
    #expect(decoder.counters.errors == 1)
  }
}
