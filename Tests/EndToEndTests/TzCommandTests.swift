import Foundation
import LocCore
import Testing

/// `locctl tz`, through the built binary.
@Suite struct TzCommandTests {
  @Test func zoneOffsetAndAbbreviation() throws {
    let winter = try run(Binaries.locctl, ["tz", "59.9139", "10.7522", "--time", "2026-01-15T12:00:00Z"])
    #expect(winter.status == 0, "\(winter.stderr)")
    #expect(winter.stdout == "Europe/Oslo UTC+01:00 CET\n")
    let summer = try run(Binaries.locctl, ["tz", "59.9139,10.7522", "--time", "2026-07-15T12:00:00Z"])
    #expect(summer.stdout == "Europe/Oslo UTC+02:00 CEST\n")
    // Southern hemisphere, a negative latitude as the first word, and a 45-minute offset.
    let kathmandu = try run(Binaries.locctl, ["tz", "27.7172", "85.324", "--time", "2026-01-15T12:00:00Z"])
    #expect(kathmandu.stdout == "Asia/Kathmandu UTC+05:45 +0545\n")
    let capeTown = try run(Binaries.locctl, ["tz", "-33.9249", "18.4241", "--time", "2026-01-15T12:00:00Z"])
    #expect(capeTown.stdout == "Africa/Johannesburg UTC+02:00 SAST\n")
  }

  /// Issue 26, item 8: --time in ISO 8601 without seconds, with offsets, and as a wall time in a
  /// named zone or this machine's. Oslo's clocks went from 02:00 CET to 03:00 CEST on
  /// 2026-03-29 at 01:00Z (EU rule: last Sunday of March, 01:00 UTC), so the abbreviation says
  /// on which side of that instant each form lands.
  @Test func timeArgumentsInISO8601FormsAndNamedZones() throws {
    func tz(_ time: String, environment: [String: String] = [:]) throws -> String {
      let r = try run(Binaries.locctl, ["tz", "59.9139,10.7522", "--time", time], environment: environment)
      #expect(r.status == 0, "\(time): \(r.stderr)")
      return r.stdout
    }
    let cet = "Europe/Oslo UTC+01:00 CET\n"
    let cest = "Europe/Oslo UTC+02:00 CEST\n"
    #expect(try tz("2026-03-29T00:59Z") == cet)
    #expect(try tz("2026-03-29T01:00Z") == cest)
    #expect(try tz("2026-03-29T00:59:59.5Z") == cet)
    #expect(try tz("2026-03-29t01:00z") == cest)
    #expect(try tz("2026-03-29T01:59+01:00") == cet)  // 00:59Z
    #expect(try tz("2026-03-29T03:00+0200") == cest)  // 01:00Z
    #expect(try tz("2026-03-28T20:00-05") == cest)  // 01:00Z
    #expect(try tz("2026-03-29T01:59[Europe/Oslo]") == cet)  // 00:59Z
    #expect(try tz("2026-03-29T03:00[Europe/Oslo]") == cest)  // 01:00Z
    #expect(try tz("2026-03-29T10:00:00+09:00[Asia/Tokyo]") == cest)  // 01:00Z
    #expect(try tz("2026-03-29 01:59", environment: ["TZ": "Europe/Oslo"]) == cet)
    #expect(try tz("2026-03-29T03:00", environment: ["TZ": "Europe/Oslo"]) == cest)

    func refused(_ time: String, _ why: String) throws {
      let r = try run(Binaries.locctl, ["tz", "59.9139,10.7522", "--time", time])
      #expect(r.status == 2, "\(time): \(r.stdout)")
      #expect(r.stderr.contains(why), "\(time): \(r.stderr)")
    }
    try refused("2026-03-29T02:30[Europe/Oslo]", "does not exist in Europe/Oslo")
    // The fold: 02:30 came twice on 2026-10-25 (back from 03:00 CEST to 02:00 CET).
    try refused("2026-10-25T02:30[Europe/Oslo]", "UTC+02:00 or UTC+01:00")
    try refused("2026-03-29T12:00+05:00[Europe/Oslo]", "Europe/Oslo is not at UTC+05:00")
    try refused("2026-03-29T12:00[Mars/Olympus]", "Mars/Olympus")
    try refused("2026-13-01T12:00Z", "expected YYYY-MM-DDTHH:MM")
    try refused("2026-03-29T24:00Z", "expected YYYY-MM-DDTHH:MM")
    try refused("2026-03-29T12:00+25:00", "is not Z or an offset")
    try refused("2026-03-29", "expected YYYY-MM-DDTHH:MM")
  }

  @Test func jsonAnswer() throws {
    let r = try run(Binaries.locctl, ["tz", "0", "180", "--json", "--time", "2026-01-15T12:00:00Z"])
    #expect(r.status == 0, "\(r.stderr)")
    let answer = try JSON.parse(r.stdout.trimmingCharacters(in: .newlines))
    // The protocol's names (status.timezone): timezone, offset (seconds), lat, lon.
    #expect(answer["timezone"]?.string == "Etc/GMT-12")
    #expect(answer["offset"]?.number == 43200)
    #expect(answer["utcOffset"]?.string == "+12:00")
    #expect(answer["abbreviation"]?.string == "+12")
    #expect(answer["dst"]?.bool == false)
    #expect(answer["lat"]?.number == 0)
    #expect(answer["lon"]?.number == 180)
  }

