import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// On-demand acquisition against real peers: gpsd (via gpsfake) sees its watch released
/// after a good fix and taken again on `locctl refresh`, on `locctl locate` and at the
/// periodic refresh; a serial device is closed while idle; a push source's input is ignored.
/// No test here subscribes to `location`: that would hold acquisition open.
@Suite struct AcquisitionEndToEndTests {
  /// Whether status says attempt `attempts` ended settled and acquisition is idle.
  static func settled(_ s: StatusView, attempts: Int) -> Bool {
    guard let a = s.acquisition, case .settled? = a.lastOutcome else { return false }
    return a.phase == .idle && a.attempts == attempts
  }

  static func occurrences(of text: String, in log: String) -> Int {
    log.components(separatedBy: text).count - 1
  }

  /// `count` receiver cycles one second apart at one spot, ending a second ago: stable.
  static func stableEpochs(_ count: Int) -> String {
    let start = Date().addingTimeInterval(-Double(count)).timeIntervalSince1970.rounded(.down)
    return (0..<count).map { epoch(at: Date(timeIntervalSince1970: start + Double($0)), index: 0) }.joined()
  }

  /// Polls `condition` (10 s at most).
  static func waitUntil(timeout: Double = 10, _ what: String, _ condition: () -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
      guard Date() < deadline else { throw HarnessError("timed out waiting for \(what)") }
      usleep(50_000)
    }
  }

  @Test func gpsdWatchIsReleasedAfterAGoodFixAndTakenAgainOnRefreshAndLocate() throws {
    let dir = LocdProcess.makeDirectory()
    let port = freePort()
    // gpsd without -n opens the receiver only for watchers; -D 4 logs its device handling.
    let fake = try GpsFake(
      "nmea/nmea-rtk.log", port: port, interval: 0.02, directory: dir, nowait: false, debugLevel: 4)
    defer { fake.stop() }
    let daemon = try LocdProcess(
      arguments: ["--source", "gpsd://127.0.0.1:\(port)"], directory: dir,
      config: "[Position]\nFreshFor=1s\n[Acquisition]\nRefreshInterval=1h\n")

    // Start: watch on, a good stable fix (±4 m), watch off.
    var s = try daemon.waitForStatus(timeout: 20) {
      Self.settled($0, attempts: 1) && $0.counters()["watchDisables"] == 1
    }
    var c = s.counters()
    #expect(c["watching"] == 0, "gpsd confirmed the watch is off")
    #expect(c["watchEnables"] == 1)
    #expect(s.sourceState() == .known(.connected), "the connection stays; only the reports stop")
    #expect(s.acquisition?.receiversActive == false, "receivers released")
    // gpsd's own view: it got the command and, with no watcher left, released the receiver.
    try Self.waitUntil("gpsd to release the device") {
      fake.log.contains(#"?WATCH={"enable":false}"#) && fake.log.contains("released")
    }
    // And it sends nothing more.
    let reports = c["gpsdReports"]
    usleep(1_000_000)
    #expect(try daemon.status().counters()["gpsdReports"] == reports)

    // `locctl refresh`: watched again until the next good fix, then released again.
    let refreshed = try daemon.locctl(["refresh", "--json"])
    #expect(refreshed.status == 0, "\(refreshed.stderr)")
    let reply = try decodeOutput(refreshed.stdout, as: AcquisitionResult.self)
    #expect(reply.acquisition.reasons == [.known(.manual)])
    s = try daemon.waitForStatus(timeout: 20) {
      Self.settled($0, attempts: 2) && $0.counters()["watchDisables"] == 2
    }
    #expect(s.counters()["watchEnables"] == 2)
    #expect(daemon.log.contains("acquisition: idle -> acquiring (manual)"))

    // A one-shot request once the fix is no longer fresh (FreshFor=1s): answered with a
    // fresh fix, and the watch is released again after it.
    _ = try daemon.waitForStatus { $0.position.tier == .cached }
    let located = try daemon.locctl(["locate", "--timeout", "20", "--json"])
    #expect(located.status == 0, "\(located.stderr)")
    let answer = try decodeOutput(located.stdout, as: LocateView.self)
    #expect(answer.provenance == .fresh)
    #expect(answer.accuracyMet)
    #expect((answer.position.position?.accuracy?.value ?? 99) <= 50)
    s = try daemon.waitForStatus(timeout: 20) {
      Self.settled($0, attempts: 3) && $0.counters()["watchDisables"] == 3
    }
    c = s.counters()
    #expect(c["watchEnables"] == 3)
    #expect(c["connects"] == 1)
    #expect(daemon.log.contains("acquisition: idle -> acquiring (one-shot)"))
    // gpsd received exactly locd's three watches and three releases.
    let gpsd = fake.log
    #expect(Self.occurrences(of: #"?WATCH={"enable":true"#, in: gpsd) == 3)
    #expect(Self.occurrences(of: #"?WATCH={"enable":false}"#, in: gpsd) == 3)
  }

  @Test func gpsdWatchIsTakenAgainAtThePeriodicRefresh() throws {
    let dir = LocdProcess.makeDirectory()
    let port = freePort()
    let fake = try GpsFake("nmea/nmea-rtk.log", port: port, interval: 0.02, directory: dir, nowait: false)
    defer { fake.stop() }
    let daemon = try LocdProcess(
      arguments: ["--source", "gpsd://127.0.0.1:\(port)"], directory: dir,
      config: "[Acquisition]\nRefreshInterval=2s\n")
    _ = try daemon.waitForStatus(timeout: 20) { Self.settled($0, attempts: 1) }
    let s = try daemon.waitForStatus(timeout: 20) {
      Self.settled($0, attempts: 2) && $0.counters()["watchDisables"] == 2
    }
    #expect(s.counters()["watchEnables"] == 2)
    #expect(s.counters()["watching"] == 0)
    #expect(daemon.log.contains("acquisition: idle -> acquiring (refresh)"))
    #expect(daemon.log.contains("receivers released; next refresh in 2 s"))
  }

  @Test func aSerialDeviceIsClosedWhileIdleAndOpenedOnRefresh() throws {
    let dir = LocdProcess.makeDirectory()
    let device = try FakeSerialDevice()
    let daemon = try LocdProcess(arguments: ["--source", "serial:\(device.path)?baud=4800"], directory: dir)
    _ = try daemon.waitForCounters { $0["opens"] == 1 }
    try device.write(Self.stableEpochs(3))
    var s = try daemon.waitForStatus { Self.settled($0, attempts: 1) && $0.sourceState() == .known(.idle) }
    #expect(s.counters()["disconnects"] == 0, "closed on purpose, not lost")
    #expect(daemon.log.contains("device closed while acquisition is idle"))
    _ = try daemon.locctl(["refresh"])
    s = try daemon.waitForStatus { $0.sourceState() == .known(.connected) && $0.counters()["opens"] == 2 }
    #expect(s.acquisition?.phase == .acquiring)
    try device.write(Self.stableEpochs(3))
    _ = try daemon.waitForStatus { Self.settled($0, attempts: 2) && $0.sourceState() == .known(.idle) }
  }

  @Test func aPushSourceIsLetGoWhileIdle() throws {
    let server = try TestServer()
    let daemon = try LocdProcess(arguments: ["--source", "nmea+tcp://127.0.0.1:\(server.port)"])
    let peer = try server.accept()
    try writeAll(peer, Self.stableEpochs(3))
    _ = try daemon.waitForStatus { Self.settled($0, attempts: 1) }
    // Idle: the feed cannot be told to stop, so the connection is closed (the peer reads
    // its end) and nothing is read until fixes are wanted.
    var c = try daemon.waitForCounters { $0["releases"] == 1 }
    #expect(c["disconnects"] == 0, "closed on purpose, not lost")
    var byte: UInt8 = 0
    var p = pollfd(fd: peer, events: Int16(POLLIN), revents: 0)
    #expect(poll(&p, 1, 10_000) == 1)
    #expect(read(peer, &byte, 1) == 0, "the peer sees the end of the connection")
    close(peer)
    #expect(try daemon.status().sourceState() == .known(.idle))
    #expect(daemon.log.contains("connection closed while acquisition is idle"))
    let fixes = c["fixes"] ?? 0
    // Wanted again: connected again, decoded again.
    _ = try daemon.locctl(["refresh"])
    let again = try server.accept()
    defer { close(again) }
    try writeAll(again, Self.stableEpochs(3))
    c = try daemon.waitForCounters { $0["fixes"] == fixes + 3 }
    #expect(c["connects"] == 2)
    #expect(c["reconnectAttempts"] == 0)
    #expect(c["idleLines"] == 0, "nothing was read only to be ignored")
  }

  @Test func aReplayKeepsPlayingWhileIdle() throws {
    // `make run`'s source: a recording powers nothing and is the simulated clock, so it
    // ignores acquisition and the position keeps moving.
    let log = Binaries.fixture("nmea/bt451.log").path
    let daemon = try LocdProcess(arguments: ["--source", "replay:\(log)?speed=5&loop=1"])
    let s = try daemon.waitForStatus { Self.settled($0, attempts: 1) }
    let fixes = s.counters()["fixes"] ?? 0
    let after = try daemon.waitForStatus { ($0.counters()["fixes"] ?? 0) >= fixes + 5 }
    #expect(after.acquisition?.phase == .idle)
    #expect(after.sourceState() == .known(.connected))
  }

  @Test func locateWithoutAnyFixAnswersWithTheReason() throws {
    // Nothing listens on this port: locd keeps trying, locate answers at its timeout.
    let daemon = try LocdProcess(arguments: ["--source", "gpsd://127.0.0.1:\(freePort())"])
    let r = try daemon.locctl(["locate", "--timeout", "1"])
    #expect(r.status == 1)
    #expect(r.stderr.contains("locctl locate: no position: source gpsd://127.0.0.1:"), "\(r.stderr)")
    #expect(r.stderr.contains("locctl locate: to fix: "))
    _ = try daemon.locctl(["set-location", "59.91", "10.75", "--name", "home"])
    let manual = try daemon.locctl(["locate", "--timeout", "0.5"])
    #expect(manual.status == 0)
    #expect(manual.stdout.hasPrefix("59.91, 10.75  (manual"), "\(manual.stdout)")
    #expect(manual.stdout.contains("no fresh fix within 50 m came in 0.5 s"), "\(manual.stdout)")
  }
}
