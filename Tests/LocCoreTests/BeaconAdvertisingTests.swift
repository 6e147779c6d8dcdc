import LocCore
import Testing

/// Advertising reports, AD structures and beacon frames, on packets built from the specs.
@Suite struct BeaconAdvertisingTests {
  typealias B = BeaconBytes

  static let govee = "494e5445-4c4c-495f-524f-434b535f4857"

  /// Parses one event; returns the reports with their data, and the parser.
  static func parse(_ events: [[UInt8]], into parser: inout HCIAdvertisingParser) -> [(
    AdvertisingReport, [UInt8]
  )] {
    var out: [(AdvertisingReport, [UInt8])] = []
    for event in events {
      event.withUnsafeBytes { parser.parse(event: $0) { out.append(($0, Array($1))) } }
    }
    return out
  }

  static func parse(_ events: [[UInt8]]) -> (
    reports: [(AdvertisingReport, [UInt8])], counters: HCIAdvertisingParser.Counters
  ) {
    var parser = HCIAdvertisingParser()
    let reports = parse(events, into: &parser)
    return (reports, parser.counters)
  }

  @Test func theCapturesFirstIBeaconDecodesAsTheReferenceSays() throws {
    // The first iBeacon of btsnoop_hci.btsnoop, as bytes in the file; the reference CSV says:
    // 2020-09-19T20:57:10.692548Z, a4:c1:38:ec:0b:03, adv_type 4, 494e5445-…, 20597, 62207,
    // measured power -62, RSSI -66.
    let event: [UInt8] = [
      0x3E, 0x27, 0x02, 0x01, 0x04, 0x00, 0x03, 0x0B, 0xEC, 0x38, 0xC1, 0xA4, 0x1B, 0x1A, 0xFF, 0x4C, 0x00,
      0x02, 0x15, 0x49, 0x4E, 0x54, 0x45, 0x4C, 0x4C, 0x49, 0x5F, 0x52, 0x4F, 0x43, 0x4B, 0x53, 0x5F, 0x48,
      0x57, 0x50, 0x75, 0xF2, 0xFF, 0xC2, 0xBE,
    ]
    let r = Self.parse([event])
    let (report, data) = try #require(r.reports.first)
    #expect(report.eventType == .scanResponse)
    #expect(report.eventType.legacyCode == 4)
    #expect(report.address.description == "a4:c1:38:ec:0b:03")
    #expect(report.addressType == .public)
    #expect(report.rssi == DecibelMilliwatts(-66))
    var counts = BeaconCaptureDecoder.Counters()
    var found: [BeaconAdvertisement] = []
    data.withUnsafeBytes {
      BeaconCaptureDecoder.beacons(
        in: $0, report: report, time: Instant(microsecondsSinceEpoch: 0), counts: &counts
      ) {
        found.append($0)
      }
    }
    let beacon = try #require(found.first)
    #expect(beacon.payload.format == .iBeacon)
    #expect(beacon.payload.identity.description == "\(Self.govee):20597:62207")
    #expect(beacon.payload.advertisedPower == -62)
    #expect(beacon.payload.calibratedPower == DecibelMilliwatts(-62))
  }

  @Test func severalLegacyReportsInOneEvent() throws {
    let beacon = B.iBeacon(uuid: B.uuid(Self.govee), major: 1, minor: 2, power: -59)
    let event = B.legacyEvent([
      B.legacyReport(
        type: 3, addressType: 1, address: "c2:35:33:30:25:50", data: B.flags + beacon, rssi: -70),
      B.legacyReport(type: 0, address: "00:11:22:33:44:55", data: [], rssi: 127),
    ])
    let r = Self.parse([event])
    try #require(r.reports.count == 2)
    #expect(r.reports[0].0.eventType == .advNonconnInd)
    #expect(r.reports[0].0.addressType == .random)
    #expect(r.reports[0].0.address.description == "c2:35:33:30:25:50")
    #expect(r.reports[0].0.rssi == DecibelMilliwatts(-70))
    #expect(r.reports[0].1 == B.flags + beacon)
    #expect(r.reports[1].0.eventType == .advInd)
    // 127: RSSI not available.
    #expect(r.reports[1].0.rssi == nil)
    #expect(r.counters.legacyReports == 2)
  }

