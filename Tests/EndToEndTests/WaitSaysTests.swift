import Foundation
import LocCore
import LocProtocol
import Testing

/// Issue 43, item 7: `locctl wait` never said when it would return (after today's sunset,
/// does `wait sunset` mean tomorrow?) and printed nothing on timeout, even with --json.
@Suite struct WaitSaysTests {
  @Test func waitSaysWhatAndUntilWhenAndPrintsAResultAtItsTimeout() throws {
    let daemon = try LocdProcess()
    #expect(try daemon.locctl(["set-location", "59.9139", "10.7522"]).status == 0)
    let before = Date()
    let text = try daemon.locctl(["wait", "sunset", "--timeout", "1s"])
    #expect(text.status == 1)
    #expect(text.stderr.contains("waiting for sunset until "), "\(text.stderr)")
    #expect(text.stderr.contains("today") || text.stderr.contains("tomorrow"), "\(text.stderr)")
    #expect(text.stdout.contains("sunset: did not happen within 1 s; expected "), "\(text.stdout)")
    let json = try daemon.locctl(["wait", "sunset", "--timeout", "1s", "--json"])
    #expect(json.status == 1 && json.stderr.isEmpty, "\(json.stderr)")
    let o = try JSON.parse(json.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    #expect(o["target"] == .string("sunset") && o["timedOut"] == .bool(true) && o["timeout"] == .number(1))
    // Oslo at 59.9° N has a sunset every day of the year: the next one is within two days.
    let expected = try #require(o["expected"]?.string.flatMap { Instant(iso8601: $0) })
    let seconds = Double(expected.microsecondsSinceEpoch) / 1e6 - before.timeIntervalSince1970
    #expect(seconds > 0 && seconds < 2 * 86_400, "\(json.stdout)")
    // A zone change has no instant to expect: it says what it waits for.
    let zone = try daemon.locctl(["wait", "timezone-changed", "--timeout", "1s"])
    #expect(zone.stderr.contains("waiting for the time zone to change (now Europe/Oslo)"), "\(zone.stderr)")
    #expect(zone.stdout.contains("timezone-changed: did not happen within 1 s"), "\(zone.stdout)")
  }
}