  @Test func stdinAnswersEveryReferencePoint() throws {
    let csv = try String(contentsOf: Binaries.fixture("tz/points.csv"), encoding: .utf8)
    let rows = csv.split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init) }
    let input = rows.map { "\($0[0]),\($0[1])\n" }.joined()
    let r = try run(Binaries.locctl, ["tz", "-"], stdin: input)
    #expect(r.status == 0, "\(r.stderr)")
    let answers = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    try #require(answers.count == rows.count)
    var agree: [String: Int] = [:]
    for (row, zone) in zip(rows, answers) where row[2] == zone { agree[row[3], default: 0] += 1 }
    // Same boundary release as the oracle: every point agrees (ZoneBoundariesTests says why).
    #expect(agree == ["random": 10000, "border": 2500, "curated": 40])
  }

  @Test func stdinKeepsLinesAlignedAndReportsBadOnes() throws {
    let r = try run(
      Binaries.locctl, ["tz", "-"], stdin: "51.438,4.931\nnot a point\n 40.7128 -74.0060 \n95,0\n")
    #expect(r.status == 1)
    #expect(r.stdout == "Europe/Brussels\n\nAmerica/New_York\n\n")
    #expect(r.stderr.contains("locctl tz: line 2:"))
    #expect(r.stderr.contains("locctl tz: line 4:"))
  }

  @Test(arguments: [
    ["nan", "0"], ["91", "0"], ["0", "180.5"], ["abc"], ["1", "2", "3"], [], ["1,2,3"], ["inf", "0"],
  ])
  func invalidInputIsAnError(words: [String]) throws {
    let r = try run(Binaries.locctl, ["tz"] + words)
    #expect(r.status == 2)
    #expect(r.stdout == "")
    #expect(r.stderr.hasPrefix("locctl tz: "))
  }

  @Test func versionNamesTheReleases() throws {
    let r = try run(Binaries.locctl, ["tz", "--version"])
    #expect(r.status == 0)
    #expect(r.stdout.contains("timezone-boundary-builder 2026c"))
    #expect(r.stdout.contains("tzdata: 2026c"))
    let json = try JSON.parse(try run(Binaries.locctl, ["tz", "--version", "--json"]).stdout)
    #expect(json["boundaryRelease"]?.string == "2026c")
    #expect(json["tzdataVersion"]?.string == "2026c")
  }

  @Test func checkReadsTheWholeFile() throws {
    let r = try run(Binaries.locctl, ["tz", "--check"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.hasSuffix(": ok\n"))
  }

  @Test func missingTruncatedAndCorruptFilesAreErrors() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("locd-tz-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let missing = try run(Binaries.locctl, ["tz", "10", "10"], environment: ["LOCD_DATA_DIR": dir.path])
    #expect(missing.status == 1)
    #expect(missing.stderr.contains("not found"))

    let original = try Data(
      contentsOf: Binaries.packageRoot.appendingPathComponent("data/timezone-boundaries.bin"))
    let file = dir.appendingPathComponent("timezone-boundaries.bin")
    try original.prefix(original.count / 2).write(to: file)
    let truncated = try run(Binaries.locctl, ["tz", "10", "10"], environment: ["LOCD_DATA_DIR": dir.path])
    #expect(truncated.status == 1)
    #expect(truncated.stderr.contains("truncated"))

    var flipped = original
    flipped[original.count - 100] ^= 0xFF
    try flipped.write(to: file)
    let check = try run(Binaries.locctl, ["tz", "--check"], environment: ["LOCD_DATA_DIR": dir.path])
    #expect(check.status == 1)
    #expect(check.stderr.contains("checksum mismatch"))
  }

  @Test func installedLayoutFindsShareLocd() throws {
    // PREFIX/bin/locctl finds PREFIX/share/locd/timezone-boundaries.bin without help.
    let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("locd-prefix-\(getpid())")
    let bin = prefix.appendingPathComponent("bin")
    let share = prefix.appendingPathComponent("share/locd")
    try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: share, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: prefix) }
    // A hard link, not a copy: a copy's write descriptor can leak into a child that another
    // test forks meanwhile, and exec then fails with ETXTBSY. (A symbolic link would not do:
    // /proc/self/exe resolves it back to .build.)
    let locctl = bin.appendingPathComponent("locctl")
    if link(Binaries.locctl.path, locctl.path) != 0 {
      try FileManager.default.copyItem(at: Binaries.locctl, to: locctl)
    }
    try FileManager.default.copyItem(
      at: Binaries.packageRoot.appendingPathComponent("data/timezone-boundaries.bin"),
      to: share.appendingPathComponent("timezone-boundaries.bin"))
    let r = try run(locctl, ["tz", "--version"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("file: \(share.path)/timezone-boundaries.bin"))
  }
}
