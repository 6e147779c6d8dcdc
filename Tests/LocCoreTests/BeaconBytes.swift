import Foundation
import LocCore

/// Builds btsnoop captures and HCI packets byte by byte, from the layouts in the specs (not
/// from locd's parser): BlueZ src/shared/btsnoop.h for files, Core 5.4 Vol 4 Part E 7.7.65
/// for advertising reports, the iBeacon and AltBeacon layouts for the data.
enum BeaconBytes {
  /// BlueZ's timestamp of 2000-01-01T00:00:00Z (src/shared/btsnoop.c).
  static let y2000: UInt64 = 0x00E0_3AB4_4A67_6000

  static func be32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }
  static func be64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * $0)) } }

  /// The 16-byte file header.
  static func header(datalink: UInt32 = 1002, version: UInt32 = 1) -> [UInt8] {
    Array("btsnoop".utf8) + [0] + be32(version) + be32(datalink)
  }

  /// One record; `original` defaults to the packet's length.
  static func record(
    _ packet: [UInt8], flags: UInt32 = 3, timestamp: UInt64 = y2000, original: UInt32? = nil,
    drops: UInt32 = 0
  ) -> [UInt8] {
    be32(original ?? UInt32(packet.count)) + be32(UInt32(packet.count)) + be32(flags) + be32(drops)
      + be64(timestamp) + packet
  }

  /// An address in HCI order from its written form `aa:bb:cc:dd:ee:ff` (least significant first).
  static func address(_ text: String) -> [UInt8] {
    text.split(separator: ":").map { UInt8($0, radix: 16)! }.reversed()
  }

  /// One legacy report: event type, address type, address, data length, data, RSSI.
  static func legacyReport(type: UInt8, addressType: UInt8 = 0, address: String, data: [UInt8], rssi: Int8)
    -> [UInt8]
  {
    [type, addressType] + self.address(address) + [UInt8(data.count)] + data + [UInt8(bitPattern: rssi)]
  }

  /// An LE Meta event (0x3E) with LE Advertising Report subevent (0x02): event code, parameter
  /// length, subevent, number of reports, the reports.
  static func legacyEvent(_ reports: [[UInt8]]) -> [UInt8] {
    let params: [UInt8] = [0x02, UInt8(reports.count)] + reports.joined()
    return [0x3E, UInt8(params.count)] + params
  }

  /// One extended report (24 bytes before the data).
  static func extendedReport(
    eventType: UInt16, addressType: UInt8 = 1, address: String, sid: UInt8 = 0, rssi: Int8, data: [UInt8]
  ) -> [UInt8] {
    var r: [UInt8] = [UInt8(eventType & 0xFF), UInt8(eventType >> 8), addressType] + self.address(address)
    r += [0x01, 0x00, sid, 0x7F, UInt8(bitPattern: rssi)]  // PHYs, SID, TX power n/a, RSSI
    r += [0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 6)  // interval, direct address
    return r + [UInt8(data.count)] + data
  }

  /// An LE Meta event with LE Extended Advertising Report subevent (0x0D).
  static func extendedEvent(_ reports: [[UInt8]]) -> [UInt8] {
    let params: [UInt8] = [0x0D, UInt8(reports.count)] + reports.joined()
    return [0x3E, UInt8(params.count)] + params
  }

  /// Manufacturer Specific Data (AD type 0xFF) for an iBeacon: length 0x1A, type, company
  /// 0x004C little-endian, 0x02 0x15, UUID, major and minor big-endian, power.
  static func iBeacon(uuid: [UInt8], major: UInt16, minor: UInt16, power: Int8) -> [UInt8] {
    [0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15] + uuid + [UInt8(major >> 8), UInt8(major & 0xFF)]
      + [UInt8(minor >> 8), UInt8(minor & 0xFF), UInt8(bitPattern: power)]
  }

  /// The Flags AD structure most advertisers put first: LE General Discoverable, no BR/EDR.
  static let flags: [UInt8] = [0x02, 0x01, 0x06]

  /// Sixteen bytes from a UUID's written form.
  static func uuid(_ text: String) -> [UInt8] {
    let hex = Array(text.replacingOccurrences(of: "-", with: ""))
    return stride(from: 0, to: 32, by: 2).map { UInt8(String(hex[$0..<($0 + 2)]), radix: 16)! }
  }
}
