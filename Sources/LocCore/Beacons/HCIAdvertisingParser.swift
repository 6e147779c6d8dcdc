/// Finds advertising reports in HCI event packets: LE Meta events (0x3E) with the LE
/// Advertising Report (subevent 0x02, legacy, up to 25 reports per event) or the LE Extended
/// Advertising Report (0x0D), whose data may come in fragments that are joined here.
///
/// Layouts (Core 5.4, Vol 4, Part E, 7.7.65.2 and 7.7.65.13), reports one after another as
/// controllers send them and Linux reads them:
/// - legacy: event type 1, address type 1, address 6, data length 1 (≤ 31), data, RSSI 1;
/// - extended: event type 2, address type 1, address 6, primary PHY 1, secondary PHY 1,
///   SID 1, TX power 1, RSSI 1, periodic interval 2, direct address type 1, direct address
///   6, data length 1, data. Event type bits 5...6 are the data status: complete, more to
///   come, or truncated.
///
/// A report that runs past its event ends the event (the reports before it count); fragments
/// wait in at most `maxPendingAdvertisers` slots of at most `maxAdvertisingDataLength` bytes.
public struct HCIAdvertisingParser: Sendable {
  /// What the parser has seen. Counters only grow.
  public struct Counters: Hashable, Sendable {
    /// LE Meta events with advertising reports.
    public var events = 0
    /// Legacy reports handed out.
    public var legacyReports = 0
    /// Extended reports handed out (a fragmented one counts once, when complete).
    public var extendedReports = 0
    /// Events or reports that ran past their packet, or had impossible lengths.
    public var malformed = 0
    /// Reports with an event type the spec reserves, skipped.
    public var reservedEventTypes = 0
    /// Extended data the controller truncated (handed out as far as it goes).
    public var truncatedData = 0
    /// Fragmented advertisements dropped: too long, or too many advertisers at once.
    public var droppedFragments = 0
    /// Other HCI events and LE Meta subevents, ignored.
    public var otherEvents = 0

    /// All zero.
    public init() {}
  }

  /// The longest advertising data a host accepts (Core 5.4, Vol 4, Part E, 7.8.54:
  /// Advertising_Data up to 1650 bytes in fragments).
  public static let maxAdvertisingDataLength = 1650
  /// How many advertisers may have fragments pending at once.
  public static let maxPendingAdvertisers = 4

  /// Counters.
  public private(set) var counters = Counters()

  private struct Pending: Sendable {
    var addressType: UInt8
    var address: BluetoothAddress
    var sid: UInt8
    var data: [UInt8]
    /// Over the length bound: the rest of this advertisement is dropped.
    var dropping: Bool
  }

  private var pending: [Pending] = []

  /// A parser with no pending fragments.
  public init() {}

  /// Parses one HCI event packet (event code, parameter length, parameters; no H4 byte) and
  /// calls `body` for each complete advertising report with its data, valid during the call.
  public mutating func parse(
    event p: UnsafeRawBufferPointer, _ body: (AdvertisingReport, UnsafeRawBufferPointer) -> Void
  ) {
    guard p.count >= 2 else {
      counters.malformed += 1
      return
    }
    let length = Int(p[1])
    guard p[0] == 0x3E, length >= 2, p.count >= 4 else {
      if p[0] == 0x3E { counters.malformed += 1 } else { counters.otherEvents += 1 }
      return
    }
    guard length <= p.count - 2 else {
      counters.malformed += 1
      return
    }
    let params = UnsafeRawBufferPointer(rebasing: p[2..<(2 + length)])
    switch params[0] {
    case 0x02:
      counters.events += 1
      legacy(params, body)
    case 0x0D:
      counters.events += 1
      extended(params, body)
    default:
      counters.otherEvents += 1
    }
  }

