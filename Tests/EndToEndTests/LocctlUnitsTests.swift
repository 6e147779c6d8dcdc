import Foundation
import Testing

/// Issue 26, item 7: one formatting layer for quantities on locctl's screens. Metric unless
/// LOCCTL_UNITS=imperial; distances scaled for reading; coordinates to the decimals their
/// accuracy carries, the same in `status` and `locate`; one speed unit in decode, status and
/// watch.
@Suite struct LocctlUnitsTests {
  /// The row of `label` in a `status` screen.
  func row(_ screen: String, _ label: String) throws -> String {
    let line = try #require(
      screen.split(separator: "\n").first { $0.hasPrefix(label) }, "\(label) in \(screen)")
    return String(line.dropFirst(label.count).drop { $0 == " " })
  }

  @Test func distancesAndDecimalsFollowTheAccuracyInStatusAndLocate() throws {
    let daemon = try LocdProcess()
    // ±5 km: 0.01° of latitude is about 1.1 km, 0.1° about 11 km, so two decimals carry it.
    var r = try daemon.locctl(["set-location", "59.9139", "10.7522", "--accuracy", "5km"])
    #expect(r.status == 0, "\(r.stderr)")
    let coarse = try row(daemon.locctl(["status"]).stdout, "Position:")
    #expect(coarse.hasPrefix("59.91, 10.75 ±5 km  ("), "\(coarse)")
    r = try daemon.locctl(["locate", "--timeout", "0"])
    #expect(r.stdout.hasPrefix("59.91, 10.75 ±5 km"), "\(r.stdout) \(r.stderr)")
    // Imperial: 5000 m is 3.107 miles (1 mi = 1609.344 m).
    let imperial = try row(
      daemon.locctl(["status"], environment: ["LOCCTL_UNITS": "imperial"]).stdout, "Position:")
    #expect(imperial.hasPrefix("59.91, 10.75 ±3.1 mi  ("), "\(imperial)")
    // ±4 m: 1e-5° is about 1.1 m, 1e-4° about 11 m: five decimals.
    r = try daemon.locctl(["set-location", "59.9139", "10.7522", "--accuracy", "4m"])
    #expect(r.status == 0, "\(r.stderr)")
    let fine = try row(daemon.locctl(["status"]).stdout, "Position:")
    #expect(fine.hasPrefix("59.91390, 10.75220 ±4 m  ("), "\(fine)")
    r = try daemon.locctl(["locate", "--timeout", "0"])
    #expect(r.stdout.hasPrefix("59.91390, 10.75220 ±4 m"), "\(r.stdout) \(r.stderr)")
  }

  /// Times in the zone in effect (Oslo's, from the manual location there), or UTC with --utc.
  @Test func timesInTheZoneInEffectOrUTCWithTheUTCOption() throws {
    let daemon = try LocdProcess()
    let r = try daemon.locctl(["set-location", "59.9139", "10.7522"])
    #expect(r.status == 0, "\(r.stderr)")
    let local = try row(daemon.locctl(["status"]).stdout, "Local time:")
    #expect(local.hasSuffix(" CET") || local.hasSuffix(" CEST"), "\(local)")
    let screen = try daemon.locctl(["status", "--utc"]).stdout
    #expect(try row(screen, "Local time:").hasSuffix(" UTC"), "\(screen)")
    let sun = try row(screen, "Sun:")
    #expect(sun.contains(" UTC, sunset ") || sun.contains("none"), "\(sun)")
  }

  @Test func decodeShowsSpeedInTheUnitOfStatusAndWatch() throws {
    // The log and first cycle of LocctlDecodeTests: 0.69 kn in $GPRMC, 0.355 m/s.
    let log = Binaries.fixture("nmea/bu353s4.log")
    func first(_ environment: [String: String]) throws -> String {
      let r = try run(Binaries.locctl, ["decode", log.path], environment: environment)
      return String(r.stdout.split(separator: "\n").first ?? "")
    }
    // 0.355 m/s is 1.278 km/h and 0.794 mph.
    let metric = try first([:])
    let imperial = try first(["LOCCTL_UNITS": "imperial"])
    #expect(metric.contains(" 1.3km/h "), "\(metric)")
    #expect(imperial.contains(" 0.8mph "), "\(imperial)")
  }
}
