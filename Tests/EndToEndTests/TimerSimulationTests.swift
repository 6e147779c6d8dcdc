import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// A synthetic NMEA drive (RMC + GGA at 1 Hz, checksums computed): `points` are
/// (UTC instant, latitude, longitude, speed in m/s).
func syntheticNMEA(_ points: [(Instant, Double, Double, Double)]) -> String {
  func sentence(_ body: String) -> String {
    let sum = body.utf8.reduce(UInt8(0), ^)
    return "$\(body)*\(String(format: "%02X", sum))\r\n"
  }
  func angle(_ v: Double, degreeDigits: Int) -> String {
    let a = abs(v)
    let d = Int(a)
    let m = (a - Double(d)) * 60
    return String(format: "%0\(degreeDigits)d%08.5f", d, m)
  }
  var out = ""
  for (t, lat, lon, speed) in points {
    let d = t.utcDate
    let s = Int(t.utcSecondOfDay)
    let time = String(format: "%02d%02d%02d.00", s / 3600, s / 60 % 60, s % 60)
    let date = String(format: "%02d%02d%02d", d.day, d.month, d.year % 100)
    let la = angle(lat, degreeDigits: 2) + (lat < 0 ? ",S" : ",N")
    let lo = angle(lon, degreeDigits: 3) + (lon < 0 ? ",W" : ",E")
    out += sentence(
      "GPRMC,\(time),A,\(la),\(lo),\(String(format: "%.1f", speed / 0.514444)),270.0,\(date),,,A")
    out += sentence("GPGGA,\(time),\(la),\(lo),1,09,0.9,200.0,M,50.0,M,,")
  }
  return out
}

/// Badajoz to Elvas at 25 m/s from 19:40Z on 2026-06-21 (sunset there is about 19:55Z), then
/// parked in Elvas with a fix every 30 s until 21:05Z.
func badajozToElvasDrive() -> String {
  let start = Instant(iso8601: "2026-06-21T19:40:00Z")!
  let from = (38.8794, -6.9707)
  let to = (38.8808, -7.1628)
  var points: [(Instant, Double, Double, Double)] = []
  let steps = 668
  for i in 0...steps {
    let f = Double(i) / Double(steps)
    points.append(
      (start.adding(seconds: Double(i)), from.0 + f * (to.0 - from.0), from.1 + f * (to.1 - from.1), 25))
  }
  var t = start.adding(seconds: Double(steps + 30))
  while t < Instant(iso8601: "2026-06-21T21:05:00Z")! {
    points.append((t, to.0, to.1, 0))
    t = t.adding(seconds: 30)
  }
  return syntheticNMEA(points)
}

@Suite(.serialized) struct TimerSimulationTests {
  /// A root-owned timers directory with `files` (name -> contents), mode 0755.
  func timersDirectory(in dir: String, _ files: [String: String]) throws -> String {
    let timers = dir + "/timers.d"
    mkdir(timers, 0o755)
    for (name, text) in files {
      try text.write(toFile: timers + "/" + name, atomically: true, encoding: .utf8)
      chmod(timers + "/" + name, 0o644)
    }
    return timers
  }

  /// Starts `locctl watch --json` writing to a file; returns the child and the file.
  func watch(_ daemon: LocdProcess) throws -> (Child, String) {
    let path = daemon.directory + "/watch.jsonl"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    defer { close(fd) }
    let child = try Child(
      Binaries.locctl.path, ["--socket", daemon.socketPath, "watch", "--json"], stdoutFD: fd)
    return (child, path)
  }

  /// The events `locctl watch --json` wrote so far.
  func events(_ path: String) -> [EventMessage] {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap {
      guard case .event(let e)? = try? ServerMessage.decode(Array($0.utf8)) else { return nil }
      return e
    }
  }

  /// The `timer-fired` events, with their time.
  func firings(_ path: String) -> [(time: Instant, data: TimerFiredEvent)] {
    events(path).compactMap {
      guard case .timerFired(let f) = $0.data else { return nil }
      return ($0.time, f)
    }
  }

