import Foundation
import LocCore
import LocSystem
import Testing

/// Runs a program and returns its standard output.
private func output(of program: String, _ arguments: [String]) throws -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: program)
  process.arguments = arguments
  let pipe = Pipe()
  process.standardOutput = pipe
  try process.run()
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return String(decoding: data, as: UTF8.self)
}

/// Every zone file name under a zoneinfo directory (no posix/, right/, tables or aliases files).
private func allZoneNames(in directory: String) -> [String] {
  let skip: Set<String> = ["posixrules", "localtime", "Factory", "leapseconds", "tzdata.zi", "SECURITY"]
  var names: [String] = []
  let enumerator = FileManager.default.enumerator(atPath: directory)
  while let path = enumerator?.nextObject() as? String {
    if path.hasPrefix("posix") || path.hasPrefix("right") || path.contains(".") { continue }
    if skip.contains(path) { continue }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory),
      !isDirectory.boolValue
    {
      names.append(path)
    }
  }
  return names.sorted()
}

/// Every change of local time type from `start` to `end`.
private func transitions(_ zone: ZoneRules, from start: Instant, to end: Instant) -> [ZoneRules.Transition] {
  var out: [ZoneRules.Transition] = []
  var t = start
  while let next = zone.nextTransition(after: t), next.instant < end {
    out.append(next)
    t = next.instant
  }
  return out
}

/// One line of `zdump -v`: the local time type at an instant.
private struct ZdumpRow {
  var instant: Instant
  var abbreviation: String
  var isDST: Bool
  var offset: Int
}

/// `zdump -v -c YEARS` for `zones` (from `directory`, default the system's), by zone.
private func zdump(_ zones: [String], years: String, directory: String? = nil) throws -> [String: [ZdumpRow]]
{
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/zdump")
  process.arguments = ["-v", "-c", years] + zones
  if let directory {
    var env = ProcessInfo.processInfo.environment
    env["TZDIR"] = directory
    process.environment = env
  }
  let pipe = Pipe()
  process.standardOutput = pipe
  try process.run()
  let report = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  // Lines: "ZONE  Sun Mar 31 00:59:59 2024 UT = Sun Mar 31 01:59:59 2024 CET isdst=0 gmtoff=3600",
  // in pairs: the last second before a change and the first second after it.
  var out: [String: [ZdumpRow]] = [:]
  let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
  for line in report.split(separator: "\n") {
    let f = line.split(separator: " ", omittingEmptySubsequences: true)
    guard f.count == 16, f[6] == "UT", let month = months.firstIndex(of: String(f[2])),
      let day = Int(f[3]), let year = Int(f[5]), let date = CivilDate(year: year, month: month + 1, day: day),
      let offset = Int(f[15].dropFirst("gmtoff=".count))
    else { continue }
    let hms = f[4].split(separator: ":").compactMap { Int($0) }
    guard hms.count == 3 else { continue }
    let instant = Instant(utc: date, hour: hms[0], minute: hms[1], second: hms[2])
    out[String(f[0]), default: []].append(
      ZdumpRow(
        instant: instant, abbreviation: String(f[13]),
        isDST: f[14] == "isdst=1", offset: offset))
  }
  return out
}

/// Checks `zone` against zdump's rows: the type at every listed second, and that chaining
/// nextTransition gives exactly zdump's changes. Returns the number of rows checked.
private func agree(_ zone: ZoneRules, _ rows: [ZdumpRow]) -> Int {
  for row in rows {
    let type = zone.localTimeType(at: row.instant)
    #expect(
      type.utcOffsetSeconds == row.offset && type.abbreviation == row.abbreviation
        && type.isDaylightSaving == row.isDST, "\(zone.name) at \(row.instant.iso8601())")
  }
  let changes = stride(from: 1, to: rows.count, by: 2).map { rows[$0].instant }
  if let first = changes.first, let last = changes.last {
    let ours = transitions(zone, from: first.adding(seconds: -1), to: last.adding(seconds: 1))
    #expect(ours.map(\.instant) == changes, "\(zone.name)")
  }
  return rows.count
}

