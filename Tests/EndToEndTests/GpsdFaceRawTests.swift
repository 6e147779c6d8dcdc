import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// The receiver's own sentences through the gpsd face (`?WATCH={"raw":1}`), against the real
/// gpsd reading the same log under gpsfake, and SKY before any fix (docs/GPSD.md).
@Suite struct GpsdFaceRawTests {
  /// The log's NMEA lines (its `#` comments are gpsfake's and locd's to skip), without line ends.
  static func sentences(ofLog path: String) throws -> [String] {
    try String(contentsOfFile: path, encoding: .isoLatin1).split(separator: "\n").map(String.init).filter {
      $0.hasPrefix("$")
    }
  }

  @Test func gpspipeRawGetsTheLogsOwnSentencesAsFromGpsd() throws {
    let dir = LocdProcess.makeDirectory()
    let gpsdPort = freePort()
    let fake = try GpsFake("nmea/bu353s4.log", port: gpsdPort, interval: 0.02, directory: dir)
    defer { fake.stop() }
    let theirs = try GpsdFaceRig.Capture(
      "/usr/bin/gpspipe", ["-r", "127.0.0.1:\(gpsdPort)"], path: dir + "/gpsd-raw.out")
    let rig = try GpsdFaceRig()
    let ours = try rig.gpspipe(["-r"], name: "locd-raw")
    let log = try Self.sentences(ofLog: rig.log)
    // A whole pass of the log from its first line (each may begin anywhere in it).
    let enough = { (lines: [String]) -> Bool in
      let sentences = lines.filter { $0.hasPrefix("$") }
      guard let start = sentences.firstIndex(of: log[0]) else { return false }
      return sentences.count - start >= log.count
    }
    try ours.wait(enough)
    try theirs.wait(enough)
    ours.stop()
    theirs.stop()
    let mine = ours.lines.filter { $0.hasPrefix("$") }
    let gpsds = theirs.lines.filter { $0.hasPrefix("$") }
    // Every sentence is one of the log's lines, byte for byte, from both daemons; both passed
    // on every line of the log.
    let all = Set(log)
    #expect(mine.allSatisfy(all.contains), "locd: \(mine.filter { !all.contains($0) }.prefix(3))")
    #expect(gpsds.allSatisfy(all.contains), "gpsd: \(gpsds.filter { !all.contains($0) }.prefix(3))")
    #expect(Set(mine) == all && Set(gpsds) == all)
    // In the log's order: one pass of locd's (from its first GGA) is the log itself, and so is
    // gpsd's.
    for (who, lines) in [("locd", mine), ("gpsd", gpsds)] {
      let start = try #require(lines.firstIndex(of: log[0]), "\(who) sent the log's first line")
      let pass = Array(lines[start...].prefix(log.count))
      #expect(pass == log, "\(who): one pass in the log's order")
    }
    // Line ends: locd ends each sentence with CR LF as NMEA 0183 says (the log has LF only).
    // What gpsd 3.22 writes is printed for the record, not asserted.
    let bytes = try #require(FileManager.default.contents(atPath: ours.path))
    let ends = bytes.indices.filter { bytes[$0] == 0x0A }
    #expect(!ends.isEmpty && ends.allSatisfy { $0 > 0 && bytes[$0 - 1] == 0x0D })
    let theirBytes = try #require(FileManager.default.contents(atPath: theirs.path))
    let crlf = theirBytes.indices.filter { theirBytes[$0] == 0x0A && $0 > 0 && theirBytes[$0 - 1] == 0x0D }
      .count
    print("gpsd 3.22 raw: \(crlf) of \(theirBytes.filter { $0 == 0x0A }.count) lines end in CR LF")
  }

