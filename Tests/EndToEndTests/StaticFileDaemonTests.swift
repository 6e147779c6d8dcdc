import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// The static location file against the real locd: no receiver (a replay of an empty log,
/// which finishes at once), `[Position] StaticFile=` in a temporary directory, the file
/// written, replaced, edited in place and removed while locd runs; and where-am-i (geoclue's
/// demo, the real program) through locd's GeoClue2 face on a private system-like bus.
@Suite(.serialized) struct StaticFileDaemonTests {
  static let office = "# the office\n59.9139  # latitude\n10.7522  # longitude\n23\n15  # accuracy\n"
  static let moved = "59.9639\n10.7522\n23\n15\n"
  static let edited = "59.9339\n10.7522\n23\n30\n"

  /// locd with the static file at `dir/geolocation` and no GNSS fixes.
  static func locd(in dir: String, config: String = "", environment: [String: String] = [:]) throws
    -> LocdProcess
  {
    FileManager.default.createFile(atPath: dir + "/empty.nmea", contents: Data())
    return try LocdProcess(
      arguments: ["--source", "replay:\(dir)/empty.nmea"], environment: environment, directory: dir,
      config: "[Position]\nStaticFile=\(dir)/geolocation\n" + config)
  }

  /// Writes `text` over `path` in place (open with O_TRUNC, write, close), as an editor that
  /// does not rename does.
  static func overwrite(_ path: String, _ text: String) {
    let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
    precondition(fd >= 0)
    _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
  }

  @Test func theFileEditedAndRemovedWhileLocdRunsMovesAndThenClearsThePosition() throws {
    let dir = LocdProcess.makeDirectory()
    let file = dir + "/geolocation"
    try Self.office.write(toFile: file, atomically: true, encoding: .utf8)
    let locd = try Self.locd(in: dir)
    // At start: the file's place, as a configured one (tier manual) of provenance static.
    var s = try locd.waitForStatus { $0.position.provenance == .known(.staticFile) }
    #expect(s.position.tier == .manual && s.position.position?.accuracy == Meters(15))
    #expect(s.position.position?.coordinate.latitude.value == 59.9139)
    #expect(s.position.position?.source == "static:\(file)")
    #expect(s.staticFile?.path == file && s.staticFile?.inUse == true && s.staticFile?.problem == nil)
    #expect(s.timezone.zone.id == "Europe/Oslo")

    // Replaced by rename (what `write(atomically:)` and configuration managers do).
    try Self.moved.write(toFile: file, atomically: true, encoding: .utf8)
    s = try locd.waitForStatus { $0.position.position?.coordinate.latitude.value == 59.9639 }
    #expect(s.position.provenance == .known(.staticFile))

    // Edited in place.
    Self.overwrite(file, Self.edited)
    s = try locd.waitForStatus { $0.position.position?.accuracy == Meters(30) }
    #expect(s.position.position?.coordinate.latitude.value == 59.9339)

    // Broken: no position, and the line that is wrong.
    Self.overwrite(file, "59.9339\nten east\n23\n30\n")
    s = try locd.waitForStatus { $0.staticFile?.problem != nil }
    #expect(s.staticFile?.problem == "line 2: the longitude is not a number")
    #expect(s.staticFile?.inUse == false && s.position.tier == .none)

    // Back, then removed: the position clears (no receiver, no cached or manual position).
    Self.overwrite(file, Self.office)
    _ = try locd.waitForStatus { $0.position.provenance == .known(.staticFile) }
    try FileManager.default.removeItem(atPath: file)
    s = try locd.waitForStatus { $0.position.tier == .none }
    #expect(s.position.provenance == nil && s.staticFile?.inUse == false && s.staticFile?.problem == nil)
    #expect(locd.log.contains("static location cleared (\(file) is gone)"), "\(locd.log)")
    // Never written to the state file: the file is its own record.
    #expect(locd.stop() == 0)
    let state = (try? String(contentsOfFile: locd.stateDirectory + "/state.json", encoding: .utf8)) ?? ""
    #expect(!state.contains("59.9"), "\(state)")
  }