  @Test(.enabled(if: getuid() == 0, "needs root: its Command= timer must come from a root-owned timers.d"))
  func replayClockPlaysADriveAndFiresTimersInSimulatedTime() throws {
    let dir = LocdProcess.makeDirectory()
    let drive = dir + "/drive.nmea"
    try badajozToElvasDrive().write(toFile: drive, atomically: true, encoding: .utf8)
    // The command writes its environment and uid where nobody may write.
    let out = dir + "/out"
    mkdir(out, 0o777)
    chmod(out, 0o777)
    let script = dir + "/hook.sh"
    try "#!/bin/sh\n{ id -u; env | grep '^LOCD_' | sort; } > \"$1/$LOCD_TIMER.env\"\n".write(
      toFile: script, atomically: true, encoding: .utf8)
    chmod(script, 0o755)
    let timers = try timersDirectory(
      in: dir,
      [
        "dusk.timer": "[Timer]\nRule=sunset\nMissed=once\n[Action]\nCommand=\(script) \(out)\nUser=nobody\n",
        "ten.timer": "[Timer]\nRule=22:00\n",
      ])
    // A runtime timer from a previous run, in the timer store.
    mkdir(dir + "/state", 0o700)
    try
      #"{"version":1,"checkpoint":null,"timers":[{"name":"early","rule":"21:50","action":"event","missed":"skip"}],"records":{}}"#
      .write(toFile: dir + "/state/timers.json", atomically: true, encoding: .utf8)
    let daemon = try LocdProcess(
      arguments: ["--clock", "replay", "--source", "replay:\(drive)?speed=max", "--timers-dir", timers],
      directory: dir, config: "[Position]\nTimeZone=Europe/Madrid\n")
    let (watcher, watchFile) = try watch(daemon)
    defer { kill(watcher.pid, SIGTERM); watcher.wait(timeout: 5) }
    _ = try daemon.waitForStatus(timeout: 30) { $0.sourceState() == .known(.finished) }
    let list = try daemon.locctl(["timers", "--json"])
    #expect(list.status == 0, "\(list.stderr)")
    let listed = try decodeOutput(list.stdout, as: TimerListResult.self)
    #expect(listed.timers.map(\.name) == ["dusk", "early", "ten"])
    // Every deadline has moved on to the next simulated day.
    for t in listed.timers {
      #expect(t.date == CivilDate(year: 2026, month: 6, day: 22), "\(t.json.serialized)")
    }
    // Wait for the watcher to have written the last firing.
    // (30 s at most: under a loaded test run the watcher and the hook below can lag seconds.)
    var fired: [(time: Instant, data: TimerFiredEvent)] = []
    try? AcquisitionEndToEndTests.waitUntil(timeout: 30, "three firings") {
      fired = firings(watchFile)
      return fired.count >= 3
    }
    // The drive crosses into Portugal (real boundary data) before every deadline, so the wall
    // times are Lisbon's, an hour later in UTC than Madrid's would have been.
    #expect(fired.map(\.data.name) == ["dusk", "early", "ten"])
    // Event times are simulated: the deadlines themselves.
    let ten = fired.first { $0.data.name == "ten" }
    #expect(ten?.time == Instant(iso8601: "2026-06-21T21:00:00Z"))  // 22:00 WEST
    #expect(ten?.data.deadlineLocal.description == "2026-06-21T22:00:00+01:00")
    #expect(ten?.data.timezone == "Europe/Lisbon")
    let early = fired.first { $0.data.name == "early" }
    #expect(early?.time == Instant(iso8601: "2026-06-21T20:50:00Z"))
    // One change of zone, Madrid to Lisbon, a few seconds after the border (7.034°W, reached
    // at about 19:43:39 simulated), once the hysteresis is satisfied; no flapping.
    let crossings: [(time: Instant, data: TimezoneChangedEvent)] = events(watchFile).compactMap {
      guard case .timezoneChanged(let z) = $0.data, z.from?.id != z.to.id else { return nil }
      return ($0.time, z)
    }
    #expect(crossings.count == 1)
    #expect(crossings.first?.data.from?.id == "Europe/Madrid")
    #expect(crossings.first?.data.to.id == "Europe/Lisbon")
    #expect(crossings.first?.data.to.offset == 3600)
    let crossed = crossings.first?.time
    #expect(
      crossed.map {
        $0 > Instant(iso8601: "2026-06-21T19:43:35Z")! && $0 < Instant(iso8601: "2026-06-21T19:44:00Z")!
      }
        == true, "\(crossings)")
    let dusk = fired.first { $0.data.name == "dusk" }
    let sunset = dusk?.data.deadline
    #expect(
      sunset.map {
        $0 > Instant(iso8601: "2026-06-21T19:55:00Z")! && $0 < Instant(iso8601: "2026-06-21T19:59:00Z")!
      } == true, "\(dusk?.data.json.serialized ?? "none")")
    #expect(dusk?.data.missed == 0)
    // The command ran without a shell of ours, as nobody, with the LOCD_ variables.
    var env = ""
    try? AcquisitionEndToEndTests.waitUntil(timeout: 30, "the hook's output") {
      env = (try? String(contentsOfFile: out + "/dusk.env", encoding: .utf8)) ?? ""
      return env.contains("LOCD_TIMER")
    }
    #expect(env.hasPrefix("65534\n"), "\(env)\n\(daemon.log)")
    #expect(env.contains("LOCD_TIMER=dusk\n"))
    #expect(env.contains("LOCD_EVENT=sunset\n"))
    #expect(env.contains("LOCD_TIMEZONE=Europe/Lisbon\n"))
    #expect(env.contains("LOCD_MISSED=0\n"))
    #expect(env.contains("LOCD_DEADLINE_LOCAL=2026-06-21T20:5"))
    #expect(env.contains("+01:00\n"))
    // solar-regenerated and significant-change came along the drive, in simulated time.
    let all = events(watchFile)
    #expect(
      all.contains {
        $0.data.kind == .significantChange && $0.time >= Instant(iso8601: "2026-06-21T19:40:00Z")!
          && $0.time < Instant(iso8601: "2026-06-21T19:50:00Z")!
      })
    #expect(all.contains { $0.data.kind == .solarRegenerated })
    #expect(daemon.stop() == 0)
    var st = stat()
    #expect(stat(dir + "/state/timers.json", &st) == 0 && st.st_mode & 0o777 == 0o600)
    let store = try String(contentsOfFile: dir + "/state/timers.json", encoding: .utf8)
    #expect(store.contains("\"early\"") && store.contains("\"handled\":\"2026-06-21\""))
    #expect(!store.contains("lat") && !store.contains("38.8"))
  }

  @Test func runtimeTimersOverTheSocketSurviveARestart() throws {
    let dir = LocdProcess.makeDirectory()
    var daemon = try LocdProcess(arguments: ["--timers-dir", dir + "/none"], directory: dir)
    #expect(try daemon.locctl(["set-location", "59.9139", "10.7522"]).status == 0)
    let add = try daemon.locctl([
      "timers", "add", "lamp", "sunset-30m", "Mon-Fri", "--missed", "once", "--json",
    ])
    #expect(add.status == 0, "\(add.stderr)")
    let added = try decodeOutput(add.stdout, as: TimerView.self)
    #expect(added.rule == "sunset-30m Mon-Fri")
    #expect(added.missed == .once)
    #expect(added.next != nil)
    #expect(added.reason.contains("30m earlier"))
    let again = try daemon.locctl(["timers", "add", "lamp", "07:30"])
    #expect(again.status == 1 && again.stderr.contains("exists"))
    let bad = try daemon.locctl(["timers", "add", "x", "sunsett"])
    #expect(bad.status == 2 && bad.stderr.hasPrefix("locctl timers: "))
    let table = try daemon.locctl(["timers"])
    #expect(table.stdout.contains("lamp") && table.stdout.contains("sunset-30m Mon-Fri"))
    #expect(daemon.stop() == 0)

    daemon = try LocdProcess(arguments: ["--timers-dir", dir + "/none"], directory: dir)
    let show = try daemon.locctl(["timers", "show", "lamp"])
    #expect(show.status == 0 && show.stdout.contains("sunset-30m Mon-Fri"), "\(show.stderr)")
    #expect(try daemon.locctl(["timers", "remove", "lamp"]).status == 0)
    let gone = try daemon.locctl(["timers", "show", "lamp"])
    #expect(gone.status == 1 && gone.stderr.contains("not-found"))
  }

  @Test func unsafeOrBrokenTimerFilesAreListedAsProblems() throws {
    let dir = LocdProcess.makeDirectory()
    let timers = try timersDirectory(
      in: dir,
      [
        "ok.timer": "[Timer]\nRule=12:00\n", "typo.timer": "[Timer]\nRule=sunsett\n",
        "open.timer": "[Timer]\nRule=12:00\n",
      ])
    chmod(timers + "/open.timer", 0o666)
    let daemon = try LocdProcess(arguments: ["--timers-dir", timers], directory: dir)
    let list = try daemon.locctl(["timers", "--json"])
    let listed = try decodeOutput(list.stdout, as: TimerListResult.self)
    #expect(listed.timers.map(\.name) == ["ok"])
    let problems = listed.problems
    #expect(
      problems.contains { $0.contains("open.timer") && $0.contains("writable by group or others") },
      "\(problems)")
    #expect(problems.contains { $0.contains("typo.timer:2:") })
  }
}