@Suite struct ZoneDatabaseTests {
  /// Zones with awkward histories: half-hour and 45-minute offsets, midnight changes, the date
  /// line, negative DST, double summer time, zones whose rules changed recently.
  static let zdumpZones = [
    "Europe/Paris", "Europe/London", "Europe/Dublin", "Europe/Moscow", "Europe/Lisbon", "Europe/Oslo",
    "Europe/Kyiv", "Europe/Istanbul", "America/New_York", "America/Los_Angeles", "America/Phoenix",
    "America/Anchorage", "America/Santiago", "America/Sao_Paulo", "America/Mexico_City", "America/St_Johns",
    "America/Nuuk", "America/Havana", "America/Asuncion", "America/Argentina/Ushuaia", "America/Caracas",
    "Africa/Cairo", "Africa/Casablanca", "Africa/Johannesburg", "Asia/Tehran", "Asia/Kathmandu",
    "Asia/Kolkata", "Asia/Gaza", "Asia/Jerusalem", "Asia/Shanghai", "Asia/Tokyo", "Asia/Almaty",
    "Asia/Pyongyang", "Australia/Lord_Howe", "Australia/Sydney", "Australia/Adelaide", "Australia/Eucla",
    "Pacific/Chatham", "Pacific/Apia", "Pacific/Kiritimati", "Pacific/Auckland", "Pacific/Norfolk",
    "Pacific/Easter", "Antarctica/Troll", "Antarctica/McMurdo", "Atlantic/Azores", "Etc/GMT-14",
  ]

  @Test func agreesWithZdumpOnEveryTransition() throws {
    let db = ZoneDatabase()
    let expected = try zdump(Self.zdumpZones, years: "1900,2045")
    #expect(expected.count == Self.zdumpZones.count - 1)  // Etc/GMT-14 never changes
    var checked = 0
    for name in Self.zdumpZones {
      checked += agree(try db.rules(named: name), expected[name] ?? [])
    }
    #expect(checked > 5000)
  }

