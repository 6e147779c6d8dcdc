import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// The NMEA output's pseudo-terminal (docs/NMEAOUT.md), read as a program reads a serial GPS,
/// and its sentences decoded by locd's decoder and by gpsd's gpsdecode.
@Suite struct NMEAOutTests {
  @Test func aProgramReadsTheLinkLikeASerialGPSAndTheSentencesDecodeToTheFixes() throws {
    let dir = LocdProcess.makeDirectory()
    let link = dir + "/nmea0"
    let log = Binaries.fixture("nmea/bu353s4.log").path
    let daemon = try LocdProcess(
      arguments: ["--source", "replay:\(log)?speed=4&loop=1"], directory: dir,
      config: "[NMEAOut]\nEnable=yes\nLink=\(link)\nGroup=\nMode=0640\n[Position]\nFreshFor=1s\n")
    var st = stat()
    let deadline = Date().addingTimeInterval(10)
    while lstat(link, &st) != 0 {
      guard Date() < deadline else { throw HarnessError("no link at \(link): \(daemon.log)") }
      usleep(20_000)
    }
    #expect(lstat(link, &st) == 0 && st.st_mode & S_IFMT == S_IFLNK, "a symbolic link")
    #expect(
      stat(link, &st) == 0 && st.st_mode & S_IFMT == S_IFCHR && st.st_mode & 0o777 == 0o640, "the pty, 0640")
    // A reader as a serial program is one: open without becoming its terminal, raw mode, read.
    let script = """
      import os, sys, tty
      fd = os.open("\(link)", os.O_RDONLY | os.O_NOCTTY)
      tty.setraw(fd)
      buf = b""
      while buf.count(b"GGA,") < 12:
          buf += os.read(fd, 4096)
      sys.stdout.write(buf.decode())
      """
    let r = try run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script], timeout: 60)
    #expect(r.status == 0, "\(r.stderr)")
    // The first read may begin inside a sentence written before the reader's first read, or
    // inside a cycle: from the first GGA on (this receiver's cycles begin with it).
    let sentences = r.stdout.split(whereSeparator: \.isNewline).map(String.init).filter { $0.hasPrefix("$") }
      .dropFirst().drop { !$0.hasPrefix("$GPGGA") }
    #expect(sentences.allSatisfy(hasValidChecksum), "\(sentences.filter { !hasValidChecksum($0) }.prefix(3))")
    // A replay reads NMEA: the pty carries the receiver's own sentences, byte for byte the
    // log's lines (this SiRF sends GGA, GSA, RMC and GSV; no VTG), not sentences locd rebuilt.
    let logLines = Set(
      try String(contentsOfFile: log, encoding: .isoLatin1).split(whereSeparator: \.isNewline).map(
        String.init))
    #expect(
      sentences.allSatisfy(logLines.contains), "\(sentences.filter { !logLines.contains($0) }.prefix(3))")
    let kinds = Set(sentences.map { String($0.dropFirst(3).prefix(3)) })
    #expect(kinds == ["RMC", "GGA", "GSA", "GSV"], "\(kinds)")
    let text = sentences.joined(separator: "\r\n") + "\r\n"
    // locd's decoder: the log's own fixes, to 1e-7 degrees and the altitude.
    let ours = try GpsdFaceRig.decode(text)
    let reference = try GpsdFaceRig.decode(try String(contentsOfFile: log, encoding: .isoLatin1))
    var compared = 0
    for (time, fix) in ours {
      let original = try #require(reference[time], "\(time.iso8601()) is a time of the log")
      let a = try #require(fix.coordinate)
      let b = try #require(original.coordinate)
      #expect(
        abs(a.latitude.value - b.latitude.value) < 1e-7 && abs(a.longitude.value - b.longitude.value) < 1e-7)
      #expect(fix.altitudeMSL == original.altitudeMSL && fix.mode == original.mode)
      compared += 1
    }
    #expect(compared >= 8, "\(compared)")
    // gpsd's decoder: the same positions (by time of day: gpsd moves this 2014 log's date
    // 1024 weeks forward, as in GpsdFaceTests).
    let decoded = try run(URL(fileURLWithPath: "/usr/bin/gpsdecode"), [], stdin: text)
    #expect(decoded.status == 0, "\(decoded.stderr)")
    var byTime: [String: JSON] = [:]
    for line in decoded.stdout.split(whereSeparator: \.isNewline) {
      guard let tpv = try? JSON.parse(String(line)), tpv["class"] == .string("TPV"),
        let t = tpv["time"]?.string,
        tpv["lat"] != nil
      else { continue }
      byTime[String(t.drop(while: { $0 != "T" }))] = tpv
    }
    var agreed = 0
    for (time, fix) in ours {
      guard let tpv = byTime[String(time.iso8601(fractionDigits: 3).drop(while: { $0 != "T" }))],
        let c = fix.coordinate
      else { continue }
      #expect(abs((tpv["lat"]?.number ?? 0) - c.latitude.value) < 1e-7)
      #expect(abs((tpv["lon"]?.number ?? 0) - c.longitude.value) < 1e-7)
      #expect(tpv["altMSL"]?.number == fix.altitudeMSL?.value)
      agreed += 1
    }
    #expect(agreed >= 8, "gpsdecode's TPVs of the same times: \(agreed)")
    // Nobody has it open any more: the output lets the receiver go, and says what it wrote.
    let s = try daemon.waitForStatus(timeout: 30) {
      $0.acquisition?.subscribers == 0 && $0.nmeaOut?.reading == false
    }
    let out = try #require(s.nmeaOut)
    let c = Dictionary(uniqueKeysWithValues: out.counters.map { ($0.name, $0.value) })
    #expect(out.link == link && out.pty?.hasPrefix("/dev/pts/") == true)
    // 12 GGAs read, each with its GSA and RMC at least: the receiver's, none rebuilt.
    #expect(c["readers"] == 1 && (c["relayed"] ?? 0) >= 12 * 3 && c["cycles"] == 0, "\(c)")
    // Issue 43, item 10: the text status says it too (it was only in --json).
    let screen = try daemon.locctl(["status"]).stdout
    let line = screen.split(separator: "\n").first { $0.hasPrefix("NMEA out:") }
    #expect(line?.contains("\(link) -> \(out.pty ?? "?"), not read;") == true, "\(screen)")
    #expect(line?.contains("\(c["relayed"] ?? -1) relayed") == true, "\(screen)")
  }

  /// A receiver log without GSA, written for `gpsdReadingTheOutputOfAGpsdSourceGetsItsFixes`:
  /// `cycles` seconds from 2025-09-04 10:00:00 UTC (a date gpsd 3.22 takes as it is: it
  /// moves dates before its build 1024 weeks ahead), each a GGA (a 3D fix of 8 satellites,
  /// HDOP 0.9), an RMC and three GSVs of those 8 satellites; moving north at 22 m/s, so
  /// each cycle is a new position for locd's engine. With no GSA, gpsd marks no satellite
  /// used: its SKY says `uSat` 0 and its TPVs carry no count of satellites used.
  static func logWithoutGSA(cycles: Int) -> String {
    let satellites =
      [(3, 67, 41), (6, 23, 300), (9, 44, 97), (14, 12, 210), (17, 58, 152), (19, 31, 12)]
      + [(22, 15, 265), (28, 80, 330)]
    var out = "# Synthesized by NMEAOutTests: a 3D fix of 8 satellites, no GSA (issue 42, item 3).\n"
    for i in 0..<cycles {
      let hms = String(format: "10%02d%02d.00", i / 60, i % 60)
      // 59°54.6000'N + 0.0120' (22.2 m) a second, 10°45.0000'E.
      let lat = String(format: "5954.%06d", 600_000 + 12_000 * i)
      out += nmea("GPGGA,\(hms),\(lat),N,01045.000000,E,1,08,0.9,20.0,M,40.0,M,,")
      out += nmea("GPRMC,\(hms),A,\(lat),N,01045.000000,E,43.2,0.0,040925,,,A")
      for part in 0..<3 {
        var body = "GPGSV,3,\(part + 1),08"
        for (prn, el, az) in satellites.dropFirst(part * 3).prefix(3) {
          body += String(format: ",%02d,%02d,%03d,40", prn, el, az)
        }
        out += nmea(body)
      }
    }
    return out
  }

  /// The chain issue 42 found broken: a source without NMEA (gpsd's JSON, from the real gpsd
  /// under gpsfake) through locd's NMEA output, read by a second real gpsd as a serial GPS.
  /// The receiver sends no GSA, so gpsd's SKY marks no satellite used (uSat 0) and its TPV has
  /// no count. The sentences locd writes for it must be read as the same fixes: before, its
  /// GGA said "00" satellites used, and gpsd takes a GGA under three satellites as no fix
  /// (gpsd 3.22 processGGA: `3 > satellites_visible` gives MODE_NO_FIX), so no position came
  /// through the chain (issue 42: 1 of 22).
  @Test func gpsdReadingTheOutputOfAGpsdSourceGetsItsFixes() throws {
    let dir = LocdProcess.makeDirectory()
    let link = dir + "/nmea0"
    let logPath = dir + "/no-gsa.log"
    let logText = Self.logWithoutGSA(cycles: 40)
    try logText.write(toFile: logPath, atomically: true, encoding: .utf8)
    let gpsdPort = freePort()
    let fake = try GpsFake(logPath, port: gpsdPort, interval: 0.05, directory: dir)
    defer { fake.stop() }
    let daemon = try LocdProcess(
      arguments: ["--source", "gpsd://127.0.0.1:\(gpsdPort)"], directory: dir,
      config: "[NMEAOut]\nEnable=yes\nLink=\(link)\nGroup=\nMode=0600\n[Acquisition]\nPolicy=continuous\n")
    _ = try daemon.waitForStatus(timeout: 30) { _ in FileManager.default.fileExists(atPath: link) }
    // The second gpsd: on the link as on a serial device, its own port and control socket.
    let port = freePort()
    let err = open(dir + "/second.log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let second = try Child(
      "/usr/sbin/gpsd", ["-N", "-n", "-S", "\(port)", "-F", dir + "/second.sock", link], stderrFD: err)
    close(err)
    defer {
      kill(second.pid, SIGTERM)
      second.wait(timeout: 5)
    }
    let deadline = Date().addingTimeInterval(15)
    while (try? connectTCP("127.0.0.1", port, timeout: 0.2)).map({ close($0) }) == nil {
      guard Date() < deadline else { throw HarnessError("the second gpsd did not listen") }
    }
    let pipe = try GpsdFaceRig.Capture(
      "/usr/bin/gpspipe", ["-w", "127.0.0.1:\(port)"], path: dir + "/second.out")
    let log = try GpsdFaceRig.decode(logText)
    var byTimeOfDay: [String: Fix] = [:]
    for (time, fix) in log {
      byTimeOfDay[String(time.iso8601(fractionDigits: 3).drop(while: { $0 != "T" }))] = fix
    }
    // Ten cycles the second gpsd read (each cycle of this receiver is a new position, which
    // locd's engine passes on): every one a fix, and the log's own. gpsd sends a TPV per
    // sentence until it has learnt the cycle (the first, after RMC, is 2D): a cycle's last
    // TPV is what gpsd made of it (the latest time is left out: it may still be building).
    func cycles() -> [String: JSON] {
      var out: [String: JSON] = [:]
      for tpv in pipe.reports("TPV") {
        if let t = tpv["time"]?.string { out[String(t.drop(while: { $0 != "T" }))] = tpv }
      }
      return out
    }
    try pipe.wait(timeout: 60) { _ in cycles().count >= 11 }
    pipe.stop()
    let got = cycles().sorted { $0.key < $1.key }.dropLast()
    // No cycle the second gpsd read as no fix: every GGA locd wrote had a fix and said so.
    let noFix = got.filter { ($0.1["mode"]?.number ?? 0) < 2 }
    #expect(
      noFix.isEmpty, "\(noFix.count) of \(got.count) read as no fix: \(noFix.prefix(2).map(\.1.serialized))")
    for (time, tpv) in got where (tpv["mode"]?.number ?? 0) >= 2 {
      let fix = try #require(byTimeOfDay[time], "\(time) is a cycle of the log")
      let c = try #require(fix.coordinate)
      #expect(abs((tpv["lat"]?.number ?? 0) - c.latitude.value) < 1e-7, "\(time)")
      #expect(abs((tpv["lon"]?.number ?? 0) - c.longitude.value) < 1e-7, "\(time)")
      // 3D, as the receiver's GGA said: locd's GGA said 4 satellites (the fewest a 3D fix
      // needs) where it knew no count, and gpsd takes 4 or more with an altitude as 3D.
      #expect(tpv["mode"] == .int(3), "\(time): \(tpv.serialized)")
      // Every GGA carried an HDOP, the log's 0.9 as the first gpsd gave it: gpsd's eph for
      // it, 0.9 × 19 m (gpsd_error_model's P_UERE_NO_DGPS).
      #expect(tpv["eph"]?.number == 17.1, "\(time): \(tpv.serialized)")
    }
    _ = daemon
  }

  @Test(.enabled(if: getuid() == 0, "setpriv to another uid needs root"))
  func itsModeIsItsPolicy() throws {
    let dir = LocdProcess.makeDirectory()
    let link = dir + "/nmea0"
    let daemon = try LocdProcess(
      directory: dir, config: "[NMEAOut]\nEnable=yes\nLink=\(link)\nGroup=\nMode=0600\n")
    _ = try daemon.waitForStatus { _ in FileManager.default.fileExists(atPath: link) }
    // Mode 0600, owned by locd's user (root here): another user cannot open it.
    let script =
      "import os\ntry:\n    os.open('\(link)', os.O_RDONLY | os.O_NOCTTY)\n    print('opened')\nexcept PermissionError:\n    print('refused')\n"
    let r = try run(
      URL(fileURLWithPath: "/usr/bin/setpriv"),
      ["--reuid=65534", "--regid=65534", "--clear-groups", "--", "/usr/bin/python3", "-c", script])
    #expect(r.stdout == "refused\n", "\(r.stdout) \(r.stderr)")
    daemon.stop()
    #expect(!FileManager.default.fileExists(atPath: link), "the link goes with locd")
  }

  /// A client of the NMEA output's TCP port: everything it receives, written to a file.
  static func tcpReader(port: Int, uid: UInt32?, path: String) throws -> GpsdFaceRig.Capture {
    let script = """
      import socket, sys
      s = socket.create_connection(("127.0.0.1", \(port)))
      while True:
          b = s.recv(4096)
          if not b:
              break
          sys.stdout.buffer.write(b)
          sys.stdout.flush()
      """
    guard let uid else { return try GpsdFaceRig.Capture("/usr/bin/python3", ["-c", script], path: path) }
    return try GpsdFaceRig.Capture(
      "/usr/bin/setpriv",
      ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--", "/usr/bin/python3", "-c", script],
      path: path)
  }

  @Test(.enabled(if: getuid() == 0, "setpriv to another uid needs root"))
  func theTCPPortStreamsTheReceiversSentencesToWhoMayHaveThem() throws {
    let dir = LocdProcess.makeDirectory()
    let port = freePort()
    let (daemon, log) = try GpsdFaceRig.nmeaOutReplay(dir: dir, port: port)
    let logLines = Set(
      try String(contentsOfFile: log, encoding: .isoLatin1).split(separator: "\n").map(String.init))
    // root (admin): a plain reader, the receiver's sentences as they came.
    let root = try Self.tcpReader(port: port, uid: nil, path: dir + "/root.out")
    // Another user: the app `nmea-client` of its uid, without a decision: nothing at all.
    let nobody = try Self.tcpReader(port: port, uid: 65534, path: dir + "/nobody.out")
    try root.wait { $0.filter { $0.hasPrefix("$GPGGA") }.count >= 12 }
    let sentences = root.lines.filter { !$0.isEmpty }
    #expect(
      sentences.allSatisfy(logLines.contains), "\(sentences.filter { !logLines.contains($0) }.prefix(3))")
    #expect(Set(sentences.map { String($0.dropFirst(3).prefix(3)) }) == ["RMC", "GGA", "GSA", "GSV"])
    #expect(nobody.lines.isEmpty, "no decision, no sentence: \(nobody.lines.prefix(2))")
    nobody.stop()
    // Granted full accuracy: the same stream.
    let grant = try daemon.locctl(["apps", "grant", "nmea-client", "--user", "65534"])
    #expect(grant.status == 0, "\(grant.stderr)")
    let granted = try Self.tcpReader(port: port, uid: 65534, path: dir + "/granted.out")
    try granted.wait { $0.filter { $0.hasPrefix("$GPGGA") }.count >= 3 }
    granted.stop()
    #expect(granted.lines.filter { !$0.isEmpty }.allSatisfy(logLines.contains))
    root.stop()
    let s = try daemon.waitForStatus(timeout: 30) {
      ($0.nmeaOut?.counters.first { $0.name == "tcpClients" }?.value) == 0
    }
    let c = Dictionary(uniqueKeysWithValues: try #require(s.nmeaOut).counters.map { ($0.name, $0.value) })
    #expect((c["tcpAccepted"] ?? 0) == 3 && (c["tcpRelayed"] ?? 0) >= 12 * 3, "\(c)")
  }
}