  @Test func aReportPastTheEndOfItsEventEndsTheEvent() throws {
    let one = B.legacyReport(type: 0, address: "00:11:22:33:44:55", data: [1, 2, 3], rssi: -40)
    // Says two reports, holds one and a half.
    var event = B.legacyEvent([one, one])
    event.removeLast(5)
    event[1] = UInt8(event.count - 2)
    let r = Self.parse([event])
    #expect(r.reports.count == 1)
    #expect(r.counters.malformed == 1)
    // A parameter length beyond the packet, a data length over 31, no reports, other events.
    var long = B.legacyEvent([one])
    long[1] += 1
    let over = B.legacyEvent([
      B.legacyReport(type: 0, address: "00:11:22:33:44:55", data: Array(repeating: 0, count: 32), rssi: 0)
    ])
    let r2 = Self.parse([
      long, over, [0x3E, 0x02, 0x02, 0x00], [0x0E, 0x01, 0x00], [0x3E], [0x3E, 0x03, 0x01, 0x00, 0x00],
    ])
    #expect(r2.reports.isEmpty)
    #expect(r2.counters.malformed == 4)
    #expect(r2.counters.otherEvents == 2)
  }

  @Test func reservedLegacyEventTypesAreSkipped() throws {
    let event = B.legacyEvent([
      B.legacyReport(type: 7, address: "00:11:22:33:44:55", data: [], rssi: -40),
      B.legacyReport(type: 2, address: "00:11:22:33:44:56", data: [], rssi: -41),
    ])
    let r = Self.parse([event])
    #expect(r.reports.map(\.0.eventType) == [.advScanInd])
    #expect(r.counters.reservedEventTypes == 1)
  }

  @Test func extendedReportsMapLegacyPDUsAndReadRSSI() throws {
    // Event type 0x1B: legacy SCAN_RSP to an ADV_IND; 0x10: ADV_NONCONN_IND; 0x0001:
    // extended, connectable. RSSI 127: not available. SID 0xFF: none.
    let event = B.extendedEvent([
      B.extendedReport(eventType: 0x1B, address: "e3:60:59:21:80:65", sid: 0xFF, rssi: -53, data: [1, 2]),
      B.extendedReport(eventType: 0x10, address: "e3:60:59:21:80:66", sid: 3, rssi: 127, data: []),
      B.extendedReport(eventType: 0x01, address: "e3:60:59:21:80:67", rssi: -90, data: [9]),
    ])
    let r = Self.parse([event])
    try #require(r.reports.count == 3)
    #expect(r.reports.map(\.0.eventType) == [.scanResponse, .advNonconnInd, .extended(properties: 1)])
    #expect(r.reports.map(\.0.rssi) == [DecibelMilliwatts(-53), nil, DecibelMilliwatts(-90)])
    #expect(r.reports.map(\.0.advertisingSID) == [nil, 3, 0])
    #expect(r.reports[0].0.address.description == "e3:60:59:21:80:65")
    #expect(r.reports[0].0.addressType == .random)
    #expect(r.reports.map(\.1) == [[1, 2], [], [9]])
    #expect(r.counters.extendedReports == 3)
  }

  @Test func fragmentedExtendedDataIsJoined() throws {
    // Data status in bits 5-6: 01 more to come, 00 complete, 10 truncated.
    let beacon = B.flags + B.iBeacon(uuid: B.uuid(Self.govee), major: 7, minor: 8, power: -60)
    let first = B.extendedReport(
      eventType: 0x20, address: "11:22:33:44:55:66", sid: 1, rssi: -50, data: Array(beacon[0..<10]))
    let other = B.extendedReport(eventType: 0x00, address: "aa:bb:cc:dd:ee:ff", rssi: -60, data: [4, 5])
    let last = B.extendedReport(
      eventType: 0x00, address: "11:22:33:44:55:66", sid: 1, rssi: -51, data: Array(beacon[10...]))
    let r = Self.parse([B.extendedEvent([first]), B.extendedEvent([other]), B.extendedEvent([last])])
    try #require(r.reports.count == 2)
    #expect(r.reports[0].1 == [4, 5])
    #expect(r.reports[1].1 == beacon)
    #expect(r.reports[1].0.rssi == DecibelMilliwatts(-51))
    #expect(r.counters.extendedReports == 2)
    // Truncated by the controller: handed out as far as it goes, and said so.
    let cut = B.extendedReport(
      eventType: 0x40, address: "11:22:33:44:55:66", sid: 1, rssi: -50, data: Array(beacon[0..<10]))
    let t = Self.parse([B.extendedEvent([first]), B.extendedEvent([cut])])
    #expect(t.reports.map(\.1) == [Array(beacon[0..<10]) + Array(beacon[0..<10])])
    #expect(t.reports.first?.0.truncated == true)
    #expect(t.counters.truncatedData == 1)
  }

