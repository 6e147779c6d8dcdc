import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Time-zone data in a running daemon: read from $TZDIR at start, read again when the
/// files change (as a tzdata update changes them), a zone that cannot be read said once.
@Suite struct TzdataUpdateTests {
  /// A zone directory under `dir` holding `zones` copied from the system's tzdata.
  func zoneDirectory(in dir: String, _ zones: [String]) throws -> String {
    let root = dir + "/zoneinfo"
    try FileManager.default.createDirectory(atPath: root + "/Europe", withIntermediateDirectories: true)
    for zone in zones {
      try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/" + zone, toPath: root + "/" + zone)
    }
    return root
  }

  /// Replaces `path` the way dpkg does: a new file beside it, renamed over it.
  func replace(_ path: String, withZone zone: String) throws {
    try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/" + zone)).write(
      to: URL(fileURLWithPath: path + ".dpkg-new"))
    guard rename(path + ".dpkg-new", path) == 0 else { throw HarnessError("rename \(path)") }
  }

  @Test func aTzdataUpdateReachesTheRunningDaemon() throws {
    let dir = LocdProcess.makeDirectory()
    let zones = try zoneDirectory(in: dir, ["Europe/Oslo"])
    let daemon = try LocdProcess(
      environment: ["TZDIR": zones], directory: dir, config: "[Position]\nTimeZone=Europe/Oslo\n")
    let before = try daemon.status()
    #expect(before.timezone.zone.id == "Europe/Oslo")
    #expect([3600, 7200].contains(before.timezone.zone.offset ?? 0))
    // The update gives Oslo other rules (Tokyo's: +9 h all year, so the expectation holds
    // whatever the date the test runs on).
    try replace(zones + "/Europe/Oslo", withZone: "Asia/Tokyo")
    let after = try daemon.waitForStatus { $0.timezone.zone.offset == 32_400 }
    #expect(after.timezone.zone.abbreviation == "JST")
    #expect(daemon.log.contains("time-zone data read again"))
    #expect(daemon.log.contains("time zone now Europe/Oslo (UTC+09:00), was Europe/Oslo"))
  }

  @Test func aZoneThatCannotBeReadIsSaidOnceAndUsedOnceItCanBe() throws {
    let dir = LocdProcess.makeDirectory()
    let zones = try zoneDirectory(in: dir, [])
    let daemon = try LocdProcess(
      environment: ["TZDIR": zones], directory: dir, config: "[Position]\nTimeZone=Europe/Oslo\n")
    let s = try daemon.status()
    #expect(s.timezone.zone.offset == nil)
    #expect(s.timezone.reason == "unknown time zone 'Europe/Oslo'; planning in UTC")
    // A reload plans again but does not say it again.
    #expect(try daemon.locctl(["reload"]).status == 0)
    let said =
      daemon.log.components(separatedBy: "unknown time zone 'Europe/Oslo'; planning in UTC").count - 1
    #expect(said == 1, "\(daemon.log)")
    // The file appears (a tzdata install): the zone is used from then on.
    try FileManager.default.copyItem(
      atPath: "/usr/share/zoneinfo/Europe/Oslo", toPath: zones + "/Europe/Oslo")
    _ = try daemon.locctl(["reload"])
    let fixed = try daemon.waitForStatus { $0.timezone.zone.offset != nil }
    #expect([3600, 7200].contains(fixed.timezone.zone.offset ?? 0))
    #expect(fixed.timezone.reason == nil)
  }
}
