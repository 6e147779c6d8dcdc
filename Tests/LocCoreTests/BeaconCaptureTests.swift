import LocCore
import Testing

/// The three real captures decode to exactly what the independent decoder wrote in their CSVs.
@Suite struct BeaconCaptureTests {
  @Test(arguments: BeaconFixtures.captures)
  func everyIBeaconMatchesTheReference(capture: String) throws {
    let expected = try BeaconFixtures.rows(capture)
    let decoded = BeaconFixtures.decode(try BeaconFixtures.bytes(capture))
    #expect(decoded.failure == nil)
    let iBeacons = decoded.advertisements.filter { $0.payload.format == .iBeacon }
    let rows = iBeacons.map(BeaconFixtures.row)
    #expect(rows.count == expected.count)
    for (got, want) in zip(rows, expected) where got != want {
      Issue.record("decoded \(got), reference \(want)")
    }
    #expect(decoded.counters.iBeacons == expected.count)
    #expect(decoded.counters.capture.truncatedRecords == 0)
    #expect(decoded.counters.hci.malformed == 0)
  }

  @Test func chunkingDoesNotChangeTheResult() throws {
    let bytes = try BeaconFixtures.bytes("btsnoop_hci")
    let whole = BeaconFixtures.decode(bytes)
    // 1 byte, around the 16-byte header and 24-byte record headers, odd, large.
    for size in [1, 15, 16, 17, 23, 24, 25, 97, 4096] {
      let pieces = BeaconFixtures.decode(bytes, chunkSize: size)
      #expect(pieces.advertisements == whole.advertisements, "chunk size \(size)")
      #expect(pieces.counters == whole.counters, "chunk size \(size)")
    }
  }

  @Test func scanResponseOnlyBeaconsAreDecoded() throws {
    // Addresses whose iBeacon the reference saw only in scan responses (adv_type 4).
    let rows = try BeaconFixtures.rows("20240127-h5100-btsnoop_hci")
    let responders = Set(rows.filter { $0.advType == 4 }.map(\.address))
      .subtracting(rows.filter { $0.advType != 4 }.map(\.address))
    try #require(!responders.isEmpty)
    let decoded = BeaconFixtures.decode(try BeaconFixtures.bytes("20240127-h5100-btsnoop_hci"))
    for address in responders {
      let mine = decoded.advertisements.filter { $0.address.description == address }
      #expect(mine.count == rows.filter { $0.address == address }.count, "\(address)")
      #expect(mine.allSatisfy { $0.eventType == .scanResponse }, "\(address)")
    }
  }

  @Test func positiveMeasuredPowerIsKeptButNotTrusted() throws {
    // The reference lists +12 dBm (20240127) and +3 dBm (20230209): impossible at 1 m.
    for capture in ["20240127-h5100-btsnoop_hci", "20230209-h5075-and-h5074-btsnoop_hci"] {
      let positive = try BeaconFixtures.rows(capture).filter { $0.measuredPower > 0 }
      try #require(!positive.isEmpty)
      let decoded = BeaconFixtures.decode(try BeaconFixtures.bytes(capture))
      let mine = decoded.advertisements.filter { $0.payload.advertisedPower > 0 }
      #expect(mine.map(BeaconFixtures.row) == positive)
      #expect(mine.allSatisfy { $0.payload.calibratedPower == nil })
      #expect(decoded.counters.implausiblePower == positive.count)
    }
  }

  @Test func othersAreSkippedAndCounted() throws {
    let decoded = BeaconFixtures.decode(try BeaconFixtures.bytes("20230209-h5075-and-h5074-btsnoop_hci"))
    let c = decoded.counters
    // Every advertising report is either a beacon or counted as other.
    #expect(c.reports == c.hci.legacyReports + c.hci.extendedReports)
    #expect(c.otherAdvertisements == c.reports - c.iBeacons - c.altBeacons)
    #expect(c.otherAdvertisements > 9000)
    #expect(c.description.hasPrefix("records 20595, reports 9265, ibeacon 21, altbeacon 0, other 9244"))
  }
}
