import Foundation
import Testing

/// `locctl beacons decode`, the built binary on the real captures, checked against the
/// reference CSVs (Tests/Fixtures/beacons, made by an independent decoder).
@Suite struct LocctlBeaconsTests {
  static let captures = [
    "btsnoop_hci", "20230209-h5075-and-h5074-btsnoop_hci", "20240127-h5100-btsnoop_hci",
  ]

  /// The CSV rows of a capture, as field arrays (n, time_utc, address, adv_type, uuid, major,
  /// minor, measured_power, rssi).
  static func rows(_ capture: String) throws -> [[String]] {
    let text = try String(contentsOf: Binaries.fixture("beacons/\(capture).ibeacon.csv"), encoding: .utf8)
    return text.split(whereSeparator: \.isNewline).dropFirst().map {
      $0.split(separator: ",").map(String.init)
    }
  }

  /// The line docs/BEACONS.md says `locctl beacons decode` prints for a CSV row: time,
  /// address, PDU name, format, UUID:MAJOR:MINOR, power (signed, "(implausible)" outside
  /// -100...-20 dBm), RSSI.
  static func expectedLine(_ f: [String]) throws -> String {
    let pdu = [
      "0": "ADV_IND", "1": "ADV_DIRECT_IND", "2": "ADV_SCAN_IND", "3": "ADV_NONCONN_IND", "4": "SCAN_RSP",
    ]
    let power = try #require(Int(f[7]))
    var line = "\(f[1]) \(f[2]) \(try #require(pdu[f[3]])) ibeacon \(f[4]):\(f[5]):\(f[6])"
    line += " power \(power > 0 ? "+" : "")\(power)"
    if !(-100 ... -20).contains(power) { line += " (implausible)" }
    return line + " rssi \(f[8])"
  }

  @Test(arguments: captures)
  func textMatchesTheReference(capture: String) throws {
    let r = try run(
      Binaries.locctl, ["beacons", "decode", Binaries.fixture("beacons/\(capture).btsnoop").path])
    #expect(r.status == 0)
    let lines = r.stdout.split(separator: "\n").map(String.init)
    let expected = try Self.rows(capture).map(Self.expectedLine)
    #expect(lines.count == expected.count)
    for (got, want) in zip(lines, expected) where got != want { Issue.record("got \(got)\nwant \(want)") }
    #expect(r.stderr.hasPrefix("beacons: records "))
    #expect(r.stderr.contains("ibeacon \(expected.count), altbeacon 0"))
  }

  @Test func jsonHasTheReferenceFields() throws {
    let capture = "20240127-h5100-btsnoop_hci"
    let r = try run(
      Binaries.locctl, ["beacons", "decode", "--json", Binaries.fixture("beacons/\(capture).btsnoop").path])
    #expect(r.status == 0)
    let objects = try r.stdout.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    let rows = try Self.rows(capture)
    #expect(objects.count == rows.count)
    for (o, f) in zip(objects, rows) {
      #expect(o["time"] as? String == f[1])
      #expect(o["address"] as? String == f[2])
      #expect(o["advType"] as? Int == Int(f[3]))
      #expect(o["format"] as? String == "ibeacon")
      #expect(o["uuid"] as? String == f[4])
      #expect(o["major"] as? Int == Int(f[5]))
      #expect(o["minor"] as? Int == Int(f[6]))
      #expect(o["measuredPower"] as? Int == Int(f[7]))
      #expect(o["measuredPowerPlausible"] as? Bool == (-100 ... -20).contains(Int(f[7])!))
      #expect(o["rssi"] as? Int == Int(f[8]))
      #expect(o["company"] as? Int == 0x004C)
    }
  }

  @Test func standardInputGivesTheSameAsTheFile() throws {
    let path = Binaries.fixture("beacons/btsnoop_hci.btsnoop").path
    let file = try run(Binaries.locctl, ["beacons", "decode", path])
    let piped = try run(
      URL(fileURLWithPath: "/bin/sh"),
      ["-c", "exec \"$0\" beacons decode - < \"$1\"", Binaries.locctl.path, path])
    #expect(piped.status == 0)
    #expect(piped.stdout == file.stdout)
    #expect(piped.stderr == file.stderr)
  }

  @Test func aCaptureCutShortStillDecodesWhatItHolds() throws {
    // The first 400 kB of a capture, cut inside a record: what came before is printed, the
    // cut record is counted, and that is not an error (captures are cut when btmon stops).
    let bytes = try Data(contentsOf: Binaries.fixture("beacons/20240127-h5100-btsnoop_hci.btsnoop"))
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("locctl-beacons-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let cut = dir.appendingPathComponent("cut.btsnoop")
    try bytes.prefix(400_000).write(to: cut)
    let r = try run(Binaries.locctl, ["beacons", "decode", cut.path])
    #expect(r.status == 0)
    // The reference rows before the cut are the first lines, unchanged.
    let lines = r.stdout.split(separator: "\n").map(String.init)
    let expected = try Self.rows("20240127-h5100-btsnoop_hci").map(Self.expectedLine)
    try #require(!lines.isEmpty && lines.count < expected.count)
    #expect(lines == Array(expected.prefix(lines.count)))
    #expect(r.stderr.contains("truncated records 1"))
  }

  @Test func errorsAreOneClearLine() throws {
    let missing = try run(Binaries.locctl, ["beacons", "decode", "/nonexistent/x.btsnoop"])
    #expect(missing.status == 1)
    #expect(
      missing.stderr.hasPrefix(
        "locctl beacons decode: cannot open /nonexistent/x.btsnoop: open: No such file"))
    let nmea = Binaries.fixture("nmea/bu353s4.log").path
    let wrong = try run(Binaries.locctl, ["beacons", "decode", nmea])
    #expect(wrong.status == 1)
    #expect(wrong.stdout.isEmpty)
    #expect(
      wrong.stderr.hasSuffix("locctl beacons decode: \(nmea): not a btsnoop file (no btsnoop magic)\n"))
    #expect(try run(Binaries.locctl, ["beacons"]).status == 2)
    #expect(try run(Binaries.locctl, ["beacons", "decode"]).status == 2)
    #expect(try run(Binaries.locctl, ["beacons", "frobnicate", "x"]).status == 2)
    #expect(try run(Binaries.locctl, ["beacons", "decode", "--frobnicate", "x"]).status == 2)
  }
}
