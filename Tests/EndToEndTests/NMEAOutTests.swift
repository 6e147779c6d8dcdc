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

  @Test func itsModeIsItsPolicy() throws {
    guard getuid() == 0 else { return }  // setpriv to another uid needs root
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

  @Test func theTCPPortStreamsTheReceiversSentencesToWhoMayHaveThem() throws {
    guard getuid() == 0 else { return }  // setpriv to another uid needs root
    let dir = LocdProcess.makeDirectory()
    let port = freePort()
    let log = Binaries.fixture("nmea/bu353s4.log").path
    let daemon = try LocdProcess(
      arguments: ["--source", "replay:\(log)?speed=4&loop=1"], directory: dir,
      config: "[NMEAOut]\nEnable=yes\nLink=\(dir)/nmea0\nGroup=\nListenPort=\(port)\n")
    _ = try daemon.waitForStatus { $0.nmeaOut != nil }
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
