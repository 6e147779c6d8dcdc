import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// The small holes of issue 15 ("Minor"), each against the built daemon and locctl.
@Suite struct MinorHardeningTests {
  @Test func controlCharactersInTheManualLocationsNameAreShownNotObeyed() throws {
    let daemon = try LocdProcess()
    // ESC ] 0 ; ... BEL retitles a terminal window; ESC [ 2 J clears the screen; U+202E
    // turns the rest of the line around.
    let name = "home\u{1B}]0;pwned\u{07}\u{1B}[2J\u{202E}x"
    #expect(try daemon.locctl(["set-location", "52.52", "13.405", "--name", name]).status == 0)
    let r = try daemon.locctl(["status"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(!r.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E })
    #expect(r.stdout.contains(#""home\u{1B}]0;pwned\u{7}\u{1B}[2J\u{202E}x""#), "\(r.stdout)")
    // The JSON form carries the name as it is (escaped by JSON itself).
    let json = try decodeOutput(try daemon.locctl(["status", "--json"]).stdout, as: StatusView.self)
    #expect(json.position.position?.name == name)
  }

  @Test func aDeeplyNestedLineFromGpsdIsCounted() throws {
    // A hostile gpsd: its greeting, then one line of 16,000 nested arrays (under the
    // 16 KiB line limit, so it reaches the decoder). Before, it was dropped without a
    // counter saying why.
    let server = try TestServer()
    let daemon = try LocdProcess(arguments: ["--source", "gpsd://127.0.0.1:\(server.port)"])
    let gpsd = try server.accept()
    defer { close(gpsd) }
    try writeAll(
      gpsd, #"{"class":"VERSION","release":"3.25","rev":"3.25","proto_major":3,"proto_minor":15}"# + "\n")
    try writeAll(gpsd, #"{"class":"DEVICES","devices":"# + String(repeating: "[", count: 16_000) + "\n")
    let counters = try daemon.waitForCounters { $0["tooDeep"] == 1 }
    #expect(counters["errors"] == 1)
  }
}
