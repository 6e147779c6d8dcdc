import LocCore
import Testing

/// The btsnoop reader on hand-made files: the epoch, the datalinks, and every way a file can
/// be short, long or wrong.
@Suite struct BeaconBTSnoopTests {
  typealias B = BeaconBytes

  /// Reads `bytes` in one chunk; returns the records with their packets.
  static func read(_ bytes: [UInt8], chunk: Int = 0) -> (
    records: [(BTSnoopReader.Record, [UInt8])], reader: BTSnoopReader
  ) {
    var reader = BTSnoopReader()
    var out: [(BTSnoopReader.Record, [UInt8])] = []
    bytes.withUnsafeBytes { all in
      let step = chunk > 0 ? chunk : max(all.count, 1)
      var o = 0
      while o < all.count {
        reader.feed(UnsafeRawBufferPointer(rebasing: all[o..<min(o + step, all.count)])) {
          out.append(($0, Array($1)))
        }
        o += step
      }
    }
    reader.finish()
    return (out, reader)
  }

  @Test func timestampsCountFromBlueZsEpoch() throws {
    // BlueZ writes (tv_sec - 946684800) * 1e6 + tv_usec + 0x00E03AB44A676000: that constant
    // is 2000-01-01T00:00:00Z, and one more second is one more second.
    let file =
      B.header() + B.record([0x04, 0x0E, 0x00])
      + B.record([0x04, 0x0E, 0x00], timestamp: B.y2000 + 1_500_001)
    let r = Self.read(file)
    try #require(r.records.count == 2)
    #expect(r.records[0].0.time.iso8601(fractionDigits: 6) == "2000-01-01T00:00:00.000000Z")
    #expect(r.records[1].0.time.iso8601(fractionDigits: 6) == "2000-01-01T00:00:01.500001Z")
    #expect(r.records[0].0.time.microsecondsSinceEpoch == 946_684_800_000_000)
  }

  @Test func h4PacketTypesAreTheFirstByte() throws {
    let file =
      B.header() + B.record([0x01, 0x03, 0x0C, 0x00]) + B.record([0x02, 0xAA]) + B.record([0x04, 0x0E, 0x00])
      + B.record([0x05, 0x01]) + B.record([0x09, 0x01])
    let r = Self.read(file)
    #expect(r.records.map(\.0.packetType) == [.command, .acl, .event, .iso, .other])
    // The type byte is not part of the packet.
    #expect(r.records[2].1 == [0x0E, 0x00])
    #expect(r.reader.datalink == .uart)
  }

  @Test func hciDatalinkTakesTheTypeFromTheFlags() throws {
    // 1001: bit 1 command/event, bit 0 received.
    let file =
      B.header(datalink: 1001) + B.record([0x0E, 0x00], flags: 3) + B.record([0x03, 0x0C, 0x00], flags: 2)
    let r = Self.read(file)
    #expect(r.records.map(\.0.packetType) == [.event, .command])
    #expect(r.records[0].1 == [0x0E, 0x00])
  }

  @Test func monitorDatalinkTakesOpcodeAndIndexFromTheFlags() throws {
    // 2001: flags = index << 16 | opcode; opcode 3 is an event (BlueZ src/shared/btsnoop.h).
    let file = B.header(datalink: 2001) + B.record([0x0E, 0x00], flags: 1 << 16 | 3) + B.record([], flags: 0)
    let r = Self.read(file)
    #expect(r.records.map(\.0.packetType) == [.event, .other])
    #expect(r.records[0].0.controllerIndex == 1)
  }

  @Test func wrongHeadersStopReadingWithAReason() {
    #expect(Self.read(Array("notsnoop".utf8) + B.be32(1) + B.be32(1002)).reader.failure == .notBTSnoop)
    #expect(Self.read(B.header(version: 2)).reader.failure == .unsupportedVersion(2))
    #expect(Self.read(B.header(datalink: 1003)).reader.failure == .unsupportedDatalink(1003))
    #expect(Self.read(Array(B.header().prefix(10))).reader.failure == .shortHeader)
    #expect(Self.read([]).reader.failure == .shortHeader)
    let r = Self.read(B.header(version: 2) + B.record([0x04, 0x0E, 0x00]))
    #expect(r.records.isEmpty)
    #expect(r.reader.counters.ignoredBytes == 27)
  }

