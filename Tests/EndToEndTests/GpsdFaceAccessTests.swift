import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Who gets what through the gpsd face (a client is an app: docs/GPSD.md), and what bad
/// clients cost.
@Suite struct GpsdFaceAccessTests {
  /// A coordinate's distance to the nearest of the log's fixes.
  static func distanceToLog(_ lat: Double, _ lon: Double, _ rig: GpsdFaceRig) throws -> Double {
    let point = try #require(Coordinate(latitude: Degrees(lat), longitude: Degrees(lon)))
    return try rig.logFixes().values.compactMap { $0.coordinate?.distance(to: point).value }.min()
      ?? .infinity
  }

  @Test(.enabled(if: getuid() == 0, "setpriv to another uid needs root"))
  func anotherUserGetsNoPositionUntilGrantedThenTheReducedOne() throws {
    let rig = try GpsdFaceRig()
    // root (admin) sees the fixes flow the whole time nobody is refused them.
    let root = try rig.gpspipe(["-w"], name: "root")
    let nobody = try rig.gpspipe(["-w"], uid: 65534, name: "nobody")
    try nobody.wait { $0.contains { $0.contains("\"class\":\"ERROR\"") } }
    let before = root.reports("TPV").filter { $0["lat"] != nil }.count
    try root.wait { lines in lines.filter { $0.contains("\"lat\":") }.count >= before + 8 }
    nobody.stop()
    #expect(nobody.reports("VERSION").count == 1)
    #expect(
      nobody.lines.allSatisfy { !$0.contains("\"lat\"") && !$0.contains("\"satellites\"") }, "\(nobody.lines)"
    )
    let error = try #require(nobody.reports("ERROR").first?["message"]?.string)
    // A TCP client's process is unknown, so it is the app `gpsd-client` of its uid.
    #expect(error.contains("gpsd-client") && error.contains("waits for a decision"), "\(error)")

