/// The devices BlueZ reports under one adapter (its org.bluez.Device1 objects), as far as
/// beacon sightings need them: address, RSSI and the beacon frame in the manufacturer data.
/// The `bluez:` source feeds it what GetManagedObjects, InterfacesAdded, PropertiesChanged and
/// InterfacesRemoved say, already read off the bus; it answers with the sightings those mean.
///
/// When a device counts as heard (docs/BEACONS.md, "The bluez: source"): BlueZ gives a device
/// an RSSI only while discovery runs and the device was received in it (org.bluez.Device1:
/// "RSSI ... available only during discovery"), and with DuplicateData it signals
/// ManufacturerData for every advertisement, RSSI whenever it changes. So a device is a
/// sighting when it appears with an RSSI (an object of GetManagedObjects or InterfacesAdded),
/// and on every change that carries RSSI or ManufacturerData while it has an RSSI; each time
/// only if its manufacturer data holds an iBeacon or AltBeacon frame. A device without an RSSI
/// (remembered from an earlier discovery, or its RSSI invalidated when discovery stopped) is
/// not heard.
public struct BlueZDeviceTable: Sendable {
  /// What a signal or reply says of one Device1 property that matters here.
  public enum Change: Hashable, Sendable {
    /// Address (`s`), parsed.
    case address(BluetoothAddress)
    /// RSSI (`n`), dBm.
    case rssi(DecibelMilliwatts)
    /// RSSI invalidated (discovery stopped).
    case rssiGone
    /// ManufacturerData (`a{qv}`, each value `ay`): company id and its bytes.
    case manufacturerData([ManufacturerData])
    /// ManufacturerData invalidated.
    case manufacturerDataGone
  }

  /// One entry of ManufacturerData: the company id (key) and the bytes after it (value).
  public struct ManufacturerData: Hashable, Sendable {
    /// The Bluetooth SIG company id.
    public var company: UInt16
    /// The data after the company id.
    public var bytes: [UInt8]
    /// An entry.
    public init(company: UInt16, bytes: [UInt8]) {
      self.company = company
      self.bytes = bytes
    }
  }

  /// What happened, counted (the source's counters in status).
  public struct Counters: Hashable, Sendable {
    /// Sightings handed out.
    public var sightings = 0
    /// Of which iBeacon and AltBeacon.
    public var iBeacons = 0
    public var altBeacons = 0
    /// ManufacturerData values without a beacon frame.
    public var other = 0
    /// ManufacturerData that starts like a beacon frame with the wrong length.
    public var malformed = 0
    /// Devices not taken because the table was full (`limit`).
    public var devicesDropped = 0
    /// Changes for a device the table does not know (a signal raced the object's announcement).
    public var unknownDevices = 0
    /// Devices announced without an Address.
    public var withoutAddress = 0
    /// RSSI values outside what a radio reports (`DecibelMilliwatts.isPlausible`; BlueZ has sent -32768):
    /// taken as no reading.
    public var implausibleRSSI = 0
    /// A public initialiser.
    public init() {}
  }

  struct Device: Sendable {
    var address: BluetoothAddress
    var rssi: DecibelMilliwatts?
    var beacon: BeaconPayload?
  }

  /// Most devices remembered: BlueZ forgets unpaired devices some 30 s after it last heard
  /// them (TemporaryTimeout in main.conf), so this bounds a flood of rotating random
  /// addresses, not ordinary use.
  public static let limit = 4096

  private var devices: [String: Device] = [:]
  /// What happened.
  public private(set) var counters = Counters()

  /// An empty table.
  public init() {}

  /// How many devices are known.
  public var count: Int { devices.count }
  /// How many known devices carry a beacon frame.
  public var beaconCount: Int { devices.values.count { $0.beacon != nil } }

  /// A Device1 object at `path` with these properties (GetManagedObjects, InterfacesAdded):
  /// replaces what was known of it. A sighting if it has an RSSI and a beacon frame.
  public mutating func added(_ path: String, _ changes: [Change]) -> BeaconSighting? {
    var address: BluetoothAddress? = nil
    for case .address(let a) in changes { address = a }
    guard let address else {
      counters.withoutAddress += 1
      devices[path] = nil
      return nil
    }
    if devices[path] == nil && devices.count >= Self.limit {
      counters.devicesDropped += 1
      return nil
    }
    devices[path] = Device(address: address)
    return apply(path, changes, heardWithoutRSSIChange: false)
  }

  /// PropertiesChanged of the Device1 at `path`: a sighting if the change carries RSSI or
  /// ManufacturerData, and the device has an RSSI and a beacon frame.
  public mutating func changed(_ path: String, _ changes: [Change]) -> BeaconSighting? {
    guard devices[path] != nil else {
      counters.unknownDevices += 1
      return nil
    }
    return apply(path, changes, heardWithoutRSSIChange: true)
  }

  /// The Device1 at `path` is gone (InterfacesRemoved).
  public mutating func removed(_ path: String) {
    devices[path] = nil
  }

  /// Forgets every device (the adapter or BlueZ went away).
  public mutating func removeAll() {
    devices = [:]
  }

  private mutating func apply(_ path: String, _ changes: [Change], heardWithoutRSSIChange: Bool)
    -> BeaconSighting?
  {
    guard var device = devices[path] else { return nil }
    var heard = false
    for change in changes {
      switch change {
      case .address(let a): device.address = a
      case .rssi(let r) where !r.isPlausible:
        counters.implausibleRSSI += 1
        device.rssi = nil
      case .rssi(let r):
        device.rssi = r
        heard = true
      case .rssiGone: device.rssi = nil
      case .manufacturerData(let entries):
        device.beacon = beacon(in: entries)
        heard = heard || heardWithoutRSSIChange
      case .manufacturerDataGone: device.beacon = nil
      }
    }
    devices[path] = device
    guard heard, device.rssi != nil, let beacon = device.beacon else { return nil }
    counters.sightings += 1
    switch beacon.format {
    case .iBeacon: counters.iBeacons += 1
    case .altBeacon: counters.altBeacons += 1
    }
    return BeaconSighting(
      identity: beacon.identity, address: device.address, rssi: device.rssi,
      calibratedPower: beacon.calibratedPower)
  }

  /// The first beacon frame among the entries (a device sends one; BlueZ keeps one value per
  /// company id).
  private mutating func beacon(in entries: [ManufacturerData]) -> BeaconPayload? {
    guard !entries.isEmpty else { return nil }
    var malformed = false
    for entry in entries {
      let parse = entry.bytes.withUnsafeBytes { BeaconPayload.parse(companyID: entry.company, data: $0) }
      switch parse {
      case .beacon(let payload): return payload
      case .malformed: malformed = true
      case .other: continue
      }
    }
    if malformed { counters.malformed += 1 } else { counters.other += 1 }
    return nil
  }
}