  @Test func aRecordCutOffAtTheEndIsCounted() {
    let good = B.header() + B.record([0x04, 0x0E, 0x00])
    let next = B.record([0x04, 0x0E, 0x02, 0x01, 0x02])
    // Cut inside the next record's header, and inside its packet: its length runs past the end.
    for cut in [1, 23, 24, 26] {
      for chunk in [0, 1, 5] {
        let r = Self.read(good + next.prefix(cut), chunk: chunk)
        #expect(r.records.count == 1, "cut \(cut) chunk \(chunk)")
        #expect(r.reader.counters.truncatedRecords == 1, "cut \(cut) chunk \(chunk)")
        #expect(r.reader.failure == nil)
      }
    }
    #expect(Self.read(good).reader.counters.truncatedRecords == 0)
  }

  @Test func anImpossibleLengthStopsReadingWithoutAllocating() throws {
    // 0xFFFFFFF0 bytes is more than any HCI packet: the stream is corrupt and nothing after it
    // can be trusted.
    var bad = B.record([0x04, 0x0E, 0x00])
    bad.replaceSubrange(4..<8, with: B.be32(0xFFFF_FFF0))
    let file = B.header() + B.record([0x04, 0x0E, 0x00]) + bad + B.record([0x04, 0x0E, 0x00])
    for chunk in [0, 1, 7] {
      let r = Self.read(file, chunk: chunk)
      #expect(r.records.count == 1)
      #expect(r.reader.failure == .corruptRecord(offset: 16 + 27))
      #expect(r.reader.counters.ignoredBytes == 3 + 27, "chunk \(chunk)")
    }
  }

  @Test func longRecordsAreSkippedAndReadingGoesOn() throws {
    // An ACL packet of 5000 bytes: more than the reader holds (1490), less than HCI allows.
    let big = [0x02] + [UInt8](repeating: 0xAB, count: 4999)
    let file = B.header() + B.record(big) + B.record([0x04, 0x0E, 0x00])
    for chunk in [0, 1000] {
      let r = Self.read(file, chunk: chunk)
      #expect(r.records.map(\.1) == [[0x0E, 0x00]])
      #expect(r.reader.counters.oversizedRecords == 1)
      #expect(r.reader.counters.records == 2)
    }
  }

  @Test func lengthsThatDisagreeAreCounted() throws {
    let clipped = B.record([0x04, 0x0E, 0x00], original: 10)
    let inflated = B.record([0x04, 0x0E, 0x00], original: 1)
    let r = Self.read(B.header() + clipped + inflated)
    #expect(r.records.map(\.0.clipped) == [true, false])
    #expect(r.reader.counters.clippedRecords == 1)
    #expect(r.reader.counters.inconsistentLengths == 1)
  }

  @Test func emptyRecordsAndAbsurdTimestampsAreSkipped() throws {
    let file =
      B.header() + B.record([]) + B.record([0x04, 0x0E, 0x00], timestamp: UInt64.max)
      + B.record([0x04, 0x0E, 0x00], drops: 7)
    let r = Self.read(file)
    #expect(r.records.count == 1)
    #expect(r.reader.counters.emptyRecords == 1)
    #expect(r.reader.counters.badTimestamps == 1)
    #expect(r.reader.counters.capturerDrops == 7)
  }

  @Test func garbageNeverTraps() {
    // Pseudo-random bytes after a valid header, at several chunk sizes: the first record
    // header read from noise has an impossible length or a record runs past the end; either
    // way reading ends with a reason, never a trap.
    var rng = SplitMix(seed: 1)
    let noise = (0..<20_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    for chunk in [0, 1, 13, 4096] {
      let r = BeaconFixtures.decode(B.header() + noise, chunkSize: chunk)
      #expect(r.failure != nil || r.counters.capture.truncatedRecords == 1, "chunk \(chunk)")
    }
  }

  @Test func randomEventsInValidRecordsNeverTrap() {
    // Well-formed records holding random HCI events, biased to LE Meta advertising reports
    // with random lengths: every record is read, every event is looked at.
    var rng = SplitMix(seed: 2)
    var file = B.header()
    let count = 3000
    for _ in 0..<count {
      let length = Int(rng.next() % 300)
      var packet = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
      if length > 3 && rng.next() % 4 != 0 {
        packet[0] = 0x04
        packet[1] = 0x3E
        packet[3] = rng.next() % 2 == 0 ? 0x02 : 0x0D
      }
      file += B.record(packet)
    }
    for chunk in [0, 1, 64] {
      let r = BeaconFixtures.decode(file, chunkSize: chunk)
      #expect(r.failure == nil)
      #expect(r.counters.capture.records == count, "chunk \(chunk)")
      #expect(r.counters.hci.events > 0)
    }
  }
}

/// A small deterministic generator (SplitMix64, Steele, Lea and Flood, 2014).
struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