    let grant = try rig.daemon.locctl(["apps", "grant", "gpsd-client", "--user", "65534", "--reduced"])
    #expect(grant.status == 0, "\(grant.stderr)")
    let reduced = try rig.gpspipe(["-w"], uid: 65534, name: "reduced")
    try reduced.wait { $0.contains { $0.contains("\"lat\":") } }
    try root.wait { lines in lines.filter { $0.contains("\"class\":\"SKY\"") }.count >= 2 }
    reduced.stop()
    let tpv = try #require(reduced.reports("TPV").first { $0["lat"] != nil })
    #expect(tpv["mode"] == .int(2))
    for key in ["altHAE", "altMSL", "alt", "speed", "track", "climb", "epv"] {
      #expect(tpv[key] == nil, "\(key)")
    }
    // The reduced grid (docs/APPS.md: about 5 km cells): the cell, not the fix.
    let d = try Self.distanceToLog(tpv["lat"]!.number!, tpv["lon"]!.number!, rig)
    #expect(d > 10 && d < 10_000, "\(d) m from the nearest fix")
    #expect((tpv["eph"]?.number ?? 0) > 1000)
    #expect(reduced.reports("SKY").isEmpty, "no satellites for reduced accuracy")
    root.stop()
  }

  /// Issue 40, finding 6: a gpsd client whose grant was taken back went silent, no ERROR
  /// saying why (told "waits for a decision" before its grant, it was not told the same
  /// words again after `locctl apps reset`). Now it is told that its grant was withdrawn and
  /// its reports stop; its watch stays, so a new grant brings them back, and a denial is
  /// told in its own words. The real gpspipe as uid 65534 (a TCP client: app `gpsd-client`).
  @Test(.enabled(if: getuid() == 0, "setpriv to another uid needs root"))
  func aClientWhoseGrantIsTakenBackIsToldWhy() throws {
    let rig = try GpsdFaceRig()
    let root = try rig.gpspipe(["-w"], name: "root")
    let app = try rig.gpspipe(["-w"], uid: 65534, name: "app")
    try app.wait { $0.contains { $0.contains("waits for a decision") } }
    func locctl(_ verb: String) throws {
      let r = try rig.daemon.locctl(["apps", verb, "gpsd-client", "--user", "65534"])
      #expect(r.status == 0, "\(verb): \(r.stderr)")
    }
    func positions() -> Int { app.lines.filter { $0.contains("\"lat\":") }.count }
    func errors() -> [String] { app.reports("ERROR").compactMap { $0["message"]?.string } }

    try locctl("grant")
    try app.wait { _ in positions() > 0 }
    try locctl("reset")
    try app.wait { _ in errors().count == 2 }
    #expect(errors()[1].contains("had its authorization withdrawn") && errors()[1].contains("reports stop"))
    // Nothing more for it while root gets eight more fixes (the positive signal that fixes
    // went on flowing).
    let seen = positions()
    let before = root.lines.filter { $0.contains("\"lat\":") }.count
    try root.wait { lines in lines.filter { $0.contains("\"lat\":") }.count >= before + 8 }
    #expect(positions() == seen, "no position after the reset")

    // Granted again: its watch still stands, the fixes come back; then denied: told so.
    try locctl("grant")
    try app.wait { _ in positions() > seen }
    try locctl("deny")
    try app.wait { _ in errors().count == 3 }
    #expect(errors()[2].contains("may no longer have the location: denied"), "\(errors())")
    let c = Dictionary(
      uniqueKeysWithValues: (try rig.daemon.status().gpsd?.counters ?? []).map { ($0.name, $0.value) })
    #expect(c["revocationsTold"] == 2 && c["refusalsTold"] == 3, "\(c)")
    app.stop()
    root.stop()
  }

  /// Found beside issue 40's finding 6: a reload that took a user out of the read group
  /// left that user's gpsd client reading every fix (the socket's sessions were decided
  /// again, the face's were not). Now it is told why and closed; when it connects again it
  /// is an app like any other. The TCP peer of uid 65534 has gid 65534 (nogroup), so
  /// `ReadGroup=65534` makes it a reader.
  @Test(.enabled(if: getuid() == 0, "setpriv to another uid needs root"))
  func aReloadThatTakesAUserOutOfTheReadGroupEndsItsGpsdReading() throws {
    let rig = try GpsdFaceRig(extraConfig: "[Daemon]\nReadGroup=65534\n")
    let reader = try rig.gpspipe(["-w"], uid: 65534, name: "reader")
    try reader.wait { $0.contains { $0.contains("\"lat\":") } }
    let path = rig.daemon.directory + "/locd.conf"
    let config = try String(contentsOfFile: path, encoding: .utf8)
    try config.replacingOccurrences(of: "ReadGroup=65534\n", with: "").write(
      toFile: path, atomically: true, encoding: .utf8)
    #expect(try rig.daemon.locctl(["reload"]).status == 0)
    try reader.wait { $0.contains { $0.contains("\"class\":\"ERROR\"") } }
    // gpspipe leaves when the face closes the connection; the ERROR was its last line.
    #expect(reader.child.wait(timeout: 20) != 128 + SIGKILL, "gpspipe left by itself")
    let last = try #require(reader.lines.last)
    #expect(last.contains("uid 65534 may no longer read positions"), "\(last)")
    let c = Dictionary(
      uniqueKeysWithValues: (try rig.daemon.status().gpsd?.counters ?? []).map { ($0.name, $0.value) })
    #expect(c["droppedAccessChanged"] == 1, "\(c)")
    // Again: now an app without a decision, told so, no position.
    let again = try rig.gpspipe(["-w"], uid: 65534, name: "again")
    try again.wait { $0.contains { $0.contains("waits for a decision") } }
    again.stop()
    #expect(!again.lines.contains { $0.contains("\"lat\":") })
  }

  @Test func badCommandsAreAnsweredAndAFloodingClientThatNeverReadsIsDropped() throws {
    let rig = try GpsdFaceRig(extraConfig: "MaxQueuedBytesPerClient=4096\n")
    let client = try RawClient(path: rig.gpsdSocket)
    #expect(try client.readLine()?.contains("\"class\":\"VERSION\"") == true)
    let bad = [
      "?WATCH={\"enable\":tru;", "?FOO;", "hello", "?WATCH={\"enable\":true,\"zzz\":1};", "?WATCH=[1,2];",
      "?DEVICE={\"path\":\"/dev/ttyS0\",\"bps\":9600};", String(repeating: "x", count: 5000),
    ]
    for line in bad {
      try client.send(line + "\n")
      let answer = try #require(try client.readLine())
      #expect(answer.hasPrefix("{\"class\":\"ERROR\""), "\(line.prefix(40)): \(answer)")
    }
    // Several commands on a line, the last without its `;`.
    try client.send("?VERSION;?DEVICES\n")
    #expect(try client.readLine()?.contains("VERSION") == true)
    #expect(try client.readLine()?.contains("DEVICES") == true)

    // Thousands of commands, never reading the answers.
    let flood = try RawClient(path: rig.gpsdSocket)
    try? flood.send(Array(repeating: "?VERSION;\n", count: 20_000).joined())
    let s = try rig.daemon.waitForStatus {
      ($0.gpsd?.counters.first { $0.name == "droppedSlow" }?.value ?? 0) >= 1
    }
    let c = Dictionary(uniqueKeysWithValues: (s.gpsd?.counters ?? []).map { ($0.name, $0.value) })
    #expect(c["badCommands"] ?? 0 >= bad.count)
    // It was served until its unread answers passed the kernel's buffer and 4096 bytes more,
    // then dropped: far fewer than the 20,000 it sent were run.
    #expect((c["commands"] ?? 0) > bad.count && (c["commands"] ?? 0) < 20_000, "\(c)")
    // The first client and the native socket go on serving.
    try client.send("?VERSION;\n")
    #expect(try client.readLine()?.contains("VERSION") == true)
    #expect(rig.daemon.log.contains("dropped: slow consumer"))
  }

  @Test func aTakenPortIsSaidClearlyAndTheSocketsServe() throws {
    let taken = try TestServer()  // stands in for a running gpsd on its port
    let dir = LocdProcess.makeDirectory()
    let config = "[Gpsd]\nEnable=yes\nSocket=\(dir)/gpsd.sock\nListenPort=\(taken.port)\n"
    let daemon = try LocdProcess(directory: dir, config: config)
    let s = try daemon.status()
    #expect(s.gpsd?.counters.first { $0.name == "portInUse" }?.value == 1)
    #expect(s.gpsd?.endpoints == [dir + "/gpsd.sock"])
    #expect(daemon.log.contains("127.0.0.1:\(taken.port) is already in use, most likely by a running gpsd"))
    let client = try RawClient(path: dir + "/gpsd.sock")
    #expect(try client.readLine()?.contains("\"class\":\"VERSION\"") == true)
    let text = try daemon.locctl(["status"]).stdout
    #expect(text.contains("gpsd face:   on \(dir)/gpsd.sock: 1 client (0 watching)"), "\(text)")
  }

  @Test func offByDefault() throws {
    let daemon = try LocdProcess()
    #expect(try daemon.status().gpsd == nil)
  }

  @Test(.enabled(if: getuid() == 0, "setpriv to another uid needs root"))
  func aWatcherWakesTheReceiverAndTheLastOneLeavingLetsItSleep() throws {
    // A fix is fresh for 1 s, so the settled receiver is released soon after the start.
    let rig = try GpsdFaceRig(extraConfig: "[Position]\nFreshFor=1s\n[Acquisition]\nRefreshInterval=1h\n")
    _ = try rig.daemon.waitForStatus(timeout: 30) { $0.acquisition?.receiversActive == false }
    // A root watcher (a plain session) and an app granted full accuracy.
    let grant = try rig.daemon.locctl(["apps", "grant", "gpsd-client", "--user", "65534"])
    #expect(grant.status == 0, "\(grant.stderr)")
    let root = try rig.gpspipe(["-w"], name: "root")
    var s = try rig.daemon.waitForStatus { $0.acquisition?.receiversActive == true }
    #expect(s.acquisition?.subscribers == 1)
    let app = try rig.gpspipe(["-w"], uid: 65534, name: "app")
    try app.wait { $0.contains { $0.contains("\"lat\":") } }
    s = try rig.daemon.status()
    #expect(s.gpsd?.watchers == 2)
    root.stop()
    app.stop()
    s = try rig.daemon.waitForStatus(timeout: 30) { $0.acquisition?.receiversActive == false }
    #expect(s.gpsd?.watchers == 0 && s.acquisition?.subscribers == 0)
  }

  @Test(.enabled(if: getuid() == 0, "setpriv to another uid needs root"))
  func aUnixSocketClientIsTheAppItsProgramIs() throws {
    let rig = try GpsdFaceRig()
    // A program of its own on the Unix socket (libgps 3.22 opens TCP only): python3, whose
    // /proc/PID/comm names the app.
    let script = """
      import socket
      s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
      s.connect("\(rig.gpsdSocket)")
      s.sendall(b'?WATCH={"enable":true,"json":true};\\n')
      f = s.makefile("rb")
      for line in f:
          print(line.decode().strip(), flush=True)
          if b'"ERROR"' in line:
              break
      """
    let r = try run(
      URL(fileURLWithPath: "/usr/bin/setpriv"),
      ["--reuid=65534", "--regid=65534", "--clear-groups", "--", "/usr/bin/python3", "-c", script],
      timeout: 30)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("locd: python3 (uid 65534) waits for a decision"), "\(r.stdout)")
    #expect(!r.stdout.contains("\"lat\""))
  }
}
