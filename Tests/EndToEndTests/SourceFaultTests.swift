import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Faults the log reports are in `status` with their reason and since when, and
/// `source-status` events go out once per change, not once per attempt (decision 0047):
/// a feed that falls silent and comes back, a speed hunt that finds no NMEA, an unplug.
@Suite struct SourceFaultTests {
  /// The `source-status` events a `locctl watch --json` wrote so far, in order.
  static func sourceEvents(_ watcher: FixWatcher) -> [(time: Instant, source: SourceView)] {
    let text = (try? String(contentsOfFile: watcher.path, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
      guard case .event(let event)? = try? ServerMessage.decode(Array(line.utf8)),
        case .sourceStatus(let source) = event.data
      else { return nil }
      return (event.time, source)
    }
  }

  /// The line of `locctl status` under a source that shows its fault: `headline for AGE
  /// (since TIME ZONE): reason`, or without the age in its first second.
  static func faultLine(_ screen: String, _ headline: String) -> String? {
    screen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first {
      $0.hasPrefix(headline + " for ") || $0.hasPrefix(headline + " (since ")
    }
  }

  @Test func aSilentFeedIsAFaultInStatusUntilItSendsAgain() throws {
    let (daemon, peer) = try BadSourceInputTests.listening()
    defer { close(peer) }
    let watcher = try FixWatcher(daemon)
    try watcher.waitUntilSubscribed()
    try writeAll(peer, epochs(2))
    try daemon.waitForCounters { $0["fixes"] == 2 }
    let lastByte = try #require(try daemon.status().now)
    // Nothing more: after 10 s the source is still connected, and silent, with why and since when.
    let silent = try daemon.waitForStatus(timeout: 30) { $0.sources.first?.fault != nil }
    let source = try #require(silent.sources.first)
    let fault = try #require(source.fault)
    #expect(source.state == .known(.connected))
    #expect(fault.kind == .known(.silent))
    #expect(fault.reason == "nothing came in the 10 s before")
    // Well after the last byte (10 s after it; `lastByte` is read a little later, `since` is
    // to the second), never after now.
    #expect(fault.since > lastByte.adding(.seconds(5)))
    #expect(fault.since <= (silent.now ?? fault.since))
    #expect(daemon.log.contains("sent nothing for 10 s"))
    // On screen: the fault with its age on locd's clock.
    let screen = try daemon.locctl(["status"]).stdout
    // Issue 43, item 10: "silent for 3 s (since ...): sent nothing for 10 s" read as two
    // different lengths of the same silence; the fault is dated where it was noticed.
    #expect(
      Self.faultLine(screen, "silent")?.hasSuffix("): nothing came in the 10 s before") == true, "\(screen)")

    // Data again: the fault clears, and one event says so.
    try writeAll(peer, epochs(2, firstIndex: 2))
    let back = try daemon.waitForStatus { $0.sources.first?.fault == nil }
    #expect(back.counters()["silences"] == 1)
    let deadline = Date().addingTimeInterval(10)
    while Self.sourceEvents(watcher).last?.source.fault != nil, Date() < deadline { usleep(50_000) }
    let events = Self.sourceEvents(watcher).map(\.source)
    #expect(
      events.filter { $0.fault?.kind == .known(.silent) }.count == 1, "\(events.map { $0.json.serialized })")
    #expect(events.last?.fault == nil)
    #expect(events.last?.state == .known(.connected))
  }

  @Test func aListenerIsSilentOnlyWhenEveryPeerIs() throws {
    // Receivers held: on demand, the talker's first fix can land next to the quiet peer's
    // and settle acquisition at once, and an idle source watches no silence (decision 0008),
    // so the quiet peer's would never be logged (seen under load, when the two arrive close).
    let (daemon, quiet) = try BadSourceInputTests.listening(config: "[Acquisition]\nPolicy=continuous\n")
    defer { close(quiet) }
    let port = try #require(daemon.status().sources.first?.uri.split(separator: ":").last.flatMap { Int($0) })
    let talker = try connectTCP("127.0.0.1", port)
    defer { close(talker) }
    try daemon.waitForCounters { $0["peers"] == 2 }
    try writeAll(quiet, epochs(1, endingSecondsAgo: 30))
    // One peer falls silent (logged) while the other goes on: the source is fed, no fault.
    var index = 0
    // Generous: the whole suite runs in parallel on two cores (it once took 40 s there).
    let deadline = Date().addingTimeInterval(120)
    while !daemon.log.contains("sent nothing for 10 s") {
      guard Date() < deadline else { throw HarnessError("the quiet peer's silence was not logged") }
      try writeAll(talker, epoch(at: Date(), index: index))
      index += 1
      usleep(500_000)
    }
    #expect(try daemon.status().sources.first?.fault == nil)
    // Both silent: the fault, saying so.
    let silent = try daemon.waitForStatus(timeout: 30) { $0.sources.first?.fault != nil }
    #expect(silent.sources.first?.fault?.kind == .known(.silent))
    #expect(silent.sources.first?.fault?.reason == "all 2 peers silent, nothing came in the 10 s before")
  }

  @Test func aSpeedHuntThatFindsNoNMEAIsTheLastErrorWithSinceWhen() throws {
    let dir = LocdProcess.makeDirectory()
    let device = try FakeSerialDevice()
    let daemon = try LocdProcess(arguments: ["--source", "serial:\(device.path)?baud=auto"], directory: dir)
    try daemon.waitForCounters { $0["opens"] == 1 }
    let opened = try #require(try daemon.status().now)
    // Bytes that are NMEA at no speed (no `$`, no line end), until every speed was tried.
    var generator = SplitMix64(seed: 4800)
    let deadline = Date().addingTimeInterval(60)
    var status = try daemon.status()
    while status.sources.first?.fault == nil {
      guard Date() < deadline else { throw HarnessError("no fault: \(status.json.serialized)") }
      try writeAll(
        device.master, (0..<64).map { _ in UInt8(truncatingIfNeeded: generator.next()) & 0x3F | 0x40 })
      usleep(100_000)
      status = try daemon.status()
    }
    let source = try #require(status.sources.first)
    let reason = "no NMEA at 9600, 4800, 38400, 115200 baud"
    #expect(source.state == .known(.starting))
    #expect(source.lastError == reason)
    #expect(source.fault?.kind == .known(.noNMEA))
    #expect(source.fault?.reason == reason)
    // One probe window per rate (2.5 s each) after the open (read a little later).
    let since = try #require(source.fault?.since)
    #expect(since > opened.adding(.seconds(5)))
    #expect(since <= (status.now ?? since))
    #expect(status.counters()["baudProbes"] ?? 0 > SourceURI.autoBaudRates.count)
    #expect(daemon.log.contains("\(reason); still trying"))
    let screen = try daemon.locctl(["status"]).stdout
    #expect(Self.faultLine(screen, "no NMEA")?.hasSuffix("): \(reason)") == true, "\(screen)")

    // A receiver at last: the speed settles and the error goes.
    try device.write(epochs(3))
    let settled = try daemon.waitForStatus { $0.sourceState() == .known(.connected) }
    #expect(settled.sources.first?.lastError == nil)
    #expect(settled.sources.first?.fault == nil)
    // locd goes before the pty, so it never opens another test's pty under the same number.
    daemon.stop()
    device.unplug()
  }

  @Test func anUnplugIsOneEventHoweverManyAttemptsAndOneWhenBack() throws {
    let dir = LocdProcess.makeDirectory()
    let link = dir + "/gps0"
    var device = try FakeSerialDevice()
    try SerialSourceTests.relink(link, to: device.path)
    let daemon = try LocdProcess(arguments: ["--source", "serial:\(link)?baud=4800"], directory: dir)
    try daemon.waitForCounters { $0["opens"] == 1 }
    let watcher = try FixWatcher(daemon)
    try watcher.waitUntilSubscribed()
    // And as people see it: `locctl watch --events source-status`, its lines in a file.
    let screenPath = dir + "/watch.txt"
    let fd = open(screenPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let screen = try Child(
      "/usr/bin/setpriv",
      [
        "--pdeathsig", "KILL", "--", Binaries.locctl.path, "--socket", daemon.socketPath, "watch", "--events",
        "source-status",
      ],
      stdoutFD: fd)
    close(fd)
    defer {
      if screen.isRunning { kill(screen.pid, SIGTERM) }
      screen.wait(timeout: 5)
    }
    try device.write(epochs(2))
    try daemon.waitForCounters { $0["fixes"] == 2 }
    let before = Self.sourceEvents(watcher).count

    // Unplugged for about 7 s: locd tries to open it every 2 s. The link goes too, as udev
    // removes it: the pty's number is free for another test's pty meanwhile.
    device.unplug()
    unlink(link)
    try daemon.waitForCounters { $0["disconnects"] == 1 }
    let down = try daemon.waitForCounters(timeout: 30) { $0["failedOpens"] ?? 0 >= 3 }
    #expect(try daemon.status().sourceState() == .known(.reconnecting))

    device = try FakeSerialDevice()
    try SerialSourceTests.relink(link, to: device.path)
    try daemon.waitForCounters { $0["opens"] == 2 }
    let deadline = Date().addingTimeInterval(10)
    while Self.sourceEvents(watcher).last?.source.state != .known(.connected), Date() < deadline {
      usleep(50_000)
    }
    let events = Self.sourceEvents(watcher).dropFirst(before).map(\.source)
    let told = events.map { "\($0.state.word) \($0.fault?.reason ?? "-")" }
    // One event for the loss (with what began the outage), one for the return: not one per
    // attempt, of which there were at least three.
    #expect(told.count == 2, "\(told); \(down["failedOpens"] ?? 0) failed opens")
    #expect(events.first?.state == .known(.reconnecting))
    #expect(events.first?.fault?.kind == .known(.error))
    #expect(events.last?.state == .known(.connected))
    #expect(events.last?.fault == nil)
    // One line for the loss, with the fault's age at the event, and one for the return.
    let lines = try waitForFile(screenPath) { $0.contains(" connected") }.split(separator: "\n")
    let lost = lines.filter { $0.contains(" reconnecting") }
    #expect(lost.count == 1, "\(lines)")
    #expect(lost.first?.contains("; failing") == true, "\(lines)")
    #expect(lines.filter { $0.contains(" connected") }.count == 1, "\(lines)")
    daemon.stop()
    device.unplug()
  }
}