  private mutating func legacy(
    _ p: UnsafeRawBufferPointer, _ body: (AdvertisingReport, UnsafeRawBufferPointer) -> Void
  ) {
    let count = Int(p[1])
    var o = 2
    if count == 0 || count > 25 { counters.malformed += 1 }
    for _ in 0..<min(count, 25) {
      guard p.count - o >= 10 else {
        counters.malformed += 1
        return
      }
      let dataLength = Int(p[o + 8])
      guard dataLength <= 31, p.count - o - 10 >= dataLength else {
        counters.malformed += 1
        return
      }
      let data = UnsafeRawBufferPointer(rebasing: p[(o + 9)..<(o + 9 + dataLength)])
      let rssi = AdvertisingReport.rssi(byte: p[o + 9 + dataLength])
      if let type = AdvertisingEventType(legacy: p[o]) {
        counters.legacyReports += 1
        let report = AdvertisingReport(
          eventType: type, addressType: BluetoothAddressType(p[o + 1]),
          address: BluetoothAddress(hciBytes: p, at: o + 2), rssi: rssi)
        body(report, data)
      } else {
        counters.reservedEventTypes += 1
      }
      o += 10 + dataLength
    }
  }

  private mutating func extended(
    _ p: UnsafeRawBufferPointer, _ body: (AdvertisingReport, UnsafeRawBufferPointer) -> Void
  ) {
    let count = Int(p[1])
    var o = 2
    if count == 0 || count > 10 { counters.malformed += 1 }
    for _ in 0..<min(count, 10) {
      guard p.count - o >= 24 else {
        counters.malformed += 1
        return
      }
      let dataLength = Int(p[o + 23])
      guard p.count - o - 24 >= dataLength else {
        counters.malformed += 1
        return
      }
      let bits = UInt16(p[o]) | UInt16(p[o + 1]) << 8
      let data = UnsafeRawBufferPointer(rebasing: p[(o + 24)..<(o + 24 + dataLength)])
      let addressType = p[o + 2]
      let address = BluetoothAddress(hciBytes: p, at: o + 3)
      let sid = p[o + 11]
      let rssi = AdvertisingReport.rssi(byte: p[o + 13])
      o += 24 + dataLength
      guard let type = AdvertisingEventType(extended: bits) else {
        counters.reservedEventTypes += 1
        continue
      }
      let status = (bits >> 5) & 3
      let report = AdvertisingReport(
        eventType: type, addressType: BluetoothAddressType(addressType), address: address, rssi: rssi,
        advertisingSID: sid <= 0x0F ? sid : nil, truncated: status == 2)
      switch status {
      case 1:
        stash(addressType, address, sid, data)
      case 0, 2:
        if status == 2 { counters.truncatedData += 1 }
        complete(report, addressType, sid, data, body)
      default:
        counters.reservedEventTypes += 1
      }
    }
  }

  /// Keeps a fragment ("more to come") of an advertiser's data.
  private mutating func stash(
    _ type: UInt8, _ address: BluetoothAddress, _ sid: UInt8, _ data: UnsafeRawBufferPointer
  ) {
    if let i = pending.firstIndex(where: { $0.address == address && $0.addressType == type && $0.sid == sid })
    {
      guard !pending[i].dropping else { return }
      if pending[i].data.count + data.count > Self.maxAdvertisingDataLength {
        counters.droppedFragments += 1
        pending[i].data = []
        pending[i].dropping = true
      } else {
        pending[i].data.append(contentsOf: data)
      }
      return
    }
    if pending.count == Self.maxPendingAdvertisers {
      pending.removeFirst()
      counters.droppedFragments += 1
    }
    pending.append(Pending(addressType: type, address: address, sid: sid, data: Array(data), dropping: false))
  }

  /// Hands out an advertisement's last (or only) piece, joined to its stashed fragments.
  private mutating func complete(
    _ report: AdvertisingReport, _ type: UInt8, _ sid: UInt8, _ data: UnsafeRawBufferPointer,
    _ body: (AdvertisingReport, UnsafeRawBufferPointer) -> Void
  ) {
    guard
      let i = pending.firstIndex(where: {
        $0.address == report.address && $0.addressType == type && $0.sid == sid
      })
    else {
      counters.extendedReports += 1
      body(report, data)
      return
    }
    var joined = pending.remove(at: i)
    guard !joined.dropping, joined.data.count + data.count <= Self.maxAdvertisingDataLength else {
      counters.droppedFragments += 1
      return
    }
    joined.data.append(contentsOf: data)
    counters.extendedReports += 1
    joined.data.withUnsafeBytes { body(report, $0) }
  }
}
