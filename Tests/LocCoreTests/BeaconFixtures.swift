import Foundation
import LocCore

/// The btsnoop captures in Tests/Fixtures/beacons (MIT, see PROVENANCE.md there) and the CSV
/// of every iBeacon advertisement in each, made by an independent decoder: the oracle.
enum BeaconFixtures {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("Fixtures/beacons")

  /// The three captures, by base name.
  static let captures = [
    "btsnoop_hci", "20230209-h5075-and-h5074-btsnoop_hci", "20240127-h5100-btsnoop_hci",
  ]

  static func bytes(_ capture: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: directory.appendingPathComponent(capture + ".btsnoop")))
  }

  /// One CSV row: the reference decoding of one iBeacon report.
  struct Row: Equatable, CustomStringConvertible {
    var time: String
    var address: String
    var advType: Int
    var uuid: String
    var major: Int
    var minor: Int
    var measuredPower: Int
    var rssi: Int
    var description: String {
      "\(time) \(address) type \(advType) \(uuid):\(major):\(minor) power \(measuredPower) rssi \(rssi)"
    }
  }

  /// The rows of `capture`'s CSV, in file order.
  static func rows(_ capture: String) throws -> [Row] {
    let text = try String(
      contentsOf: directory.appendingPathComponent(capture + ".ibeacon.csv"), encoding: .utf8)
    var lines = text.split(whereSeparator: \.isNewline)
    let header = lines.removeFirst()
    guard header == "n,time_utc,address,adv_type,uuid,major,minor,measured_power,rssi" else {
      throw FixtureError("unexpected CSV header: \(header)")
    }
    return try lines.map { line in
      let f = line.split(separator: ",").map(String.init)
      guard f.count == 9, let t = Int(f[3]), let ma = Int(f[5]), let mi = Int(f[6]), let p = Int(f[7]),
        let r = Int(f[8])
      else { throw FixtureError("bad CSV line: \(line)") }
      return Row(
        time: f[1], address: f[2], advType: t, uuid: f[4], major: ma, minor: mi, measuredPower: p, rssi: r)
    }
  }

  /// Decodes `bytes` fed in chunks of `chunkSize` (0: all at once).
  static func decode(_ bytes: [UInt8], chunkSize: Int = 0) -> (
    advertisements: [BeaconAdvertisement], counters: BeaconCaptureDecoder.Counters,
    failure: BTSnoopReader.Failure?
  ) {
    var decoder = BeaconCaptureDecoder()
    var out: [BeaconAdvertisement] = []
    bytes.withUnsafeBytes { all in
      let step = chunkSize > 0 ? chunkSize : max(all.count, 1)
      var offset = 0
      while offset < all.count {
        let end = min(offset + step, all.count)
        decoder.feed(UnsafeRawBufferPointer(rebasing: all[offset..<end])) { out.append($0) }
        offset = end
      }
    }
    decoder.finish()
    return (out, decoder.counters, decoder.failure)
  }

  /// An advertisement in the CSV's terms.
  static func row(_ a: BeaconAdvertisement) -> Row {
    Row(
      time: a.time.iso8601(fractionDigits: 6), address: a.address.description,
      advType: a.eventType.legacyCode ?? -1,
      uuid: a.payload.identity.uuid.description, major: Int(a.payload.identity.major),
      minor: Int(a.payload.identity.minor), measuredPower: Int(a.payload.advertisedPower),
      rssi: a.rssi.map { Int($0.value) } ?? 127)
  }
}

struct FixtureError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