  @Test func fragmentsAreBounded() throws {
    // More than 1650 bytes for one advertisement: dropped whole.
    let chunk = [UInt8](repeating: 0x42, count: 200)
    var events = (0..<9).map { _ in
      B.extendedEvent([
        B.extendedReport(eventType: 0x20, address: "11:22:33:44:55:66", rssi: -50, data: chunk)
      ])
    }
    events.append(
      B.extendedEvent([
        B.extendedReport(eventType: 0x00, address: "11:22:33:44:55:66", rssi: -50, data: chunk)
      ]))
    let r = Self.parse(events)
    #expect(r.reports.isEmpty)
    #expect(r.counters.droppedFragments >= 1)
    // Five advertisers with fragments pending: the first one's are dropped to make room.
    let starts = (0..<5).map { i in
      B.extendedEvent([
        B.extendedReport(eventType: 0x20, address: "11:22:33:44:55:6\(i)", rssi: -50, data: [UInt8(i)])
      ])
    }
    let ends = (0..<5).map { i in
      B.extendedEvent([
        B.extendedReport(eventType: 0x00, address: "11:22:33:44:55:6\(i)", rssi: -50, data: [0xEE])
      ])
    }
    let s = Self.parse(starts + ends)
    #expect(s.reports.map(\.1) == [[0xEE], [1, 0xEE], [2, 0xEE], [3, 0xEE], [4, 0xEE]])
    #expect(s.counters.droppedFragments == 1)
  }

  @Test func advertisingDataWalkStopsAtZeroAndAtOverrun() {
    func walk(_ bytes: [UInt8]) -> ([UInt8], AdvertisingData.Ending) {
      var types: [UInt8] = []
      let ending = bytes.withUnsafeBytes {
        AdvertisingData.walk($0) { t, _ in
          types.append(t); return true
        }
      }
      return (types, ending)
    }
    #expect(walk([0x02, 0x01, 0x06, 0x03, 0x03, 0xAA, 0xFE]) == ([0x01, 0x03], .complete))
    // A zero length ends the data early (padding): what follows is not walked.
    #expect(walk([0x02, 0x01, 0x06, 0x00, 0x02, 0x0A, 0x00]) == ([0x01], .complete))
    // A length past the end.
    #expect(walk([0x02, 0x01, 0x06, 0x05, 0xFF, 0x4C]) == ([0x01], .overrun))
    #expect(walk([0x01]) == ([], .overrun))
    // A structure whose value looks like more structures is not walked into.
    #expect(walk([0x05, 0xFF, 0x02, 0x01, 0x06, 0x00]) == ([0xFF], .complete))
    #expect(walk([]) == ([], .complete))
  }

  @Test func altBeaconFollowsItsSpecification() throws {
    // AltBeacon v1.0: length 0x1B, type 0xFF, MFG ID little-endian (0x0118 here), beacon code
    // 0xBEAC, 20-byte id big-endian, reference RSSI signed (0xC5 = -59), MFG reserved.
    let id: [UInt8] = B.uuid("2f234454-cf6d-4a0f-adf2-f4911ba9ffa6") + [0x00, 0x01, 0x00, 0x02]
    let value: [UInt8] = [0x18, 0x01, 0xBE, 0xAC] + id + [0xC5, 0x00]
    let p = try #require(value.withUnsafeBytes { BeaconPayload.parse(manufacturerData: $0) }.beacon)
    #expect(p.format == .altBeacon)
    #expect(p.companyID == 0x0118)
    #expect(p.identity.description == "2f234454-cf6d-4a0f-adf2-f4911ba9ffa6:1:2")
    #expect(p.advertisedPower == -59)
    #expect(p.reserved == 0)
    // One byte short, or an iBeacon header with the wrong length: malformed, not a beacon.
    let short = value.dropLast().withUnsafeBytes { BeaconPayload.parse(manufacturerData: $0) }
    #expect(short == .malformed(.altBeacon))
    let badIBeacon: [UInt8] = [0x4C, 0x00, 0x02, 0x14] + [UInt8](repeating: 0, count: 20)
    #expect(badIBeacon.withUnsafeBytes { BeaconPayload.parse(manufacturerData: $0) } == .malformed(.iBeacon))
    // Apple's other frames (e.g. 0x10 Nearby Info) and other companies are not beacons.
    let nearby: [UInt8] = [0x4C, 0x00, 0x10, 0x05, 0x01, 0x18, 0x44, 0x00, 0x00]
    #expect(nearby.withUnsafeBytes { BeaconPayload.parse(manufacturerData: $0) } == .other)
    #expect([UInt8]([0x4C]).withUnsafeBytes { BeaconPayload.parse(manufacturerData: $0) } == .other)
  }

