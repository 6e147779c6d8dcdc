/// The cell a modem is registered with, as a geolocation lookup may send it (the geolocate
/// API's `cellTowers` entry): the radio if known, the network (MCC, MNC), the area (LAC for
/// GSM and UMTS, TAC for LTE) and the cell id. Nothing else: no signal, no neighbours, no
/// identity of the SIM or the modem.
public struct CellTower: Sendable, Hashable {
  /// The radio the modem uses, if it says (ModemManager's AccessTechnologies).
  public var radio: CellRadio?
  /// The Mobile Country Code (ITU E.212), 200 to 799.
  public var mobileCountryCode: Int
  /// The Mobile Network Code, 0 to 999.
  public var mobileNetworkCode: Int
  /// The Location Area Code (GSM, UMTS) or Tracking Area Code (LTE).
  public var areaCode: Int
  /// The cell identifier (two or four bytes: 16 bits in GSM, 28 in UMTS and LTE).
  public var cellId: Int

  /// A cell as given.
  public init(radio: CellRadio?, mobileCountryCode: Int, mobileNetworkCode: Int, areaCode: Int, cellId: Int) {
    self.radio = radio
    self.mobileCountryCode = mobileCountryCode
    self.mobileNetworkCode = mobileNetworkCode
    self.areaCode = areaCode
    self.cellId = cellId
  }

  /// What the cache key holds of it: the network, area and cell (the radio does not move it).
  public var key: String { "\(mobileCountryCode)-\(mobileNetworkCode)-\(areaCode)-\(cellId)" }

  /// The API's `cellTowers` entry.
  public var json: JSON {
    var o: JSONObject = [
      "mobileCountryCode": .int(mobileCountryCode), "mobileNetworkCode": .int(mobileNetworkCode),
      "locationAreaCode": .int(areaCode), "cellId": .int(cellId),
    ]
    if let radio { o["radioType"] = .string(radio.rawValue) }
    return .object(o)
  }
}

/// The geolocate API's radio types (ichnaea's `radioType`).
public enum CellRadio: String, Sendable, Hashable, CaseIterable {
  case gsm
  case wcdma
  case lte

  /// The radio of ModemManager's AccessTechnologies bits (MMModemAccessTechnology,
  /// ModemManager-enums.h): LTE (and Cat-M, NB-IoT) before UMTS's family before GSM's;
  /// nil for none of them (5G NR alone, CDMA, unknown), which the API has no type for.
  public static func of(accessTechnologies bits: UInt32) -> CellRadio? {
    if bits & (1 << 14 | 1 << 16 | 1 << 17) != 0 { return .lte }
    if bits & (1 << 5 | 1 << 6 | 1 << 7 | 1 << 8 | 1 << 9) != 0 { return .wcdma }
    if bits & (1 << 1 | 1 << 2 | 1 << 3 | 1 << 4) != 0 { return .gsm }
    return nil
  }
}

/// ModemManager's 3GPP location string (Modem.Location's MM_MODEM_LOCATION_SOURCE_3GPP_LAC_CI
/// value, its XML's documentation): `MCC,MNC,LAC,CI` and, since 1.10, `,TAC`; MCC and MNC in
/// decimal, LAC, CI and TAC in upper-case hexadecimal without leading zeros, nothing but
/// `[0-9A-F,]`. Read strictly: anything else is refused with why.
public enum ModemCellLocation {
  /// Why a string is not a cell.
  public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not four or five comma-separated fields.
    case fieldCount(Int)
    /// A field that is not what its place says (decimal or upper-case hex, its length).
    case badField(String)
    /// The MCC is outside 200...799 (ITU E.212's geographic zones; 001 is a test network).
    case countryOutOfRange(Int)
    /// Neither a LAC nor a TAC (each 0 or the reserved FFFE), or cell id 0.
    case unusable(String)

    public var description: String {
      switch self {
      case .fieldCount(let n): "\(n) fields, not MCC,MNC,LAC,CI[,TAC]"
      case .badField(let f): "bad \(f)"
      case .countryOutOfRange(let n): "MCC \(n) is not a country's (200 to 799)"
      case .unusable(let why): why
      }
    }
  }

  /// The string's cell; `radio` from AccessTechnologies. For LTE the area is the TAC (what
  /// the API's `locationAreaCode` means there), else the LAC, or the TAC when the LAC is 0.
  public static func parse(_ text: String, radio: CellRadio?) -> Result<CellTower, Problem> {
    guard text.utf8.count <= 64 else { return .failure(.fieldCount(text.utf8.count)) }
    let fields = text.split(separator: ",", omittingEmptySubsequences: false)
    guard fields.count == 4 || fields.count == 5 else { return .failure(.fieldCount(fields.count)) }
    guard let mcc = decimal(fields[0], digits: 3...3) else { return .failure(.badField("MCC")) }
    guard (200...799).contains(mcc) else { return .failure(.countryOutOfRange(mcc)) }
    guard let mnc = decimal(fields[1], digits: 2...3) else { return .failure(.badField("MNC")) }
    guard let lac = hex(fields[2], digits: 4) else { return .failure(.badField("LAC")) }
    guard let ci = hex(fields[3], digits: 8) else { return .failure(.badField("CI")) }
    let tac: Int
    if fields.count == 5 {
      guard let t = hex(fields[4], digits: 6) else { return .failure(.badField("TAC")) }
      tac = t
    } else {
      tac = 0
    }
    guard ci != 0 else { return .failure(.unusable("cell id \(ci) is not a cell's")) }
    // 0 and FFFE are no area (3GPP TS 23.003 reserves them for LAC and TAC alike).
    let (l, t) = (usable(lac), usable(tac))
    guard let area = radio == .lte ? t ?? l : l ?? t else {
      return .failure(.unusable("no area code (LAC and TAC are 0 or reserved)"))
    }
    return .success(
      CellTower(radio: radio, mobileCountryCode: mcc, mobileNetworkCode: mnc, areaCode: area, cellId: ci))
  }

  private static func usable(_ area: Int) -> Int? { area == 0 || area == 0xFFFE ? nil : area }

  private static func decimal(_ s: Substring, digits: ClosedRange<Int>) -> Int? {
    guard digits.contains(s.utf8.count), s.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
    return Int(s)
  }

  private static func hex(_ s: Substring, digits: Int) -> Int? {
    guard (1...digits).contains(s.utf8.count),
      s.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x46).contains($0) })
    else { return nil }
    return Int(s, radix: 16)
  }
}