  /// Issue 40, item 4. Before: `0x3b` was read as 59 (strtod's hexadecimal), and an accuracy of
  /// 1e-300 m and an altitude of 1e308 m were taken, the position shown as ±0 m. Each is now
  /// refused, status naming the line and the value (docs/SOURCES.md, "Bounds").
  @Test func aHexadecimalNumberAnAccuracyOf1eMinus300AndAnAltitudeOf1e308AreRefused() throws {
    let dir = LocdProcess.makeDirectory()
    let file = dir + "/geolocation"
    try "0x3b\n10.7522\n23\n15\n".write(toFile: file, atomically: true, encoding: .utf8)
    let locd = try Self.locd(in: dir)
    var s = try locd.waitForStatus { $0.staticFile?.problem != nil }
    #expect(s.staticFile?.problem == "line 1: the latitude 0x3b is hexadecimal, not a decimal number")
    #expect(s.position.tier == .none && s.staticFile?.inUse == false)

    Self.overwrite(file, "59.9139\n10.7522\n23\n1e-300\n")
    s = try locd.waitForStatus { $0.staticFile?.problem?.hasPrefix("line 4") == true }
    #expect(
      s.staticFile?.problem
        == "line 4: the accuracy 1e-300 m is below 0.01 m (no machine's place is known to less than a centimetre)"
    )
    #expect(s.position.tier == .none)
    var entry = try #require(s.outOfBounds?.recent.last)
    #expect(entry.source == "static:\(file)" && entry.provenance == .known(.staticFile))
    #expect(entry.field == .known(.accuracy) && entry.value == 1e-300 && entry.bound == 0.01)
    #expect(entry.action == .known(.refused))

