import LocCore
import LocSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `locctl beacons decode FILE|- [--json]`: prints every beacon advertisement (iBeacon,
/// AltBeacon) in a btsnoop capture without a daemon, then a summary of the counters on stderr.
enum BeaconsCommand {
  static let spec = CommandSpec(
    name: "beacons", summary: "decode the beacon advertisements in a btsnoop capture (offline)",
    usage: ["beacons decode [--json] FILE|-"], arguments: [.words(["decode"]), .wordsOrFile(["-"])],
    help: """
      Prints every iBeacon and AltBeacon advertisement in a btsnoop capture (what btmon -w and
      Android's HCI snoop log write): time, address, advertising PDU, format, UUID:MAJOR:MINOR,
      measured power (marked (implausible) outside -100...-20 dBm) and RSSI; a summary of counters
      on standard error. Exit status 1 when the file is not a readable capture. See BEACONS.md.
      """,
    examples: ["locctl beacons decode --json btsnoop_hci.log"],
    needsDaemon: false,
    run: { invocation throws(UsageError) in
      let words = invocation.positionals
      guard let first = words.first else { throw UsageError("expected: beacons decode FILE|-") }
      guard first == "decode" else {
        throw UsageError("unknown subcommand '\(first)'" + Suggestion.hint(for: first, among: ["decode"]))
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
