import LocCore
import LocSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `locctl tz LAT LON [--json] [--time ISO]`, `locctl tz -`, `locctl tz --version`,
/// `locctl tz --check`: the time zone at a coordinate, from the boundary file (offline, no
/// daemon needed), with its offset and abbreviation now (or at --time) from the system's
/// tzdata.
enum TzCommand: LocctlCommand {
  static let name = "tz"
  static let summary = "the time zone at LAT LON, with its offset now (offline); '-' reads lines"

  static func run(_ arguments: [String], socket: String) -> Int32 {
    guard
      let options = parseOptions(
        arguments, valued: ["time"], flags: ["json", "version", "check"], command: name)
    else { return ExitStatus.usage }
    let json = options.flag("json")
    var instant = now()
    if let text = options.value("time") {
      guard let t = Instant(iso8601: text) else {
        return usageError("--time '\(text)': expected an ISO-8601 UTC instant, e.g. 2026-07-01T12:00:00Z")
      }
      instant = t
    }
    let coordinate: Coordinate?
    switch options.positionals.count {
    case 0 where options.flag("version") || options.flag("check"):
      coordinate = nil
    case 1 where options.positionals[0] == "-":
      coordinate = nil
    case 1:
      guard let c = parseCoordinate(options.positionals[0]) else {
        return badCoordinate(options.positionals[0])
      }
      coordinate = c
    case 2:
      let text = options.positionals[0] + " " + options.positionals[1]
      guard let c = parseCoordinate(text) else { return badCoordinate(text) }
      coordinate = c
    default:
      return usageError("expected LAT LON, LAT,LON or '-' (see 'locctl --help')")
    }

    let file: ZoneBoundaryFile
    do {
      file = try ZoneBoundaryFile.open()
    } catch {
      printError("locctl tz: \(error)")
      return ExitStatus.failure
    }
    let boundaries = file.boundaries
    if options.flag("version") { return version(file, json: json) }
    if options.flag("check") { return check(file) }
    let rules = ZoneDatabase()
    guard let coordinate else { return batch(boundaries, rules: rules, at: instant, json: json) }
    do {
      let zone = try boundaries.zoneName(at: coordinate)
      let local = localTimeType(zone, rules: rules, at: instant)
      if json {
        print(answer(zone, coordinate: coordinate, local: local).serialized)
      } else if let local {
        print("\(zone) UTC\(TimeFormat.utcOffset(seconds: local.utcOffsetSeconds)) \(local.abbreviation)")
      } else {
        print(zone)
      }
      return ExitStatus.ok
    } catch {
      printError("locctl tz: \(file.path): \(error)")
      return ExitStatus.failure
    }
  }

  /// One answer per input line (`LAT,LON` or `LAT LON`); a line that is not a coordinate
  /// gets an empty output line (so outputs stay aligned with inputs), an error on stderr and
  /// exit status 1 at the end.
  static func batch(_ boundaries: ZoneBoundaries, rules: ZoneDatabase, at instant: Instant, json: Bool)
    -> Int32
  {
    var status = ExitStatus.ok
    var number = 0
    while let line = readLine(strippingNewline: true) {
      number += 1
      guard let coordinate = parseCoordinate(line) else {
        printError("locctl tz: line \(number): '\(line)' is not LAT,LON with -90...90, -180...180")
        print("")
        status = ExitStatus.failure
        continue
      }
      do {
        let zone = try boundaries.zoneName(at: coordinate)
        if json {
          let local = localTimeType(zone, rules: rules, at: instant)
          print(answer(zone, coordinate: coordinate, local: local).serialized)
        } else {
          print(zone)
        }
      } catch {
        printError("locctl tz: line \(number): \(error)")
        print("")
        status = ExitStatus.failure
      }
    }
    return status
  }

  /// The zone's local time type at `instant`, or nil (with a note on stderr) when the
  /// system's tzdata does not have the zone.
  static func localTimeType(_ zone: String, rules: ZoneDatabase, at instant: Instant) -> LocalTimeType? {
    do {
      return try rules.rules(named: zone).localTimeType(at: instant)
    } catch {
      printError("locctl tz: no offset for \(zone): \(error)")
      return nil
    }
  }

  /// The documented JSON answer (docs/TIMEZONES.md).
  static func answer(_ zone: String, coordinate: Coordinate, local: LocalTimeType?) -> JSON {
    var object: JSONObject = [
      "latitude": .number(coordinate.latitude.value), "longitude": .number(coordinate.longitude.value),
      "zone": .string(zone),
    ]
    object["utcOffsetSeconds"] = .optional(local?.utcOffsetSeconds)
    object["utcOffset"] = .optional(local.map { TimeFormat.utcOffset(seconds: $0.utcOffsetSeconds) })
    object["abbreviation"] = .optional(local?.abbreviation)
    object["dst"] = local.map { .bool($0.isDaylightSaving) } ?? .null
    return .object(object)
  }

  static func version(_ file: ZoneBoundaryFile, json: Bool) -> Int32 {
    let b = file.boundaries
    if json {
      let object: JSONObject = [
        "boundaryRelease": .string(b.boundaryRelease), "tzdataVersion": .string(b.tzdataVersion),
        "zones": .int(b.zoneNames.count), "path": .string(file.path), "bytes": .int(b.fileSize),
      ]
      print(JSON.object(object).serialized)
    } else {
      print("boundaries: timezone-boundary-builder \(b.boundaryRelease) (OpenStreetMap data, ODbL)")
      print("tzdata: \(b.tzdataVersion)")
      print("zones: \(b.zoneNames.count)")
      print("file: \(file.path) (\(b.fileSize) bytes)")
    }
    return ExitStatus.ok
  }

  /// Reads the whole file: checksum and every node.
  static func check(_ file: ZoneBoundaryFile) -> Int32 {
    do {
      try file.boundaries.verify()
      print("\(file.path): ok")
      return ExitStatus.ok
    } catch {
      printError("locctl tz: \(file.path): \(error)")
      return ExitStatus.failure
    }
  }

  /// "LAT,LON" or "LAT LON" in degrees, spaces around either allowed; nil when not a valid
  /// coordinate (NaN, infinite, or outside -90...90, -180...180).
  static func parseCoordinate(_ text: String) -> Coordinate? {
    let separators: Set<Character> = [",", " ", "\t"]
    let parts = text.split(whereSeparator: { separators.contains($0) })
    let commas = text.filter { $0 == "," }.count
    guard parts.count == 2, commas <= 1, let lat = Double(parts[0]), let lon = Double(parts[1]) else {
      return nil
    }
    return Coordinate(lat: lat, lon: lon)
  }

  static func now() -> Instant {
    var t = timespec()
    clock_gettime(CLOCK_REALTIME, &t)
    return Instant(microsecondsSinceEpoch: Int64(t.tv_sec) * 1_000_000 + Int64(t.tv_nsec / 1000))
  }

  static func badCoordinate(_ text: String) -> Int32 {
    usageError("'\(text)' is not a coordinate: expected LAT LON in degrees, -90...90 and -180...180")
  }

  static func usageError(_ text: String) -> Int32 {
    printError("locctl tz: \(text)")
    return ExitStatus.usage
  }
}