  @Test func slimFilesGiveTheSameAnswersAsFatFiles() throws {
    // zic -b slim leaves out every transition the footer rule can produce (RFC 8536 §3.3), so
    // this exercises the footer for all zones; Debian ships "fat" files.
    let slimDirectory = FileManager.default.temporaryDirectory
      .appendingPathComponent("locd-slim-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: slimDirectory) }
    _ = try output(
      of: "/usr/sbin/zic", ["-b", "slim", "-d", slimDirectory, "/usr/share/zoneinfo/tzdata.zi"])
    let fat = ZoneDatabase()
    let slim = ZoneDatabase(directory: slimDirectory)
    let names = allZoneNames(in: slimDirectory)
    #expect(names.count > 300)
    let start = Instant(iso8601: "1960-01-01T00:00:00Z")!
    let end = Instant(iso8601: "2100-01-01T00:00:00Z")!
    var differing: [String] = []
    var footers = 0
    for name in names {
      let a = try fat.rules(named: name)
      let b = try slim.rules(named: name)
      if b.footer?.daylight != nil { footers += 1 }
      if transitions(a, from: start, to: end) != transitions(b, from: start, to: end) {
        differing.append(name)
      }
    }
    #expect(footers > 50)
    // zic's slim output itself changes a few zones (tzdata 2025b: America/Ojinaga in 2022, the
    // Palestinian predictions after 2073); there zdump must see the same difference, and we
    // must agree with zdump on the slim files.
    #expect(differing.count < 10, "\(differing)")
    if !differing.isEmpty {
      let fatDump = try zdump(differing, years: "1960,2100")
      let slimDump = try zdump(differing, years: "1960,2100", directory: slimDirectory)
      for name in differing {
        #expect(fatDump[name]?.map(\.instant) != slimDump[name]?.map(\.instant), "\(name)")
        _ = agree(try slim.rules(named: name), slimDump[name] ?? [])
      }
    }
  }

  @Test func rejectsNamesOutsideTheDatabase() {
    let db = ZoneDatabase()
    for bad in [
      "", "/etc/passwd", "../../etc/passwd", "Europe/../../etc/passwd", "Europe/", "Europe//Oslo",
      "./Europe/Oslo", "Europe/Oslo\0",
    ] {
      #expect(!ZoneDatabase.isValidName(bad), "\(bad)")
      #expect(throws: ZoneDatabase.LoadError.self) { try db.rules(named: bad) }
    }
    #expect(ZoneDatabase.isValidName("America/Argentina/Buenos_Aires"))
    #expect(ZoneDatabase.isValidName("Etc/GMT+3"))
    #expect(throws: ZoneDatabase.LoadError.self) { try db.rules(named: "Mars/Olympus_Mons") }
    do {
      _ = try db.rules(named: "Mars/Olympus_Mons")
    } catch {
      #expect(error.description == "unknown time zone 'Mars/Olympus_Mons'")
    }
  }

  @Test func readsTZDIRAndCaches() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("locd-tzdir-\(getpid())")
    defer { try? FileManager.default.removeItem(at: dir) }
    try FileManager.default.createDirectory(
      at: dir.appendingPathComponent("Test"), withIntermediateDirectories: true)
    let file = dir.appendingPathComponent("Test/Zone")
    try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Asia/Kathmandu", toPath: file.path)
    let db = ZoneDatabase(directory: dir.path)
    let zone = try db.rules(named: "Test/Zone")
    #expect(zone.name == "Test/Zone")
    #expect(zone.utcOffsetSeconds(at: Instant(iso8601: "2024-01-01T00:00:00Z")!) == 20_700)
    // Cached: the file is gone but the zone is still there until flush().
    try FileManager.default.removeItem(at: file)
    #expect(try db.rules(named: "Test/Zone").name == "Test/Zone")
    db.flush()
    #expect(throws: ZoneDatabase.LoadError.self) { try db.rules(named: "Test/Zone") }
    // Not TZif.
    try Data("not a zone".utf8).write(to: file)
    #expect(throws: ZoneDatabase.LoadError.self) { try db.rules(named: "Test/Zone") }
  }

  @Test func systemZoneNameFromTZSymlinkOrFile() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("locd-systz-\(getpid())")
    defer { try? FileManager.default.removeItem(at: dir) }
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let link = dir.appendingPathComponent("localtime").path
    let file = dir.appendingPathComponent("timezone").path
    try FileManager.default.createSymbolicLink(
      atPath: link, withDestinationPath: "/usr/share/zoneinfo/America/Argentina/Ushuaia")
    try Data("Europe/Oslo\n".utf8).write(to: URL(fileURLWithPath: file))
    #expect(
      ZoneDatabase.systemZoneName(environment: "Asia/Tokyo", localtime: link, timezoneFile: file)
        == "Asia/Tokyo")
    #expect(
      ZoneDatabase.systemZoneName(environment: ":Asia/Tokyo", localtime: link, timezoneFile: file)
        == "Asia/Tokyo")
    #expect(
      ZoneDatabase.systemZoneName(
        environment: "/usr/share/zoneinfo/posix/Asia/Tokyo", localtime: link, timezoneFile: file)
        == "Asia/Tokyo")
    #expect(
      ZoneDatabase.systemZoneName(environment: nil, localtime: link, timezoneFile: file)
        == "America/Argentina/Ushuaia")
    #expect(
      ZoneDatabase.systemZoneName(environment: "", localtime: dir.path + "/none", timezoneFile: file)
        == "Europe/Oslo")
    #expect(
      ZoneDatabase.systemZoneName(
        environment: nil, localtime: dir.path + "/none", timezoneFile: dir.path + "/none")
        == nil)
  }
}
