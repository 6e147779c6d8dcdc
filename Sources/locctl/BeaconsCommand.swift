import LocCore
import LocSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `locctl beacons decode FILE|- [--json]`: prints every beacon advertisement (iBeacon,
/// AltBeacon) in a btsnoop capture without a daemon, then a summary of the counters on stderr.
/// `locctl beacons range|monitor CONSTRAINT`: asks locd (BeaconsLiveCommands).
enum BeaconsCommand: LocctlCommand {
  static let name = "beacons"
  static let summary = "range or monitor iBeacons through locd; decode a btsnoop capture"

  static let usage = """
    usage: locctl beacons decode [--json] FILE|-
           locctl beacons range [--json] [--count N] UUID[:MAJOR[:MINOR]]
           locctl beacons monitor [--json] [--count N] [--exit-after SECONDS] UUID[:MAJOR[:MINOR]]
    """

  static func run(_ arguments: [String], socket: String) -> Int32 {
    guard
      let options = parseOptions(
        arguments, valued: ["count", "exit-after"], flags: ["json", "help"], command: "beacons")
    else {
      return ExitStatus.usage
    }
    if options.flag("help") {
      print(usage)
      return ExitStatus.ok
    }
    let words = options.positionals
    if words.first == "range" || words.first == "monitor" {
      return BeaconsLiveCommands.run(words, options: options, socket: socket)
    }
    guard words.first == "decode" else {
      printError("locctl: beacons: " + (words.first.map { "unknown subcommand \($0); " } ?? "") + usage)
      return ExitStatus.usage
    }
    guard words.count == 2 else {
      printError("locctl: beacons decode: expected one FILE, or - for standard input; " + usage)
      return ExitStatus.usage
    }
    return decode(path: words[1], json: options.flag("json"))
  }

  static func decode(path: String, json: Bool) -> Int32 {
    let input: FileDescriptor
    do { input = try FileIO.openInput(path) } catch {
      printError("locctl: beacons decode: cannot open \(path): \(error)")
      return ExitStatus.failure
    }

    var decoder = BeaconCaptureDecoder()
    var out = ""
    out.reserveCapacity(1 << 16)
    do {
      try FileIO.forEachChunk(of: input) { chunk in
        decoder.feed(chunk) { ad in
          out += json ? jsonLine(ad) : textLine(ad)
          out += "\n"
        }
        flush(&out)
      }
    } catch {
      printError("locctl: beacons decode: cannot read \(path): \(error)")
      return ExitStatus.failure
    }
    decoder.finish()
    flush(&out)
    printError("beacons: \(decoder.counters)")
    if let failure = decoder.failure {
      printError("locctl: beacons decode: \(path): \(failure)")
      return ExitStatus.failure
    }
    return ExitStatus.ok
  }

  private static func flush(_ out: inout String) {
    guard !out.isEmpty else { return }
    StandardStreams.writeOutput(out)
    StandardStreams.flushOutput()
    out.removeAll(keepingCapacity: true)
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
