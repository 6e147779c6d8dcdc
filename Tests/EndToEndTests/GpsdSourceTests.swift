import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// gpsfake(1) from gpsd-clients: plays a log into a real gpsd on a private port, looping.
final class GpsFake {
  let child: Child
  let port: Int
  /// Where gpsfake's (and gpsd's) standard error goes.
  let logPath: String

  /// Starts gpsfake on `port` with `log` (under Tests/Fixtures, or an absolute path), one sentence every
  /// `interval` seconds. With `nowait` gpsd reads at once (-n) rather than when a client
  /// watches; `debugLevel` makes gpsd log what it does (gpsd -D: 2 client traffic, 4 device
  /// handling such as "device 0 (fd 7) released").
  init(
    _ log: String, port: Int, interval: Double = 0.01, directory: String, nowait: Bool = true,
    debugLevel: Int? = nil, once: Bool = false
  ) throws {
    self.port = port
    logPath = directory + "/gpsfake-\(port).log"
    let err = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    defer { close(err) }
    var arguments = ["-q", "-c", "\(interval)", "-P", "\(port)"]
    if nowait { arguments.append("-n") }
    // -1: the log once, then gpsfake ends (gpsd with it).
    if once { arguments.append("-1") }
    if let debugLevel { arguments += ["-D", "\(debugLevel)"] }
    let path = log.hasPrefix("/") ? log : Binaries.fixture(log).path
    child = try Child("/usr/bin/gpsfake", arguments + [path], stderrFD: err)
    // gpsd listens once it runs; a bare connection (no WATCH) costs nothing.
    let deadline = Date().addingTimeInterval(15)
    while true {
      if let fd = try? connectTCP("127.0.0.1", port, timeout: 0.2) {
        close(fd)
        return
      }
      guard Date() < deadline, child.isRunning else { throw HarnessError("gpsd did not listen on \(port)") }
    }
  }

  deinit { stop() }

  /// What gpsd logged so far.
  var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

  /// The gpsd that gpsfake started (its child named gpsd), found in /proc.
  var gpsdPID: pid_t? {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
    for entry in entries {
      guard let pid = pid_t(entry),
        let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { continue }
      let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
      if stat.contains("(gpsd)"), fields.count > 1, pid_t(fields[1]) == child.pid { return pid }
    }
    return nil
  }

  /// Kills gpsd with `signal` and waits until gpsfake, left without it, has exited.
  func killGpsd(signal: Int32 = SIGKILL) {
    if let pid = gpsdPID { kill(pid, signal) }
    child.wait(timeout: 10)
  }

  /// Stops gpsd and gpsfake.
  func stop() {
    if let pid = gpsdPID { kill(pid, SIGTERM) }
    if child.isRunning { kill(child.pid, SIGTERM) }
    child.wait(timeout: 3)
  }
}

/// `gpsd://` against a real gpsd fed by gpsfake.
@Suite struct GpsdSourceTests {
  /// gpsd's TPVs as `gpspipe -w` printed them, grouped in runs of one time; the last TPV
  /// of each run is what locd should report for that time (gpsd sends one per sentence).
  static func lastReportsOfEachRun(_ path: String) -> [String: [JSON]] {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    var result: [String: [JSON]] = [:]
    var previous: JSON?
    for line in text.split(whereSeparator: \.isNewline) {  // gpsd ends lines with CR LF
      guard let tpv = try? JSON.parse(String(line)), tpv["class"]?.string == "TPV", tpv["time"] != nil else {
        continue
      }
      if let p = previous, p["time"] != tpv["time"] { result[p["time"]!.string!, default: []].append(p) }
      previous = tpv
    }
    return result
  }

  /// Whether gpsd's TPV `a` and locd's fix `b` agree on mode, position, altitude and speed.
  static func same(_ a: JSON, _ b: FixView) -> Bool {
    func close(_ key: String, _ y: Double?) -> Bool {
      switch (a[key]?.number, y) {
      case (nil, nil): return true
      case (let x?, let y?): return abs(x - y) < 1e-9
      default: return false
      }
    }
    return a["mode"] == .int(b.mode.rawValue) && close("lat", b.coordinate?.latitude.value)
      && close("lon", b.coordinate?.longitude.value) && close("altMSL", b.altitudeMSL?.value)
      && close("speed", b.speed?.value)
  }

