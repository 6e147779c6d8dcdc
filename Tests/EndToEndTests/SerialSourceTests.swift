import Foundation
import Glibc
import LocCore
import Testing

/// `serial:` against a pseudo-terminal posing as the receiver, reached through a symlink
/// as udev's /dev/serial/by-id links are: raw mode, fixed and automatic speed, unplug and
/// replug.
@Suite struct SerialSourceTests {
  /// Points `link` at `target`, atomically (rename(2)), as udev does on replug.
  static func relink(_ link: String, to target: String) throws {
    unlink(link + ".new")
    guard symlink(target, link + ".new") == 0, rename(link + ".new", link) == 0 else {
      throw HarnessError("symlink \(link): \(String(cString: strerror(errno)))")
    }
  }

  @Test func rawModeAtAFixedSpeedSurvivesUnplugAndReplug() throws {
    let dir = LocdProcess.makeDirectory()
    let link = dir + "/gps0"
    var device = try FakeSerialDevice()
    try Self.relink(link, to: device.path)
    let daemon = try LocdProcess(arguments: ["--source", "serial:\(link)?baud=4800"], directory: dir)
    var c = try daemon.waitForCounters { $0["opens"] == 1 }
    #expect(c["baud"] == 4800)
    #expect(try daemon.status().sourceState() == .known(.connected))
    var t = device.settings
    #expect(cfgetispeed(&t) == speed_t(B4800))
    #expect(t.c_lflag & tcflag_t(ICANON | ECHO) == 0, "raw: no line editing, no echo")
    #expect(t.c_iflag & tcflag_t(ICRNL | IXON) == 0, "raw: no CR translation, no flow control")
    #expect(t.c_cflag & tcflag_t(CSIZE) == tcflag_t(CS8))
    #expect(t.c_cflag & tcflag_t(CLOCAL | CREAD) == tcflag_t(CLOCAL | CREAD))

    try device.write(epochs(3, endingSecondsAgo: 30))
    try daemon.waitForCounters { $0["fixes"] == 3 }

    // Unplugged: locd closes the device and keeps trying to open it. The link goes too, as
    // udev removes it: the pty's number is free for another test's pty meanwhile.
    device.unplug()
    unlink(link)
    c = try daemon.waitForCounters { $0["disconnects"] == 1 }
    #expect(try daemon.status().sourceState() == .known(.reconnecting))
    // A hung-up pty reads as end of file; a pulled USB adapter as EIO. Either is an unplug.
    #expect(
      daemon.log.contains("end of file; opening again")
        || daemon.log.contains("Input/output error; opening again"))

    // Plugged in again: a new device node behind the same link.
    device = try FakeSerialDevice()
    try Self.relink(link, to: device.path)
    c = try daemon.waitForCounters { $0["opens"] == 2 }
    #expect(try daemon.status().sourceState() == .known(.connected))
    try device.write(epochs(2, endingSecondsAgo: 1, firstIndex: 3))
    c = try daemon.waitForCounters { $0["fixes"] == 5 }
    #expect(c["badChecksums"] == 0)
    #expect(
      daemon.log.components(separatedBy: "opening again every 2 s").count - 1 == 1, "one log line per outage")
  }

  @Test func automaticSpeedWaitsForTheDeviceSkipsGarbageAndSettles() throws {
    let dir = LocdProcess.makeDirectory()
    let link = dir + "/gps0"
    let daemon = try LocdProcess(arguments: ["--source", "serial:\(link)?baud=auto"], directory: dir)
    // Not plugged in yet: waited for.
    _ = try daemon.waitForStatus { $0.sourceState() == .known(.reconnecting) }
    #expect(
      try daemon.status().sources.first?.lastError?.contains("No such file") == true)

    let device = try FakeSerialDevice()
    try Self.relink(link, to: device.path)
    var c = try daemon.waitForCounters { $0["opens"] == 1 }
    #expect(c["baud"] == 9600)
    #expect(try daemon.status().sourceState() == .known(.starting))
    // At the first speed the receiver looks like noise (as at a wrong baud rate): the hunt
    // moves on to the next, 4800, where its sentences come through.
    var generator = SplitMix64(seed: 9600)
    let deadline = Date().addingTimeInterval(10)
    while try daemon.status().counters()["baud"] != 4800 {
      guard Date() < deadline else { throw HarnessError("the speed hunt did not move on") }
      try writeAll(
        device.master, (0..<64).map { _ in UInt8(truncatingIfNeeded: generator.next()) & 0x7F | 0x40 })
      usleep(100_000)
    }
    try device.write(epochs(3))
    _ = try daemon.waitForStatus { $0.sourceState() == .known(.connected) }
    c = try daemon.waitForCounters { $0["fixes"] == 3 }
    #expect(c["baud"] == 4800)
    #expect(c["baudProbes"] == 2)
    #expect(c["junkBytes"] ?? 0 > 0)
    var t = device.settings
    #expect(cfgetispeed(&t) == speed_t(B4800))
    #expect(daemon.log.contains("receiving NMEA at 4800 baud"))
  }
}
