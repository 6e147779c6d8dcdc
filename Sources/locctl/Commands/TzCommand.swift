import LocCore
import LocHost

/// `locctl tz LAT,LON [--time ISO] [--json]`, `locctl tz -`, `locctl tz --version`,
/// `locctl tz --check`: the time zone at a coordinate, from the boundary file (offline, no
/// daemon needed), with its offset and abbreviation now (or at --time) from the system's tzdata.
enum TzCommand {
  static let spec = CommandSpec(
    name: "tz", summary: "the time zone at a place, with its offset now (offline); '-' reads lines",
    usage: [
      "tz LAT,LON [--time TIME] [--json]", "tz - [--time TIME] [--json]", "tz --version [--json]",
      "tz --check",
    ],
    options: [
      .valued(
        "time", "TIME",
        "the offset and abbreviation at this time (default now by this machine's clock): " + TimeText.forms),
      .flag("version", "the boundary data's release and tzdata version, the zone count and the file"),
      .flag("check", "read the whole boundary file and verify it"),
    ],
    arguments: [.words(["-"])],
    help: """
      The IANA zone at a coordinate (LAT,LON or LAT LON, any form of COORDINATES in locctl(1)) from the boundary data,
      with its UTC offset and abbreviation from this machine's tzdata. '-' reads one coordinate per
      line on standard input and prints one zone per line, in order; a line that is not a
      coordinate gets an empty line and a message on standard error, and the exit status is 1 at
      the end. --json: one object per answer: lat, lon, timezone, offset (seconds east), utcOffset,
      abbreviation, dst. Without --time the offset is that of now by this machine's clock (tz asks
      no daemon). --time takes ISO 8601 with or without seconds: 2026-06-21T12:00Z, an offset
      (2026-06-21T14:00+02:00), a wall time in a named zone (2026-06-21T14:00[Europe/Oslo]), or a
      wall time in this machine's zone (2026-06-21T14:00: TZ, else /etc/localtime); a wall time
      the zone skips or shows twice is refused with the offsets to choose from. See TIMEZONES.md.
      """,
    examples: [
      "locctl tz 59.9139,10.7522", "locctl tz 59.9139,10.7522 --time '2026-03-29T02:30[Europe/Oslo]'",
      "cut -d, -f2,3 points.csv | locctl tz -",
    ],
    needsDaemon: false, run: run)

  static func run(_ invocation: Invocation) throws(UsageError) -> Int32 {
    let json = invocation.json
    var instant = ScreenZone.now()
    if let text = invocation.value("time") { instant = try TimeText.instant(text, option: "time") }
    let words = invocation.positionals
    let stream = words == ["-"]
    var coordinate: Coordinate? = nil
    if invocation.flag("version") || invocation.flag("check") {
      guard words.isEmpty else { throw UsageError("--version and --check take no coordinate") }
    } else if !stream {
      coordinate = try invocation.positionalCoordinate().coordinate
    }

    let file: ZoneBoundaryFile
    do { file = try ZoneBoundaryFile.open() } catch {
      printError("locctl tz: \(error)")
      return ExitStatus.failure
    }
    if invocation.flag("version") { return version(file, json: json) }
    if invocation.flag("check") { return check(file) }
    let rules = ZoneDatabase()
    guard let coordinate else {
      let status = TzStream(file: file, rules: rules, instant: instant, json: json).run()
      return status
    }
    do {
      let zone = try file.zoneName(at: coordinate)
      let local = localTimeType(zone, rules: rules, at: instant)
      if json {
        Output.line(answer(zone, coordinate: coordinate, local: local).serialized)
      } else if let local {
        Output.line(
          "\(zone) UTC\(TimeFormat.utcOffset(seconds: local.utcOffsetSeconds)) \(local.abbreviation)")
      } else {
        Output.line(zone)
      }
      return ExitStatus.ok
    } catch {
      printError("locctl tz: \(file.path): \(error)")
      return ExitStatus.failure
    }
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
      "lat": .number(coordinate.latitude.value), "lon": .number(coordinate.longitude.value),
    ]
    for (key, value) in zoneMembers(zone, local: local) { object[key] = value }
    return .object(object)
  }

  /// The members after `lat` and `lon`: `timezone`, `offset`, `utcOffset`, `abbreviation`, `dst`.
  static func zoneMembers(_ zone: String, local: LocalTimeType?) -> [(String, JSON)] {
    [
      ("timezone", .string(zone)), ("offset", .optional(local?.utcOffsetSeconds)),
      ("utcOffset", .optional(local.map { TimeFormat.utcOffset(seconds: $0.utcOffsetSeconds) })),
      ("abbreviation", .optional(local?.abbreviation)),
      ("dst", local.map { .bool($0.isDaylightSaving) } ?? .null),
    ]
  }

  static func version(_ file: ZoneBoundaryFile, json: Bool) -> Int32 {
    let b = file.boundaries
    if json {
      let object: JSONObject = [
        "boundaryRelease": .string(b.boundaryRelease), "tzdataVersion": .string(b.tzdataVersion),
        "zones": .int(b.zoneNames.count), "path": .string(file.path), "bytes": .int(b.fileSize),
      ]
      Output.line(JSON.object(object).serialized)
    } else {
      Output.line("boundaries: timezone-boundary-builder \(b.boundaryRelease) (OpenStreetMap data, ODbL)")
      Output.line("tzdata: \(b.tzdataVersion)")
      Output.line("zones: \(b.zoneNames.count)")
      Output.line("file: \(file.path) (\(b.fileSize) bytes)")
    }
    return ExitStatus.ok
  }

  /// Reads the whole file: checksum and every node.
  static func check(_ file: ZoneBoundaryFile) -> Int32 {
    do {
      try file.boundaries.verify()
      Output.line("\(file.path): ok")
      return ExitStatus.ok
    } catch {
      printError("locctl tz: \(file.path): \(error)")
      return ExitStatus.failure
    }
  }
}
