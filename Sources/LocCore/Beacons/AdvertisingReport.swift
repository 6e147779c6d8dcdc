/// One advertisement as the controller reported it, without its data (which is passed next to
/// it): an entry of an HCI LE Advertising Report or LE Extended Advertising Report event.
public struct AdvertisingReport: Hashable, Sendable {
  /// The PDU it came in.
  public var eventType: AdvertisingEventType
  /// How the address is to be read.
  public var addressType: BluetoothAddressType
  /// The advertiser's address.
  public var address: BluetoothAddress
  /// The received signal strength; `nil` when the controller did not measure it (127).
  public var rssi: DecibelMilliwatts?
  /// Extended reports only: the advertising set id (0...15); `nil` for legacy reports or
  /// when none was sent (0xFF).
  public var advertisingSID: UInt8?
  /// The data is incomplete: the controller truncated it (extended reports).
  public var truncated: Bool

  /// A report.
  public init(
    eventType: AdvertisingEventType, addressType: BluetoothAddressType, address: BluetoothAddress,
    rssi: DecibelMilliwatts?, advertisingSID: UInt8? = nil, truncated: Bool = false
  ) {
    self.eventType = eventType
    self.addressType = addressType
    self.address = address
    self.rssi = rssi
    self.advertisingSID = advertisingSID
    self.truncated = truncated
  }

  /// An RSSI byte of an advertising report: -127...+20 dBm, 127 "not available" (Core 5.4,
  /// Vol 4, Part E, 7.7.65.2 and 7.7.65.13); the reserved values in between read as
  /// not available too.
  @inlinable public static func rssi(byte: UInt8) -> DecibelMilliwatts? {
    let v = Int(Int8(bitPattern: byte))
    return v <= 20 && v >= -127 ? DecibelMilliwatts(v) : nil
  }
}

/// The advertising PDU a report came in. Legacy reports name it by number (0...4); extended
/// reports by property bits, with bit 4 set for the legacy PDUs.
public enum AdvertisingEventType: Hashable, Sendable, CustomStringConvertible {
  /// ADV_IND: connectable and scannable, undirected (legacy type 0).
  case advInd
  /// ADV_DIRECT_IND: connectable, directed (1).
  case advDirectInd
  /// ADV_SCAN_IND: scannable, undirected (2).
  case advScanInd
  /// ADV_NONCONN_IND: neither (3).
  case advNonconnInd
  /// SCAN_RSP: the answer to a scan request (4).
  case scanResponse
  /// An extended advertising PDU, by its property bits 0...3 (connectable, scannable,
  /// directed, scan response).
  case extended(properties: UInt8)

  /// The type of a legacy report's event type byte; `nil` for reserved values.
  public init?(legacy code: UInt8) {
    switch code {
    case 0: self = .advInd
    case 1: self = .advDirectInd
    case 2: self = .advScanInd
    case 3: self = .advNonconnInd
    case 4: self = .scanResponse
    default: return nil
    }
  }

  /// The type of an extended report's event type bits 0...4 (the data status bits apart);
  /// `nil` for combinations the spec reserves (legacy bit with other bits).
  public init?(extended bits: UInt16) {
    let b = UInt8(bits & 0x1F)
    guard b & 0x10 != 0 else {
      self = .extended(properties: b & 0x0F)
      return
    }
    // Legacy PDUs in extended reports (Core 5.4, Vol 4, Part E, 7.7.65.13).
    switch b {
    case 0x13: self = .advInd
    case 0x15: self = .advDirectInd
    case 0x12: self = .advScanInd
    case 0x10: self = .advNonconnInd
    case 0x1B, 0x1A: self = .scanResponse
    default: return nil
    }
  }

  /// The legacy event type number (0...4); `nil` for extended PDUs.
  public var legacyCode: Int? {
    switch self {
    case .advInd: return 0
    case .advDirectInd: return 1
    case .advScanInd: return 2
    case .advNonconnInd: return 3
    case .scanResponse: return 4
    case .extended: return nil
    }
  }

  /// Whether this is a scan response.
  public var isScanResponse: Bool {
    switch self {
    case .scanResponse: return true
    case .extended(let p): return p & 0x08 != 0
    default: return false
    }
  }

  /// `ADV_IND`, ..., `SCAN_RSP`, or `EXT` with the properties set (`EXT(conn,scan)`).
  public var description: String {
    switch self {
    case .advInd: return "ADV_IND"
    case .advDirectInd: return "ADV_DIRECT_IND"
    case .advScanInd: return "ADV_SCAN_IND"
    case .advNonconnInd: return "ADV_NONCONN_IND"
    case .scanResponse: return "SCAN_RSP"
    case .extended(let p):
      let names = ["conn", "scan", "direct", "rsp"].enumerated().filter { p & (1 << $0.offset) != 0 }
      return "EXT(" + names.map(\.element).joined(separator: ",") + ")"
    }
  }
}

/// How an advertiser's address is to be read (Core 5.4, Vol 4, Part E, 7.7.65.2/.13).
public enum BluetoothAddressType: Hashable, Sendable, CustomStringConvertible {
  /// A public device address (0).
  case `public`
  /// A random device address (1).
  case random
  /// A public identity address, resolved by the controller (2).
  case publicIdentity
  /// A random static identity address, resolved by the controller (3).
  case randomIdentity
  /// No address (0xFF, anonymous extended advertising).
  case anonymous
  /// A value the spec reserves.
  case reserved(UInt8)

  /// The type of an address type byte.
  public init(_ code: UInt8) {
    switch code {
    case 0: self = .public
    case 1: self = .random
    case 2: self = .publicIdentity
    case 3: self = .randomIdentity
    case 0xFF: self = .anonymous
    default: self = .reserved(code)
    }
  }

  /// `public`, `random`, `public-identity`, `random-identity`, `anonymous`, `reserved-N`.
  public var description: String {
    switch self {
    case .public: return "public"
    case .random: return "random"
    case .publicIdentity: return "public-identity"
    case .randomIdentity: return "random-identity"
    case .anonymous: return "anonymous"
    case .reserved(let c): return "reserved-\(c)"
    }
  }
}
