/// A beacon frame found in manufacturer-specific data: its format, identity and the power
/// it claims to be received with at 1 m.
public struct BeaconPayload: Hashable, Sendable {
  /// iBeacon or AltBeacon.
  public var format: BeaconFormat
  /// UUID, major, minor.
  public var identity: BeaconIdentity
  /// The Bluetooth SIG company id of the manufacturer data (0x004C for iBeacon).
  public var companyID: UInt16
  /// The measured power (iBeacon) or reference RSSI (AltBeacon) as sent: the signed byte,
  /// in dBm. Some devices send nonsense here (positive values); see `calibratedPower`.
  public var advertisedPower: Int8
  /// AltBeacon's manufacturer-reserved byte; `nil` for iBeacon.
  public var reserved: UInt8?

  /// A payload.
  public init(
    format: BeaconFormat, identity: BeaconIdentity, companyID: UInt16, advertisedPower: Int8,
    reserved: UInt8? = nil
  ) {
    self.format = format
    self.identity = identity
    self.companyID = companyID
    self.advertisedPower = advertisedPower
    self.reserved = reserved
  }

  /// The plausible range of a power received at 1 m. A BLE transmitter at its highest power
  /// (+20 dBm) is heard at about -21 dBm at 1 m in free space (Friis at 2.4 GHz: 40 dB), and
  /// one at its lowest (-20 dBm) at about -60 dBm; walls and bodies take up to some 40 dB
  /// more. Outside -100...-20 dBm the value cannot be a calibration, so it is not used.
  public static let plausiblePower: ClosedRange<Int> = -100 ... -20

  /// The advertised power if it is plausible (`plausiblePower`), else `nil`: then the
  /// distance to this beacon is unknown. Never trusted blindly: the captures in
  /// Tests/Fixtures/beacons hold beacons that advertise +12 and +3 dBm.
  public var calibratedPower: DecibelMilliwatts? {
    let p = Int(advertisedPower)
    return Self.plausiblePower.contains(p) ? DecibelMilliwatts(p) : nil
  }

  /// Apple's company id (Bluetooth SIG Assigned Numbers).
  public static let appleCompanyID: UInt16 = 0x004C

  /// What one manufacturer-specific AD structure holds.
  public enum Parse: Hashable, Sendable {
    /// A beacon.
    case beacon(BeaconPayload)
    /// Starts like a beacon (iBeacon type 0x02, or beacon code 0xBEAC) but has the wrong
    /// length: counted, not used.
    case malformed(BeaconFormat)
    /// Some other manufacturer data.
    case other

    /// The beacon, if this is one.
    public var beacon: BeaconPayload? {
      if case .beacon(let p) = self { return p } else { return nil }
    }
  }

  /// Parses the value of a Manufacturer Specific Data structure (AD type 0xFF): company id
  /// (2 bytes, little-endian) then the company's bytes.
  public static func parse(manufacturerData value: UnsafeRawBufferPointer) -> Parse {
    guard value.count >= 2 else { return .other }
    let company = UInt16(value[0]) | UInt16(value[1]) << 8
    return parse(companyID: company, data: UnsafeRawBufferPointer(rebasing: value[2...]))
  }

  /// Parses the company's bytes of manufacturer data, after the company id: the split
  /// BlueZ uses in org.bluez.Device1's ManufacturerData (a{qv}).
  public static func parse(companyID company: UInt16, data d: UnsafeRawBufferPointer) -> Parse {
    guard d.count >= 2 else { return .other }
    // iBeacon: 0x02 (type), 0x15 (21 bytes follow): UUID 16, major 2, minor 2, power 1.
    if company == appleCompanyID && d[0] == 0x02 {
      guard d[1] == 0x15, d.count == 23 else { return .malformed(.iBeacon) }
      return .beacon(
        BeaconPayload(
          format: .iBeacon, identity: identity(d, at: 2), companyID: company,
          advertisedPower: Int8(bitPattern: d[22])))
    }
    // AltBeacon: beacon code 0xBEAC (big-endian), id 20, reference RSSI 1, reserved 1.
    if d[0] == 0xBE && d[1] == 0xAC {
      guard d.count == 24 else { return .malformed(.altBeacon) }
      return .beacon(
        BeaconPayload(
          format: .altBeacon, identity: identity(d, at: 2), companyID: company,
          advertisedPower: Int8(bitPattern: d[22]), reserved: d[23]))
    }
    return .other
  }

  private static func identity(_ p: UnsafeRawBufferPointer, at o: Int) -> BeaconIdentity {
    BeaconIdentity(
      uuid: BeaconUUID(bytes: p, at: o), major: UInt16(p[o + 16]) << 8 | UInt16(p[o + 17]),
      minor: UInt16(p[o + 18]) << 8 | UInt16(p[o + 19]))
  }
}
