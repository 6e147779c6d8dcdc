import LocCore
import LocHost

/// `locctl beacons decode FILE|- [--json]`: prints every beacon advertisement (iBeacon,
/// AltBeacon) in a btsnoop capture without a daemon, then a summary of the counters on stderr.
/// `locctl beacons range|monitor CONSTRAINT`: asks locd (BeaconsLiveCommands).
enum BeaconsCommand {
  static let spec = CommandSpec(
    name: "beacons", summary: "range or monitor iBeacons through locd; decode a btsnoop capture",
    usage: [
      "beacons decode [--json] FILE|-", "beacons range [--json] [--count N] UUID[:MAJOR[:MINOR]]",
      "beacons monitor [--json] [--count N] [--exit-after DURATION] UUID[:MAJOR[:MINOR]]",
    ],
    options: [
      .valued("count", "N", "range, monitor: stop after N lists or region events"),
      .valued("exit-after", "DURATION", "monitor: outside after this long without a beacon (default 30s)"),
    ],
    arguments: [.words(["decode", "range", "monitor"]), .wordsOrFile(["-"])],
    help: """
      decode prints every iBeacon and AltBeacon advertisement in a btsnoop capture (what btmon -w
      and Android's HCI snoop log write): time, address, advertising PDU, format,
      UUID:MAJOR:MINOR, measured power (marked (implausible) outside -100...-20 dBm) and RSSI; a
      summary of counters on standard error; it works offline. Exit status 1 when the file is not
      a readable capture.
      range asks locd to range the beacons matching the constraint (a left-out major or minor
      matches any) and prints each list, about once a second, nearest first. monitor prints the
      region's state, then each change (entered, exited, determined-outside). Both run until
      interrupted or --count; they need read access (beacon identities are location data).
      See BEACONS.md.
      """,
    examples: [
      "locctl beacons decode --json btsnoop_hci.log",
      "locctl beacons range E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1",
    ],
    needsDaemon: false,
    run: { invocation throws(UsageError) in
      let words = invocation.positionals
      guard let first = words.first else { throw UsageError("expected: beacons decode|range|monitor ...") }
      if first == "range" || first == "monitor" { return try BeaconsLiveCommands.run(invocation) }
      guard first == "decode" else {
        throw UsageError(
          "unknown subcommand '\(first)'"
            + Suggestion.hint(for: first, among: ["decode", "range", "monitor"]))
      }
      guard words.count == 2 else {
        throw UsageError("beacons decode: expected one FILE, or - for standard input")
      }
      return decode(path: words[1], json: invocation.json)
    })

  static func decode(path: String, json: Bool) -> Int32 {
    let input: FileDescriptor
    do { input = try FileIO.openInput(path) } catch {
      printError("locctl beacons decode: cannot open \(path): \(error)")
      return ExitStatus.failure
    }

    var decoder = BeaconCaptureDecoder()
    do {
      try FileIO.forEachChunk(of: input) { chunk in
        decoder.feed(chunk) { ad in Output.line(json ? jsonLine(ad) : textLine(ad)) }
        Output.flush()
      }
    } catch {
      Output.flush()
      printError("locctl beacons decode: cannot read \(path): \(error)")
      return ExitStatus.failure
    }
    decoder.finish()
    Output.flush()
    printError("beacons: \(decoder.counters)")
    if let failure = decoder.failure {
      printError("locctl beacons decode: \(path): \(failure)")
      return ExitStatus.failure
    }
    return ExitStatus.ok
  }

  /// `2020-09-19T20:57:10.692548Z a4:c1:38:ec:0b:03 SCAN_RSP ibeacon UUID:MAJOR:MINOR power -62 rssi -66`;
  /// an implausible power is marked `(implausible)`, a missing RSSI is `-`.
  static func textLine(_ ad: BeaconAdvertisement) -> String {
    var s = ad.time.iso8601(fractionDigits: 6)
    s += " \(ad.address) \(ad.eventType) \(ad.payload.format.rawValue) \(ad.payload.identity)"
    let power = Int(ad.payload.advertisedPower)
    s += " power \(power > 0 ? "+" : "")\(power)"
    if ad.payload.calibratedPower == nil { s += " (implausible)" }
    s += " rssi " + (ad.rssi.map { "\(Int($0.value))" } ?? "-")
    return s
  }

  /// One object per advertisement; the RSSI is null when the controller did not report one.
  static func jsonLine(_ ad: BeaconAdvertisement) -> String {
    var o = JSONObject()
    o["time"] = .string(ad.time.iso8601(fractionDigits: 6))
    o["address"] = .string(ad.address.description)
    o["addressType"] = .string(ad.addressType.description)
    o["eventType"] = .string(ad.eventType.description)
    if let code = ad.eventType.legacyCode { o["advType"] = .int(code) }
    o["format"] = .string(ad.payload.format.rawValue)
    o["company"] = .int(Int(ad.payload.companyID))
    o["uuid"] = .string(ad.payload.identity.uuid.description)
    o["major"] = .int(Int(ad.payload.identity.major))
    o["minor"] = .int(Int(ad.payload.identity.minor))
    o["measuredPower"] = .int(Int(ad.payload.advertisedPower))
    o["measuredPowerPlausible"] = .bool(ad.payload.calibratedPower != nil)
    o["rssi"] = .optional(ad.rssi.map { Int($0.value) })
    return JSON.object(o).serialized
  }
}