  @Test func measuredPowerOutsideThePlausibleRangeIsUnknown() {
    func power(_ p: Int8) -> DecibelMilliwatts? {
      BeaconPayload(
        format: .iBeacon, identity: BeaconIdentity(uuid: BeaconUUID(high: 0, low: 0), major: 0, minor: 0),
        companyID: 0x004C, advertisedPower: p
      ).calibratedPower
    }
    #expect(power(-59) == DecibelMilliwatts(-59))
    #expect(power(-20) == DecibelMilliwatts(-20))
    #expect(power(-100) == DecibelMilliwatts(-100))
    #expect(power(-19) == nil)
    #expect(power(-101) == nil)
    #expect(power(12) == nil)
    #expect(power(0) == nil)
    #expect(power(-128) == nil)
  }

  @Test func textFormsReadBackAndRejectJunk() throws {
    let uuid = try #require(BeaconUUID("494E5445-4C4C-495F-524F-434B535F4857"))
    #expect(uuid.description == Self.govee)
    #expect(BeaconUUID("494e54454c4c495f524f434b535f4857") == uuid)
    #expect(BeaconUUID("494e5445-4c4c-495f-524f-434b535f485") == nil)
    #expect(BeaconUUID("494e5445x4c4c-495f-524f-434b535f4857") == nil)
    #expect(BeaconUUID("494e5445-4c4c-495f-524f-434b535f485g") == nil)
    let address = try #require(BluetoothAddress("A4:C1:38:EC:0B:03"))
    #expect(address.description == "a4:c1:38:ec:0b:03")
    #expect(BluetoothAddress("a4-c1-38-ec-0b-03") == address)
    #expect(BluetoothAddress("a4:c1:38:ec:0b") == nil)
    #expect(BluetoothAddress("a4:c1:38:ec:0b:0g") == nil)
  }

  @Test func constraintsReadLikeLocctlWritesThem() throws {
    let all = try #require(BeaconConstraint(Self.govee))
    let site = try #require(BeaconConstraint("\(Self.govee):20597"))
    let one = try #require(BeaconConstraint("\(Self.govee):20597:62207"))
    #expect(all.major == nil && all.minor == nil)
    #expect(site.major == 20597 && site.minor == nil)
    #expect(one.description == "\(Self.govee):20597:62207")
    let beacon = BeaconIdentity(uuid: try #require(BeaconUUID(Self.govee)), major: 20597, minor: 62207)
    let neighbour = BeaconIdentity(uuid: beacon.uuid, major: 20596, minor: 62207)
    #expect(all.matches(beacon) && all.matches(neighbour))
    #expect(site.matches(beacon) && !site.matches(neighbour))
    #expect(one.matches(beacon) && !one.matches(BeaconIdentity(uuid: beacon.uuid, major: 20597, minor: 1)))
    #expect(!all.matches(BeaconIdentity(uuid: BeaconUUID(high: 1, low: 2), major: 20597, minor: 62207)))
    for bad in [
      "", "x", "\(Self.govee):", "\(Self.govee):65536", "\(Self.govee):1:2:3", "\(Self.govee):-1",
      "\(Self.govee)::5",
    ] {
      #expect(BeaconConstraint(bad) == nil, "\(bad)")
    }
    // A minor needs a major, as in Core Location.
    #expect(BeaconConstraint(uuid: beacon.uuid, major: nil, minor: 5) == nil)
  }
}
