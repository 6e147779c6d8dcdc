/// Decodes a btsnoop capture, fed in chunks, into beacon advertisements: btsnoop records ▸
/// HCI events ▸ advertising reports ▸ AD structures ▸ iBeacon / AltBeacon frames.
public struct BeaconCaptureDecoder: Sendable {
  /// Everything counted, from records to beacons. Counters only grow.
  public struct Counters: Hashable, Sendable, CustomStringConvertible {
    /// The btsnoop reader's counters.
    public var capture = BTSnoopReader.Counters()
    /// The HCI parser's counters.
    public var hci = HCIAdvertisingParser.Counters()
    /// Advertising reports whose AD structures were walked.
    public var reports = 0
    /// iBeacon frames decoded.
    public var iBeacons = 0
    /// AltBeacon frames decoded.
    public var altBeacons = 0
    /// Reports with no beacon frame (other advertisers): skipped.
    public var otherAdvertisements = 0
    /// Frames that start like a beacon but have the wrong length.
    public var malformedBeacons = 0
    /// Reports whose AD structures ran past the data (what came before was used).
    public var malformedAdvertisingData = 0
    /// Beacon frames whose advertised power is outside the plausible range (distance unknown).
    public var implausiblePower = 0

    /// All zero.
    public init() {}

    /// One line: `records 20595, reports 9265, ibeacon 21, altbeacon 0, other 9244, ...`; the
    /// first six always, the others when not zero.
    public var description: String {
      var parts = [
        "records \(capture.records)", "reports \(reports)", "ibeacon \(iBeacons)", "altbeacon \(altBeacons)",
        "other \(otherAdvertisements)", "implausible power \(implausiblePower)",
      ]
      let optional: [(String, Int)] = [
        ("malformed beacons", malformedBeacons), ("malformed ad data", malformedAdvertisingData),
        ("malformed hci", hci.malformed), ("reserved event types", hci.reservedEventTypes),
        ("truncated data", hci.truncatedData), ("dropped fragments", hci.droppedFragments),
        ("oversized records", capture.oversizedRecords), ("clipped records", capture.clippedRecords),
        ("inconsistent lengths", capture.inconsistentLengths), ("bad timestamps", capture.badTimestamps),
        ("empty records", capture.emptyRecords), ("truncated records", capture.truncatedRecords),
        ("ignored bytes", capture.ignoredBytes), ("capturer drops", capture.capturerDrops),
      ]
      for (name, value) in optional where value != 0 { parts.append("\(name) \(value)") }
      return parts.joined(separator: ", ")
    }
  }

  private var reader: BTSnoopReader
  private var parser = HCIAdvertisingParser()
  private var beaconCounts = Counters()

  /// A decoder at the start of a capture.
  public init(maxRecordLength: Int = BTSnoopReader.defaultMaxRecordLength) {
    reader = BTSnoopReader(maxRecordLength: maxRecordLength)
  }

  /// Counters of every layer.
  public var counters: Counters {
    var c = beaconCounts
    c.capture = reader.counters
    c.hci = parser.counters
    return c
  }

  /// Why the capture could not be read to its end, if so.
  public var failure: BTSnoopReader.Failure? { reader.failure }

  /// Feeds capture bytes; calls `body` for each beacon advertisement, in capture order.
  public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ body: (BeaconAdvertisement) -> Void) {
    // Moved out of `self` for the closure (the reader is being mutated); no copy is made.
    var parser = HCIAdvertisingParser()
    swap(&parser, &self.parser)
    var counts = self.beaconCounts
    reader.feed(bytes) { record, packet in
      guard record.packetType == .event else { return }
      parser.parse(event: packet) { report, data in
        Self.beacons(in: data, report: report, time: record.time, counts: &counts, body)
      }
    }
    self.parser = parser
    self.beaconCounts = counts
  }

  /// Ends the capture (counts a record cut off at the end).
  public mutating func finish() { reader.finish() }

  /// Finds the beacon frames in one report's data.
  public static func beacons(
    in data: UnsafeRawBufferPointer, report: AdvertisingReport, time: Instant, counts: inout Counters,
    _ body: (BeaconAdvertisement) -> Void
  ) {
    counts.reports += 1
    var found = false
    let ending = AdvertisingData.walk(data) { type, value in
      guard type == AdvertisingData.manufacturerSpecificData else { return true }
      switch BeaconPayload.parse(manufacturerData: value) {
      case .beacon(let payload):
        found = true
        if payload.format == .iBeacon { counts.iBeacons += 1 } else { counts.altBeacons += 1 }
        if payload.calibratedPower == nil { counts.implausiblePower += 1 }
        body(
          BeaconAdvertisement(
            time: time, address: report.address, addressType: report.addressType, eventType: report.eventType,
            payload: payload, rssi: report.rssi))
      case .malformed:
        counts.malformedBeacons += 1
      case .other:
        break
      }
      return true
    }
    if ending == .overrun { counts.malformedAdvertisingData += 1 }
    if !found { counts.otherAdvertisements += 1 }
  }
}
