import Foundation
import Glibc
import LocCore
import Testing

@Suite struct DaemonLifecycleTests {
  @Test func manualLocationSurvivesRestartInA0600File() throws {
    let dir = LocdProcess.makeDirectory()
    var daemon = try LocdProcess(directory: dir)
    let set = try daemon.locctl(["set-location", "69.6492", "18.9553", "--name", "Tromsø"])
    #expect(set.status == 0, "\(set.stderr)")
    var s = try daemon.status()
    #expect(s.position.tier == .manual)
    #expect(s.position.position?.name == "Tromsø")
    #expect(daemon.stop() == 0)
    var st = stat()
    #expect(stat(daemon.stateDirectory + "/state.json", &st) == 0)
    #expect(st.st_mode & 0o777 == 0o600)
    // Nothing else with coordinates is left behind.
    #expect(try FileManager.default.contentsOfDirectory(atPath: daemon.stateDirectory) == ["state.json"])

    daemon = try LocdProcess(directory: dir)
    s = try daemon.status()
    #expect(s.position.tier == .manual)
    #expect(s.position.position?.coordinate.latitude.value == 69.6492)
    let cleared = try daemon.locctl(["clear-location"])
    #expect(cleared.status == 0)
    s = try daemon.status()
    #expect(s.position.tier == .none)
    #expect(s.position.remedy?.contains("set-location") == true)
  }

  @Test func corruptStateFileIsReportedAndIgnored() throws {
    let dir = LocdProcess.makeDirectory()
    mkdir(dir + "/state", 0o700)
    try "{\"version\":1,\"lastKnown\":{\"lat\":".write(
      toFile: dir + "/state/state.json", atomically: true, encoding: .utf8)
    let daemon = try LocdProcess(directory: dir)
    let s = try daemon.status()
    #expect(s.daemon.stateProblem?.contains("state.json") == true)
    #expect(s.position.tier == .none)
    #expect(daemon.log.contains("state file ignored"))
    // The daemon keeps working and writes a good file on the next change.
    #expect(try daemon.locctl(["set-location", "1", "2"]).status == 0)
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/state/state.json")))
    #expect(try StoredState(decoding: bytes).manual?.coordinate == Coordinate(lat: 1, lon: 2))
  }

  @Test func killDuringHeavyWritingNeverLeavesAnUnreadableFile() throws {
    let dir = LocdProcess.makeDirectory()
    for round in 0..<12 {
      let daemon = try LocdProcess(directory: dir)
      let client = try RawClient(path: daemon.socketPath)
      try client.handshake()
      // Pipeline many writes, then kill -9 while they are being carried out.
      var batch = ""
      for i in 0..<400 {
        batch +=
          #"{"id":\#(i + 1),"method":"set-location","params":{"lat":\#(Double(i % 90)),"lon":\#(Double(round)),"name":"\#(String(repeating: "x", count: i % 100))"}}"#
          + "\n"
      }
      try client.send(batch)
      _ = try client.readLine()
      usleep(UInt32(1000 * (round % 5)))
      daemon.stop(signal: SIGKILL)
      let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/state/state.json")))
      let state = try StoredState(decoding: bytes)
      #expect(state.manual != nil)
    }
  }

  @Test func sighupReloadsAndABrokenConfigKeepsTheOldOne() throws {
    let dir = LocdProcess.makeDirectory()
    let daemon = try LocdProcess(directory: dir, config: "[Position]\nTimeZone=Europe/Oslo\n")
    #expect(try daemon.status().timezone.zone.id == "Europe/Oslo")
    try "[Position]\nTimeZone=Asia/Tokyo\n".write(
      toFile: dir + "/locd.conf", atomically: true, encoding: .utf8)
    kill(daemon.pid, SIGHUP)
    _ = try daemon.waitForStatus { $0.timezone.zone.id == "Asia/Tokyo" }
    try "[Position]\nTimeZone=Europe/Paris\nFreshFor=soon\n".write(
      toFile: dir + "/locd.conf", atomically: true, encoding: .utf8)
    let reload = try daemon.locctl(["reload"])
    #expect(reload.status == 1)
    #expect(reload.stderr.contains("locd.conf:3: FreshFor= must be a time span"))
    #expect(try daemon.status().timezone.zone.id == "Asia/Tokyo")
    #expect(daemon.log.contains("keeping the old one"))
  }

  /// A socket other than the system's is a locd started by hand: the hint names that path,
  /// not systemd's unit (issue 43, item 8: it said 'systemctl start locd' for any path).
  @Test func locctlSaysWhenLocdIsNotRunning() throws {
    let r = try run(Binaries.locctl, ["status"], environment: ["LOCD_SOCKET": "/tmp/locd-e2e-none/locd.sock"])
    #expect(r.status == 3)
    #expect(r.stderr.contains("/tmp/locd-e2e-none/locd.sock"))
    #expect(r.stderr.contains("start one with 'locd --socket /tmp/locd-e2e-none/locd.sock'"), "\(r.stderr)")
    #expect(!r.stderr.contains("systemctl"), "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1)
  }

  /// The system socket is the unit's: there the hint is systemd's.
  @Test(
    .enabled(if: !FileManager.default.fileExists(atPath: "/run/locd/locd.sock"), "a locd serves /run/locd"))
  func locctlSaysSystemctlForTheSystemSocket() throws {
    let r = try run(Binaries.locctl, ["--socket", "/run/locd/locd.sock", "status"])
    #expect(r.status == 3)
    #expect(r.stderr.contains("start it with 'systemctl start locd'"), "\(r.stderr)")
  }

  @Test func checkConfigReportsFileAndLine() throws {
    let dir = LocdProcess.makeDirectory()
    let path = dir + "/bad.conf"
    try "[Daemon]\nLogLevel=loud\n[Sources]\nSource=gpsd://host:99999\n".write(
      toFile: path, atomically: true, encoding: .utf8)
    let bad = try run(Binaries.locd, ["--config", path, "--check-config"])
    #expect(bad.status == 1)
    #expect(
      bad.stderr.contains(
        "\(path):2: LogLevel= must be emerg, alert, crit, err, warning, notice, info or debug, not 'loud'"))
    #expect(bad.stderr.contains("\(path):4: invalid source"))
    try "[Daemon]\nLogLevel=debug\n".write(toFile: path, atomically: true, encoding: .utf8)
    let good = try run(Binaries.locd, ["--config", path, "--check-config", "--socket", "/run/x.sock"])
    #expect(good.status == 0)
    // The configuration in effect, in locd.conf syntax: the file's key and the command line's
    // set, the rest at their defaults, commented out.
    #expect(good.stdout.contains("\n[Daemon]\nSocket=/run/x.sock\n"))
    #expect(good.stdout.contains("\nLogLevel=debug\n"))
    #expect(good.stdout.contains("\n#FreshFor=10s\n"))
  }

  @Test func refusesToStartOverALiveDaemon() throws {
    let first = try LocdProcess()
    let second = try LocdProcess(directory: first.directory, wait: false)
    #expect(second.child.wait() != 0)
    #expect(second.log.contains("another locd answers"))
    // The first daemon still answers (status throws otherwise).
    _ = try first.status()
  }
}
