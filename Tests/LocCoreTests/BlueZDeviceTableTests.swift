import LocCore
import Testing

/// The device table of the `bluez:` source, fed what BlueZ's signals say (org.bluez.Device1:
/// RSSI only while discovering; with DuplicateData a ManufacturerData change per
/// advertisement; docs/BEACONS.md, "The bluez: source").
@Suite struct BlueZDeviceTableTests {
  typealias Change = BlueZDeviceTable.Change
  static let uuid = "2f234454-cf6d-4a0f-adf2-f4911ba9ffa6"
  static let address = BluetoothAddress("c0:ff:ee:00:00:01")!

  /// An iBeacon frame after the company id, from the layout: 0x02 0x15, UUID, major, minor
  /// (big-endian), measured power.
  static func iBeacon(major: UInt16, minor: UInt16, power: Int8) -> BlueZDeviceTable.ManufacturerData {
    let hex = Array(uuid.replacingOccurrences(of: "-", with: "").utf8)
    let bytes = stride(from: 0, to: 32, by: 2).map {
      UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
    return .init(
      company: 0x004C,
      bytes: [0x02, 0x15] + bytes + [
        UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF),
      ]
        + [UInt8(bitPattern: power)])
  }

  /// An AltBeacon frame: any company, 0xBE 0xAC, 20-byte id (UUID, major, minor), reference
  /// RSSI, reserved byte (github.com/AltBeacon/spec).
  static func altBeacon(company: UInt16, power: Int8) -> BlueZDeviceTable.ManufacturerData {
    let id = iBeacon(major: 7, minor: 9, power: 0).bytes[2..<22]
    return .init(company: company, bytes: [0xBE, 0xAC] + id + [UInt8(bitPattern: power), 0x00])
  }

  @Test func aDeviceIsHeardWhenItHasAnRSSIAndABeaconFrame() throws {
    var table = BlueZDeviceTable()
    // Remembered from an earlier discovery: no RSSI, not heard.
    #expect(
      table.added(
        "/org/bluez/hci0/dev_1",
        [.address(Self.address), .manufacturerData([Self.iBeacon(major: 1, minor: 2, power: -59)])]) == nil)
    // An RSSI change: heard, with the frame it had.
    let heard = table.changed("/org/bluez/hci0/dev_1", [.rssi(DecibelMilliwatts(-70))])
    let s = try #require(heard)
    #expect(s.address == Self.address && s.rssi == DecibelMilliwatts(-70))
    #expect(s.identity.major == 1 && s.identity.minor == 2 && s.identity.uuid.description == Self.uuid)
    #expect(s.calibratedPower == DecibelMilliwatts(-59))
    // ManufacturerData again with the RSSI unchanged (DuplicateData): heard again.
    #expect(
      table.changed(
        "/org/bluez/hci0/dev_1", [.manufacturerData([Self.iBeacon(major: 1, minor: 2, power: -59)])])?.rssi
        == DecibelMilliwatts(-70))
    // Discovery stopped: RSSI invalidated, then nothing is heard until it comes back.
    #expect(table.changed("/org/bluez/hci0/dev_1", [.rssiGone]) == nil)
    #expect(
      table.changed(
        "/org/bluez/hci0/dev_1", [.manufacturerData([Self.iBeacon(major: 1, minor: 2, power: -59)])]) == nil)
    #expect(table.counters.sightings == 2 && table.counters.iBeacons == 2)
  }

  @Test func aDeviceFoundDuringDiscoveryIsHeardAtOnce() throws {
    var table = BlueZDeviceTable()
    let found = table.added(
      "/d",
      [
        .address(Self.address), .rssi(DecibelMilliwatts(-40)),
        .manufacturerData([Self.altBeacon(company: 0x0118, power: -55)]),
      ])
    let s = try #require(found)
    #expect(s.identity.major == 7 && s.identity.minor == 9 && s.calibratedPower == DecibelMilliwatts(-55))
    #expect(table.counters.altBeacons == 1)
    // Implausible power: still heard, with no calibration (docs/BEACONS.md, "Measured power").
    let again = table.changed("/d", [.manufacturerData([Self.iBeacon(major: 3, minor: 4, power: 12)])])
    let t = try #require(again)
    #expect(t.calibratedPower == nil && t.identity.major == 3)
  }

  @Test func otherDataMalformedFramesAndStrangersAreCounted() {
    var table = BlueZDeviceTable()
    #expect(
      table.added(
        "/d",
        [
          .address(Self.address), .rssi(DecibelMilliwatts(-40)),
          .manufacturerData([.init(company: 0x0006, bytes: [1, 2, 3])]),
        ]) == nil)
    #expect(table.counters.other == 1)
    var short = Self.iBeacon(major: 1, minor: 1, power: -59)
    short.bytes.removeLast()
    #expect(table.changed("/d", [.manufacturerData([short])]) == nil)
    #expect(table.counters.malformed == 1)
    #expect(table.changed("/nobody", [.rssi(DecibelMilliwatts(-1))]) == nil)
    #expect(table.counters.unknownDevices == 1)
    #expect(table.added("/noaddress", [.rssi(DecibelMilliwatts(-1))]) == nil)
    #expect(table.counters.withoutAddress == 1 && table.count == 1)
    table.removed("/d")
    #expect(table.count == 0)
    #expect(table.changed("/d", [.rssi(DecibelMilliwatts(-40))]) == nil)
  }

  @Test func theTableIsBounded() {
    var table = BlueZDeviceTable()
    for i in 0..<(BlueZDeviceTable.limit + 10) {
      _ = table.added("/d\(i)", [.address(BluetoothAddress(value: UInt64(i)))])
    }
    #expect(table.count == BlueZDeviceTable.limit)
    #expect(table.counters.devicesDropped == 10)
    // A known device is still replaced when the table is full.
    _ = table.added("/d0", [.address(Self.address)])
    #expect(table.counters.devicesDropped == 10)
    table.removeAll()
    #expect(table.count == 0)
  }

  /// BlueZ sent RSSI -32768 (issue 28): a distance of 10^1635 m went out as `accuracy: null`
  /// and `locctl beacons range` failed to read it. An RSSI no radio reports is no reading,
  /// counted; the distance model gives no distance for it.
  @Test func anRSSINoRadioReportsIsNoReading() throws {
    var table = BlueZDeviceTable()
    let path = "/org/bluez/hci0/dev_1"
    let frame = Self.iBeacon(major: 1, minor: 2, power: -59)
    #expect(table.added(path, [.address(Self.address), .manufacturerData([frame])]) == nil)
    for bad in [-32768.0, -128, 21, 127] {
      #expect(table.changed(path, [.rssi(DecibelMilliwatts(bad))]) == nil, "\(bad)")
    }
    #expect(table.counters.implausibleRSSI == 4 && table.counters.sightings == 0)
    // A plausible one after them is heard as usual.
    let heard = table.changed(path, [.rssi(DecibelMilliwatts(-127))])
    #expect(try #require(heard).rssi == DecibelMilliwatts(-127))
    let model = BeaconDistanceModel()
    #expect(model.accuracy(rssi: DecibelMilliwatts(-32768), calibratedPower: DecibelMilliwatts(-59)) == nil)
    #expect(
      model.accuracy(rssi: DecibelMilliwatts(-59), calibratedPower: DecibelMilliwatts(-59)) == Meters(1))
  }
}
