import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Issue 43, item 7: `locctl sky --watch` froze while the receiver slept (on-demand
/// acquisition let it go) and did not say its sky was stale. A push feed (nmea+tcp, the
/// test's own server) is let go while acquisition is idle (docs/SOURCES.md), so its sky
/// stops; the watch must say so, and say it again when the receiver sleeps once more.
@Suite struct SkyWatchSaysTests {
  /// `count` cycles at one spot (stable: acquisition settles) with a GSV group of two satellites after each (PRN 17 at 72° elevation,
  /// 207° azimuth; PRN 28 at 40°, 100°): a sky for locd to report.
  static func epochsWithSky(_ count: Int) -> String {
    sentences(AcquisitionEndToEndTests.stableEpochs(count)).chunked(2).map {
      $0.joined() + nmea("GPGSV,1,1,02,17,72,207,32,28,40,100,25")
    }
    .joined()
  }

  @Test func theWatchSaysWhenTheReceiverSleeps() throws {
    let server = try TestServer()
    let daemon = try LocdProcess(arguments: ["--source", "nmea+tcp://127.0.0.1:\(server.port)"])
    let peer = try server.accept()
    // Nobody reads satellites yet, so the source assembles no sky (decision 0069): a one-shot
    // `locctl sky` turns skies on for ten minutes and waits for the receiver's first one.
    _ = try daemon.waitForStatus { $0.sourceState() == .known(.connected) }
    let once = daemon.directory + "/sky-once.txt"
    let onceFD = open(once, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let asked = try Child(Binaries.locctl.path, ["--socket", daemon.socketPath, "sky"], stdoutFD: onceFD)
    close(onceFD)
    _ = try daemon.waitForStatus { $0.skies?.waiting == 1 }
    try writeAll(peer, Self.epochsWithSky(3))
    #expect(asked.wait(timeout: 10) == 0)
    let answer = (try? String(contentsOfFile: once, encoding: .utf8)) ?? ""
    #expect(answer.split(separator: "\n").contains { $0.hasPrefix("GPS ") }, "\(answer)")
    // Settled, then idle: the connection is closed and no sky comes any more.
    _ = try daemon.waitForCounters { $0["releases"] == 1 }
    close(peer)
    _ = try daemon.waitForStatus { $0.satellites != nil && $0.sourceState() == .known(.idle) }

    let out = daemon.directory + "/sky.txt"
    let fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let watch = try Child(
      Binaries.locctl.path, ["--socket", daemon.socketPath, "sky", "--watch"], stdoutFD: fd)
    close(fd)
    defer {
      kill(watch.pid, SIGTERM)
      watch.wait(timeout: 5)
    }
    // The first screen: the plot, and that its receiver sleeps and since when the sky is.
    let first = try waitForFile(out) { $0.contains("* used") }
    #expect(first.contains("receiver asleep (acquisition idle): this sky is from "), "\(first)")

    // Wanted again: connected, fed, settled, let go again; the watch says it went to sleep,
    // with the time of the source's change.
    _ = try daemon.locctl(["refresh"])
    let again = try server.accept()
    defer { close(again) }
    try writeAll(again, Self.epochsWithSky(3))
    _ = try daemon.waitForCounters { $0["releases"] == 2 }
    let later = try waitForFile(out) { $0.contains("receiver asleep since ") }
    #expect(
      later.contains(#/receiver asleep since \d\d:\d\d:\d\d [A-Z+\-0-9:]+ \(acquisition idle\)/#), "\(later)")
  }
}

extension Array {
  /// The elements in groups of `n` (the last may be shorter).
  fileprivate func chunked(_ n: Int) -> [[Element]] {
    stride(from: 0, to: count, by: n).map { Array(self[$0..<Swift.min($0 + n, count)]) }
  }
}
