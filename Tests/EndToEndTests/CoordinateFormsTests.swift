import Foundation
import LocCore
import LocProtocol
import Testing

/// One coordinate syntax through the built locctl (issue 26, item 2; decision 0045): every
/// command that takes a coordinate reads the same forms, as one argv word or two, and a bad
/// form is a usage error (2) that says which form was expected.
@Suite struct CoordinateFormsTests {
  /// `sun` for Oslo on a fixed date and zone, the place written as `place`.
  func sun(_ place: [String], json: Bool = true) throws -> Completed {
    try run(
      Binaries.locctl,
      ["sun", "--at"] + place + ["--tz", "Europe/Oslo", "--date", "2026-06-21"] + (json ? ["--json"] : []),
      environment: ["NO_COLOR": "1"])
  }

  @Test func sunTakesEveryFormOfTheSamePlaceOffline() throws {
    let comma = try sun(["59.91,10.75"])
    #expect(comma.status == 0, "\(comma.stderr)")
    #expect(try JSON.parse(comma.stdout)["sunrise"]?.string != nil)
    for place in [
      ["59.91", "10.75"], ["59.91 10.75"], ["59.91,", "10.75"], ["geo:59.91,10.75"], ["59.91N", "10.75E"],
    ] {
      let r = try sun(place)
      #expect(r.status == 0, "\(place): \(r.stderr)")
      #expect(r.stdout == comma.stdout, "\(place)")
    }
    // The table too: its header names the place as read.
    let table = try sun(["59.91", "10.75"], json: false)
    let commaTable = try sun(["59.91,10.75"], json: false)
    #expect(table.status == 0 && table.stdout == commaTable.stdout)
    #expect(table.stdout.hasPrefix("Europe/Oslo at 59.91, 10.75"), "\(table.stdout)")
    // Degrees, minutes and seconds: 59°54'50"N 10°45'8"E is 215690/3600 = 59.9138888...,
    // 38708/3600 = 10.7522222..., shown to at most 7 decimals (issue 43, item 10: not 15).
    let dms = try run(Binaries.locctl, ["sun", "--at", "59°54'50\"N", "10°45'8\"E", "--tz", "UTC", "--now"])
    #expect(dms.status == 0, "\(dms.stderr)")
    #expect(dms.stdout.hasPrefix("UTC at 59.9138889, 10.7522222"), "\(dms.stdout)")
    // The word after a whole coordinate is not taken: it is an unexpected argument.
    let extra = try run(Binaries.locctl, ["sun", "--at", "59.91", "10.75", "extra"])
    #expect(extra.status == 2 && extra.stderr.contains("'extra'"), "\(extra.stderr)")
  }

  @Test(arguments: [
    (["sun", "--at", "59.91N,10.75N"], "N and S belong to the latitude"),
    (["sun", "--at", "-33.92S,18.42E"], "a sign and a hemisphere letter together"),
    (["sun", "--at", "59 54 50 N 10 45 8 E"], "degrees, minutes and seconds need their marks"),
    (["sun", "--at", "geo:59.91,10.75;crs=utm"], "crs=utm is not supported"),
    (["sun", "--at", "59.91"], "is only a latitude"),
    (["sun", "--at", "91", "0"], "south negative"),
    (["tz", "59°75'N", "10E"], "minutes must be below 60"),
    (["tz", "59.91", "10.75", "3"], "unexpected argument '3'"),
  ])
  func badFormsAreUsageErrorsThatTeach(_ arguments: [String], _ message: String) throws {
    let r = try run(Binaries.locctl, arguments)
    #expect(r.status == 2, "\(arguments): \(r.stderr)")
    #expect(r.stderr.hasPrefix("locctl \(arguments[0]): ") && r.stderr.contains(message), "\(r.stderr)")
    #expect(r.stdout.isEmpty)
  }

  @Test func tzTakesTheFormsToo() throws {
    for words in [["59.91N", "10.75E"], ["geo:59.91,10.75;u=20"], ["N59°54.83'", "E10°45.13'"]] {
      let r = try run(Binaries.locctl, ["tz"] + words)
      #expect(r.status == 0 && r.stdout.hasPrefix("Europe/Oslo"), "\(words): \(r.stdout) \(r.stderr)")
    }
  }

  /// `regions APP add ID LAT LON RADIUS` against the daemon: the same region as the comma form;
  /// a missing radius after two coordinate words is a usage error before connecting.
  @Test func regionsAddTakesTheCentreInOneWordOrTwo() throws {
    let daemon = try LocdProcess()
    let app = "org.example.Fences"
    #expect(try daemon.locctl(["apps", "grant", app, "--always"]).status == 0)
    var centres: [String: RegionView] = [:]
    for (id, centre) in [
      ("comma", ["59.91,10.75"]), ("two", ["59.91", "10.75"]), ("spaced", ["59.91,", "10.75"]),
      ("letters", ["59.91N", "10.75E"]), ("geo", ["geo:59.91,10.75"]),
    ] {
      let add = try daemon.locctl(["regions", app, "add", id] + centre + ["150", "--json"])
      #expect(add.status == 0, "\(centre): \(add.stderr)")
      centres[id] = try decodeOutput(add.stdout, as: RegionsResult.self).regions.first
    }
    let comma = try #require(centres["comma"])
    #expect(comma.centre == Coordinate(lat: 59.91, lon: 10.75) && comma.radius == 150)
    for (id, region) in centres {
      #expect(region.centre == comma.centre && region.radius == comma.radius, "\(id): \(region)")
    }
    let state = try daemon.locctl(["regions", app, "state"])
    for id in centres.keys { #expect(state.stdout.contains("\(id): unknown"), "\(state.stdout)") }
    #expect(centres.count == 5)
    let noRadius = try daemon.locctl(["regions", app, "add", "x", "59.91", "10.75"])
    #expect(noRadius.status == 2 && noRadius.stderr.contains("ID LAT LON RADIUS"), "\(noRadius.stderr)")
    let bad = try daemon.locctl(["regions", app, "add", "x", "59.91", "abc", "150"])
    #expect(bad.status == 2 && bad.stderr.contains("'abc' is not a number"), "\(bad.stderr)")
    #expect(daemon.stop() == 0)
  }

  /// `set-location geo:...;u=35`: the URI's uncertainty is the accuracy unless --accuracy is
  /// given; two words set the same place as one.
  @Test func setLocationTakesAGeoURIsUncertaintyAsItsAccuracy() throws {
    let daemon = try LocdProcess()
    #expect(try daemon.locctl(["set-location", "geo:59.91,10.75;u=35"]).status == 0)
    var manual = try #require(try daemon.status().manual)
    #expect(manual.coordinate == Coordinate(lat: 59.91, lon: 10.75) && manual.accuracy == 35)
    #expect(try daemon.locctl(["set-location", "GEO:59.91,10.75;U=35", "--accuracy", "2km"]).status == 0)
    manual = try #require(try daemon.status().manual)
    #expect(manual.accuracy == 2000)
    #expect(try daemon.locctl(["set-location", "33°55'12\"S", "18°25'26\"E"]).status == 0)
    manual = try #require(try daemon.status().manual)
    #expect(manual.coordinate.latitude.value == -122_112.0 / 3600 && manual.accuracy == nil)
    #expect(daemon.stop() == 0)
  }
}