  @Test func reportsTheFixesGpsdReports() throws {
    let dir = LocdProcess.makeDirectory()
    let port = freePort()
    // A walk (Haicom 305N, SiRF II): gpsd sends several TPVs per second, each knowing more.
    let fake = try GpsFake("nmea/haicom-305N.log", port: port, directory: dir)
    defer { fake.stop() }
    let pipePath = dir + "/gpspipe.jsonl"
    let pipeFD = open(pipePath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let gpspipe = try Child("/usr/bin/gpspipe", ["-w", "127.0.0.1:\(port)"], stdoutFD: pipeFD)
    close(pipeFD)
    defer {
      kill(gpspipe.pid, SIGTERM)
      gpspipe.wait(timeout: 5)
    }
    let daemon = try LocdProcess(arguments: ["--source", "gpsd://127.0.0.1:\(port)"], directory: dir)
    let watcher = try FixWatcher(daemon)
    let fixes = try watcher.wait(timeout: 15) { $0.count >= 25 }
    // A run of gpsd's reports is over once a report with a later time follows it: wait until
    // gpspipe has written that much for every fix locd sent, rather than for a fixed time.
    let times = Set(fixes.dropFirst().map { $0.time.iso8601(fractionDigits: 3) })
    var gpsd: [String: [JSON]] = [:]
    let deadline = Date().addingTimeInterval(15)
    repeat {
      gpsd = Self.lastReportsOfEachRun(pipePath)
      if times.isSubset(of: gpsd.keys) { break }
      usleep(20_000)
    } while Date() < deadline
    // The first fix may come from a cycle locd joined half way.
    for fix in fixes.dropFirst() {
      let candidates = gpsd[fix.time.iso8601(fractionDigits: 3)] ?? []
      #expect(
        candidates.contains { Self.same($0, fix) },
        "\(fix.json.serialized) not among gpsd's \(candidates.map(\.serialized))")
    }
    #expect(Set(fixes.compactMap { $0.coordinate?.latitude.value }).count > 5, "the position changes")
    // The sky comes through gpsd too: locd's is one of the SKYs gpsd sent (gpspipe may
    // not have written the latest yet: poll).
    var sky = "none"
    var skyMatched = false
    let skyDeadline = Date().addingTimeInterval(15)
    repeat {
      let r = try daemon.locctl(["sky", "--json"])
      if let got = try decodeOutput(r.stdout, as: SkyResult.self).skies.first {
        sky = SkyDaemonTests.key(got)
        if SkyDaemonTests.gpsdSkies(pipePath).contains(sky) {
          skyMatched = true
          break
        }
      }
      usleep(200_000)
    } while Date() < skyDeadline
    #expect(skyMatched, "locd's sky \(sky) is not among gpsd's")
    let c = try daemon.status().counters()
    #expect(c["watching"] == 1)
    #expect(c["devices"] == 1)
    #expect(c["connects"] == 1)
    #expect(c["gpsdErrors"] == 0)
  }

  @Test func comesBackAfterGpsdIsKilledAndStartedAgain() throws {
    let dir = LocdProcess.makeDirectory()
    let port = freePort()
    var fake = try GpsFake("nmea/haicom-305N.log", port: port, directory: dir)
    let daemon = try LocdProcess(arguments: ["--source", "gpsd://127.0.0.1:\(port)"], directory: dir)
    let watcher = try FixWatcher(daemon)
    try watcher.wait { $0.count >= 3 }

    fake.killGpsd()  // mid-stream, without a word
    var c = try daemon.waitForCounters { $0["disconnects"] == 1 }
    #expect(try daemon.status().sourceState() == .known(.reconnecting))
    #expect(c["watching"] == 0)
    // Two attempts fail (after 1 s, then 2 s more) while nobody listens.
    c = try daemon.waitForCounters { $0["reconnectAttempts"] ?? 0 >= 2 }
    #expect(c["connects"] == 1)

    // A new gpsd on the same port, with another receiver's log (near Seattle, 2026; not
    // bt451's 2009 drive, which gpsd moves 1024 weeks forward into 2029 and locd drops as
    // `future`).
    fake = try GpsFake("nmea/quectel-l76k-nmea.log", port: port, directory: dir)
    defer { fake.stop() }
    c = try daemon.waitForCounters(timeout: 15) { $0["connects"] == 2 && $0["watching"] == 1 }
    #expect(c["reconnectAttempts"] ?? 0 >= 3)
    // Three consistent fixes prove the jump; under a loaded machine gpsfake is slow: poll long.
    let fixes = try watcher.wait(timeout: 40) { $0.contains { ($0.coordinate?.latitude.value ?? 0) > 40 } }
    #expect(fixes.contains { ($0.coordinate?.latitude.value ?? 0) < 0 }, "Brisbane before")
    #expect(try daemon.status().sourceState() == .known(.connected))
    #expect(
      daemon.log.components(separatedBy: "reconnecting (backoff").count - 1 == 1, "one log line per outage")
    #expect(daemon.log.contains("connected to 127.0.0.1:\(port) again after"))
  }

  @Test func rawNMEAThroughGpsdDecodesLikeLocctlDecode() throws {
    let dir = LocdProcess.makeDirectory()
    let port = freePort()
    let fake = try GpsFake("nmea/nmea-rtk.log", port: port, directory: dir)
    defer { fake.stop() }
    let daemon = try LocdProcess(arguments: ["--source", "gpsd://127.0.0.1:\(port)?nmea=1"], directory: dir)
    let watcher = try FixWatcher(daemon)
    let fixes = try watcher.wait(timeout: 15) { $0.count >= 30 }
    let decoded = try NMEASocketSourceTests.decoded("nmea/nmea-rtk.log")
    var byTime: [String: JSON] = [:]
    for fix in decoded { byTime[fix["time"]?.string ?? ""] = fix }
    for fix in fixes {
      let expected = try #require(byTime[fix.time.iso8601(fractionDigits: 3)], "\(fix.json.serialized)")
      #expect(
        expected["lat"]?.number == fix.coordinate?.latitude.value
          && expected["lon"]?.number == fix.coordinate?.longitude.value,
        "\(fix.json.serialized)")
    }
    let c = try daemon.status().counters()
    #expect(c["sentences"] ?? 0 > 60)
    #expect(c["badChecksums"] == 0)
    #expect(c["watching"] == 1)
  }
}