  /// A receiver that sees satellites but has no fix: the GSV sentences of bu353s4.log (a
  /// GlobalSat BU-353-S4, Tests/Fixtures/nmea/PROVENANCE.md), each group after a GGA of quality
  /// 0 of the cycle's time (fields emptied, checksum worked out here).
  static func noFixLog(_ path: String) throws {
    let source = try sentences(ofLog: Binaries.fixture("nmea/bu353s4.log").path)
    var out = ""
    var time = ""
    var gsvOfThisTime = false
    for line in source {
      if line.hasPrefix("$GPGGA,") {
        time = String(line.split(separator: ",")[1])
        gsvOfThisTime = false
      } else if line.hasPrefix("$GPGSV,") {
        if !gsvOfThisTime { out += withChecksum("GPGGA,\(time),,,,,0,00,,,M,,M,,") + "\n" }
        gsvOfThisTime = true
        out += line + "\n"
      }
    }
    try out.write(toFile: path, atomically: true, encoding: .ascii)
  }

  /// `$BODY*hh`: NMEA 0183's checksum, the XOR of the body's bytes.
  static func withChecksum(_ body: String) -> String {
    var sum: UInt8 = 0
    for b in body.utf8 { sum ^= b }
    let digits = Array("0123456789ABCDEF")
    return "$" + body + "*" + String([digits[Int(sum >> 4)], digits[Int(sum & 15)]])
  }

