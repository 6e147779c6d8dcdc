/// One beacon advertisement heard: when, from which address, in which PDU, and what it said.
public struct BeaconAdvertisement: Hashable, Sendable {
  /// When it was received (the capture's timestamp, or the reception time of a live source).
  public var time: Instant
  /// The advertiser's address.
  public var address: BluetoothAddress
  /// How the address is to be read.
  public var addressType: BluetoothAddressType
  /// The PDU it came in (scan responses count like advertisements).
  public var eventType: AdvertisingEventType
  /// The beacon frame.
  public var payload: BeaconPayload
  /// The received signal strength; `nil` when the controller did not report one.
  public var rssi: DecibelMilliwatts?

  /// An advertisement.
  public init(
    time: Instant, address: BluetoothAddress, addressType: BluetoothAddressType,
    eventType: AdvertisingEventType,
    payload: BeaconPayload, rssi: DecibelMilliwatts?
  ) {
    self.time = time
    self.address = address
    self.addressType = addressType
    self.eventType = eventType
    self.payload = payload
    self.rssi = rssi
  }

  /// What ranging and monitoring need of it.
  public var sighting: BeaconSighting {
    BeaconSighting(
      identity: payload.identity, address: address, rssi: rssi, calibratedPower: payload.calibratedPower)
  }
}

/// A beacon heard, as the ranging and monitoring machine takes it: from a capture
/// (`BeaconAdvertisement.sighting`) or from BlueZ (a Device1's Address, RSSI and
/// ManufacturerData). The time is the machine's input instant.
public struct BeaconSighting: Hashable, Sendable {
  /// UUID, major, minor.
  public var identity: BeaconIdentity
  /// The transmitter (several devices may send one identity; each is ranged apart).
  public var address: BluetoothAddress
  /// The received signal strength, if measured.
  public var rssi: DecibelMilliwatts?
  /// The beacon's plausible power at 1 m (`BeaconPayload.calibratedPower`), if any.
  public var calibratedPower: DecibelMilliwatts?

  /// A sighting.
  public init(
    identity: BeaconIdentity, address: BluetoothAddress, rssi: DecibelMilliwatts?,
    calibratedPower: DecibelMilliwatts?
  ) {
    self.identity = identity
    self.address = address
    self.rssi = rssi
    self.calibratedPower = calibratedPower
  }
}
