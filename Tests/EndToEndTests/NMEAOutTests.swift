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
    // The first read may begin inside a sentence written before the reader's first read.
    let sentences = r.stdout.split(whereSeparator: \.isNewline).map(String.init).filter { $0.hasPrefix("$") }
      .dropFirst()
    #expect(sentences.allSatisfy(hasValidChecksum), "\(sentences.filter { !hasValidChecksum($0) }.prefix(3))")
    let kinds = Set(sentences.map { String($0.dropFirst(3).prefix(3)) })
    #expect(kinds == ["RMC", "GGA", "GSA", "VTG", "GSV"], "\(kinds)")
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
    #expect(c["readers"] == 1 && (c["cycles"] ?? 0) >= 12 && (c["sentences"] ?? 0) >= 12 * 5, "\(c)")
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
}