  @Test func aWatcherGetsTheSkyBeforeAnyFix() throws {
    let dir = LocdProcess.makeDirectory()
    let log = dir + "/nofix.log"
    try Self.noFixLog(log)
    let port = freePort()
    let daemon = try LocdProcess(
      arguments: ["--source", "replay:\(log)?speed=4&loop=1"], directory: dir,
      config: "[Gpsd]\nEnable=yes\nSocket=\(dir)/gpsd.sock\nListenPort=\(port)\n")
    let pipe = try GpsdFaceRig.Capture(
      "/usr/bin/gpspipe", ["-w", "127.0.0.1:\(port)"], path: dir + "/sky.out")
    try pipe.wait { $0.filter { $0.contains("\"class\":\"SKY\"") }.count >= 2 }
    pipe.stop()
    // The log's satellites (its first GSV group: PRN 17 at 72° elevation, 207° azimuth, 32
    // dB-Hz), none used, and no position at all.
    let sky = try #require(pipe.reports("SKY").first)
    let satellites = try #require(sky["satellites"]?.array)
    #expect(satellites.count == 12, "\(sky.serialized)")
    #expect(
      satellites.contains {
        $0["PRN"] == .int(17) && $0["el"]?.number == 72 && $0["az"]?.number == 207 && $0["ss"]?.number == 32
      }, "\(sky.serialized)")
    #expect(satellites.allSatisfy { $0["used"] == .bool(false) })
    #expect(
      pipe.reports("TPV").allSatisfy { $0["lat"] == nil && ($0["mode"]?.number ?? 1) < 2 }, "\(pipe.lines)")
    _ = daemon
  }

  @Test func aSerialReceiversOwnSentencesAndNoneRebuilt() throws {
    let dir = LocdProcess.makeDirectory()
    var device = try FakeSerialDevice()
    let port = freePort()
    let daemon = try LocdProcess(
      arguments: ["--source", "serial:\(device.path)?baud=4800"], directory: dir,
      config: "[Gpsd]\nEnable=yes\nSocket=\(dir)/gpsd.sock\nListenPort=\(port)\n")
    _ = try daemon.waitForCounters { $0["opens"] == 1 }
    let pipe = try GpsdFaceRig.Capture(
      "/usr/bin/gpspipe", ["-r", "127.0.0.1:\(port)"], path: dir + "/raw.out")
    // The receiver (SourcePeers' RMC and GGA, each with CR LF), a cycle a quarter second.
    var written: [String] = []
    var index = 0
    while pipe.lines.filter({ $0.hasPrefix("$GPGGA") }).count < 4 {
      guard index < 200 else { throw HarnessError("no GGA through the face: \(pipe.lines.suffix(3))") }
      let cycle = epochs(1, endingSecondsAgo: 0, firstIndex: index)
      written += cycle.split(separator: "\r\n").map(String.init)
      try device.write(cycle)
      index += 1
      usleep(250_000)
    }
    pipe.stop()
    let got = pipe.lines.filter { $0.hasPrefix("$") }
    // What the receiver wrote, byte for byte; nothing locd made (it would add GSA and VTG).
    #expect(got.allSatisfy(Set(written).contains), "\(got.filter { !written.contains($0) }.prefix(3))")
    #expect(Set(got.map { String($0.dropFirst(3).prefix(3)) }) == ["RMC", "GGA"])
    #expect(try daemon.status().sourceState() == .known(.connected), "the daemon and its source go on")
    device.unplug()
  }

  @Test func aGpsdSourceInNMEAModePassesGpsdsSentencesOn() throws {
    let dir = LocdProcess.makeDirectory()
    let gpsdPort = freePort()
    let fake = try GpsFake("nmea/bu353s4.log", port: gpsdPort, interval: 0.02, directory: dir)
    defer { fake.stop() }
    let port = freePort()
    let daemon = try LocdProcess(
      arguments: ["--source", "gpsd://127.0.0.1:\(gpsdPort)?nmea=1"], directory: dir,
      config: "[Gpsd]\nEnable=yes\nSocket=\(dir)/gpsd.sock\nListenPort=\(port)\n")
    let pipe = try GpsdFaceRig.Capture(
      "/usr/bin/gpspipe", ["-r", "127.0.0.1:\(port)"], path: dir + "/raw.out")
    try pipe.wait { $0.filter { $0.hasPrefix("$GPGGA") }.count >= 5 }
    pipe.stop()
    let log = Set(try Self.sentences(ofLog: Binaries.fixture("nmea/bu353s4.log").path))
    let got = pipe.lines.filter { $0.hasPrefix("$") }
    #expect(got.allSatisfy(log.contains), "\(got.filter { !log.contains($0) }.prefix(3))")
    // gpsd's JSON (its VERSION, DEVICES, WATCH) is not a sentence: none of it came through.
    // locd's own VERSION names gpsd's release too; its `rev` is locd's, gpsd's is "3.22".
    #expect(!pipe.lines.contains { $0.contains("\"rev\":\"3.") }, "gpsd's VERSION is gpsd's alone")
    _ = daemon
  }

  @Test(.enabled(if: getuid() == 0, "setpriv to another uid needs root"))
  func rawWatchersWithoutFullAccuracyNeverGetTheReceiversSentences() throws {
    let rig = try GpsdFaceRig()
    let log = Set(try Self.sentences(ofLog: rig.log))
    let root = try rig.gpspipe(["-r"], name: "root-raw")
    // No decision: not a sentence while root reads a dozen cycles.
    let undecided = try rig.gpspipe(["-r"], uid: 65534, name: "undecided-raw")
    try root.wait { $0.filter { $0.hasPrefix("$GPGGA") }.count >= 12 }
    undecided.stop()
    #expect(!undecided.lines.contains { $0.hasPrefix("$") }, "\(undecided.lines.prefix(3))")
    // Reduced: sentences of the 5 km cell, never one of the receiver's.
    let grant = try rig.daemon.locctl(["apps", "grant", "gpsd-client", "--user", "65534", "--reduced"])
    #expect(grant.status == 0, "\(grant.stderr)")
    let reduced = try rig.gpspipe(["-r"], uid: 65534, name: "reduced-raw")
    // (A reduced app is given its cell when the cell changes: one here, the log stays in it.)
    try reduced.wait { $0.contains { $0.contains("GGA,") } }
    reduced.stop()
    root.stop()
    let sentences = reduced.lines.filter { $0.hasPrefix("$") }
    #expect(!sentences.contains(where: log.contains), "\(sentences.filter(log.contains).prefix(2))")
    let fixes = try GpsdFaceRig.decode(sentences.joined(separator: "\r\n") + "\r\n")
    let cell = try #require(fixes.values.first?.coordinate)
    let d = try GpsdFaceAccessTests.distanceToLog(cell.latitude.value, cell.longitude.value, rig)
    #expect(d > 10 && d < 10_000, "the cell, \(d) m from the nearest fix")
    #expect(root.lines.filter { $0.hasPrefix("$") }.allSatisfy(log.contains), "root: the receiver's")
  }
}