    Self.overwrite(file, "59.9139\n10.7522\n1e308\n15\n")
    s = try locd.waitForStatus { $0.staticFile?.problem?.hasPrefix("line 3") == true }
    #expect(s.staticFile?.problem == "line 3: the altitude 1e+308 m is outside -11000…100000 m")
    entry = try #require(s.outOfBounds?.recent.last)
    #expect(entry.field == .known(.altitude) && entry.value == 1e308 && entry.bound == 100_000)
    #expect(s.outOfBounds?.refused == 2)
    let text = try locd.locctl(["status"]).stdout
    #expect(text.contains("line 3: the altitude 1e+308 m is outside"), "\(text)")
    #expect(
      text.contains("altitude 1e+308 m is above 100000 m: refused — static from static:\(file)"), "\(text)")

    // Fixed: the position is the file's.
    Self.overwrite(file, Self.office)
    s = try locd.waitForStatus { $0.position.provenance == .known(.staticFile) }
    #expect(s.position.position?.accuracy == Meters(15) && s.staticFile?.problem == nil)
    #expect(locd.stop() == 0)
  }

  /// `locctl status` leaves out the default /etc/geolocation while it is absent (most
  /// machines), and shows a file StaticFile= names even while that one is absent.
  @Test(.enabled(if: access("/etc/geolocation", F_OK) != 0, "this machine has an /etc/geolocation"))
  func theDefaultFileAbsentIsNotShownAndAConfiguredOneIs() throws {
    let dir = LocdProcess.makeDirectory()
    FileManager.default.createFile(atPath: dir + "/empty.nmea", contents: Data())
    let plain = try LocdProcess(arguments: ["--source", "replay:\(dir)/empty.nmea"], directory: dir)
    #expect(try plain.status().staticFile == nil)
    let text = try plain.locctl(["status"]).stdout
    // The file is named only as the remedy's step (issue 43, item 4: "To fix" names it).
    let naming = text.split(separator: "\n").filter { $0.contains("/etc/geolocation") }
    #expect(!text.contains("Static file:") && naming.allSatisfy { $0.hasPrefix("To fix:") }, "\(text)")
    #expect(plain.stop() == 0)
    let other = LocdProcess.makeDirectory()
    let locd = try Self.locd(in: other)
    let s = try locd.waitForStatus { $0.staticFile != nil }
    #expect(s.staticFile?.path == other + "/geolocation" && s.staticFile?.inUse == false)
    let shown = try locd.locctl(["status"]).stdout
    #expect(shown.contains("Static file:") && shown.contains("\(other)/geolocation: absent"), "\(shown)")
    #expect(locd.stop() == 0)
  }

  @Test func locctlStatusAndWatchNameTheProvenance() throws {
    let dir = LocdProcess.makeDirectory()
    try Self.office.write(toFile: dir + "/geolocation", atomically: true, encoding: .utf8)
    let locd = try Self.locd(in: dir)
    _ = try locd.waitForStatus { $0.position.provenance == .known(.staticFile) }
    let text = try locd.locctl(["status"]).stdout
    #expect(text.contains("static"), "\(text)")
    #expect(text.contains("Static file:") && text.contains("\(dir)/geolocation: in use"), "\(text)")
    // Issue 43, item 5: it was "(manual, static)" and the zone "at the manual location".
    #expect(text.contains("(static file") && !text.contains("manual, static"), "\(text)")
    #expect(text.contains("at the static location") && !text.contains("at the manual location"), "\(text)")
    // The watch says the same words (it said "manual static").
    let out = dir + "/watch.txt"
    let fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let watch = try Child(Binaries.locctl.path, ["--socket", locd.socketPath, "watch"], stdoutFD: fd)
    close(fd)
    defer {
      kill(watch.pid, SIGTERM)
      watch.wait(timeout: 5)
    }
    let watched = try waitForFile(out) { $0.contains("location") }
    #expect(watched.contains("location  static file ") && !watched.contains("manual static"), "\(watched)")
    #expect(locd.stop() == 0)
  }

  @Test(
    .enabled(if: GeoCluePrograms.busInstalled, "needs dbus-daemon, busctl, python3-dbus and python3-gi"),
    .enabled(if: GeoCluePrograms.demosInstalled, "needs geoclue-2-demo"))
  func whereAmIGetsTheStaticPositionThroughTheGeoClueFace() throws {
    let bus = try PrivateSystemBus(policies: [GeoClueBusTests.policy])
    let dir = LocdProcess.makeDirectory()
    try Self.office.write(toFile: dir + "/geolocation", atomically: true, encoding: .utf8)
    let locd = try Self.locd(in: dir, config: "[GeoClue]\nEnable=yes\n", environment: bus.environment)
    guard bus.waitForOwner("org.freedesktop.GeoClue2") else {
      throw HarnessError("locd did not take org.freedesktop.GeoClue2: \(locd.log)")
    }
    _ = try locd.waitForStatus { $0.position.provenance == .known(.staticFile) }
    // The locd test agent (Tests/Peers/geoclue-agent.py, a python3-dbus stand-in for a
    // desktop's agent) allows every app.
    let agent = try LinePeer(
      GeoCluePrograms.peer("geoclue-agent.py"), ["8", "yes"], environment: bus.environment,
      output: bus.directory + "/agent.out")
    defer { agent.stop() }
    guard agent.waitFor("ready") else { throw HarnessError("the agent did not register: \(agent.text)") }
    let level = try bus.busctl([
      "get-property", "org.freedesktop.GeoClue2", "/org/freedesktop/GeoClue2/Manager",
      "org.freedesktop.GeoClue2.Manager", "AvailableAccuracyLevel",
    ])
    #expect(level.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "u 8", "\(level.stdout)")
    let out = try runClient(GeoCluePrograms.whereAmI, ["-t", "5", "-a", "8"], on: bus)
    // where-am-i prints each value with %f (six decimals).
    #expect(out.contains("Latitude:    59.913900°"), "\(out)\n\(locd.log)")
    #expect(out.contains("Longitude:   10.752200°"), "\(out)")
    #expect(out.contains("Accuracy:    15.000000 meters"), "\(out)")
    #expect(out.contains("Description: static"), "\(out)")
    #expect(locd.stop() == 0)
  }
}
