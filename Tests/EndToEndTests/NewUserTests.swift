import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Issue 15, "Found by a new user", against the real locd.
@Suite struct NewUserTests {
  @Test func anAutomaticSpeedSerialReceiverIsConnectedAfterAnIdleClose() throws {
    // Before: after every on-demand wake the source stayed `starting` while fixes flowed
    // (the speed hunt stayed locked and never said so again).
    let device = try FakeSerialDevice()
    let daemon = try LocdProcess(arguments: ["--source", "serial:\(device.path)?baud=auto"])
    _ = try daemon.waitForCounters { $0["opens"] == 1 }
    try device.write(AcquisitionEndToEndTests.stableEpochs(3))
    var s = try daemon.waitForStatus {
      AcquisitionEndToEndTests.settled($0, attempts: 1) && $0.sourceState() == .known(.idle)
    }
    let baud = try #require(s.counters()["baud"])
    _ = try daemon.locctl(["refresh"])
    s = try daemon.waitForStatus { $0.counters()["opens"] == 2 && $0.acquisition?.phase == .acquiring }
    #expect(s.sourceState() == .known(.connected), "connected at once at the speed that worked")
    #expect(s.counters()["baud"] == baud)
    try device.write(AcquisitionEndToEndTests.stableEpochs(3))
    _ = try daemon.waitForStatus { AcquisitionEndToEndTests.settled($0, attempts: 2) }
  }

  @Test func replayCountersKeepGrowingAcrossRounds() throws {
    // SOURCES.md: counters only grow. Before, each round started from zero.
    let log = LocdProcess.makeDirectory() + "/three.nmea"
    try epochs(3, endingSecondsAgo: 60).write(toFile: log, atomically: true, encoding: .utf8)
    let daemon = try LocdProcess(arguments: ["--source", "replay:\(log)?speed=max&loop=1"])
    let c = try daemon.waitForCounters(timeout: 20) { ($0["rounds"] ?? 0) >= 4 }
    let rounds = try #require(c["rounds"])
    // Three fixes and six sentences a round; the current round may be partly played.
    #expect((c["fixes"] ?? 0) >= 3 * (rounds - 1))
    #expect((c["sentences"] ?? 0) >= 6 * (rounds - 1))
  }
}
