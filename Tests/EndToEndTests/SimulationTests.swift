import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// `locd --clock replay` as a script uses it: flow control instead of dropping a slow
/// `locctl watch`, the end of the replay announced, `--exit-at-end`, `LOCD_SIMULATED=1` for
/// hooks.
@Suite(.serialized) struct SimulationTests {
  /// Reykjavik, where the parked receiver stands. Atlantic/Reykjavik is UTC all year
  /// (Iceland has not changed its clocks since 1968, tzdata), so a wall-clock rule's local
  /// time there is its UTC time.
  static let reykjavik = (64.1466, -21.9426)
  static let parkStart = Instant(iso8601: "2026-06-21T08:00:00Z")!

  /// A receiver parked in Reykjavik for five hours from `parkStart`, a fix every 10 s; the
  /// fixes' instants.
  static func parkedFiveHours() -> (nmea: String, fixes: [Instant]) {
    let fixes = (0..<1800).map { parkStart.adding(seconds: Double($0 * 10)) }
    return (syntheticNMEA(fixes.map { ($0, reykjavik.0, reykjavik.1, 0) }), fixes)
  }

  /// A directory `timers.d` under `dir` with `files` (name -> contents), as locd wants it.
  func timers(in dir: String, _ files: [String: String]) throws -> String {
    let path = dir + "/timers.d"
    mkdir(path, 0o755)
    chmod(path, 0o755)
    for (name, text) in files {
      try text.write(toFile: path + "/" + name, atomically: true, encoding: .utf8)
      chmod(path + "/" + name, 0o644)
    }
    return path
  }

  /// The event lines of a `locctl watch --json` output.
  /// The complete lines of `text` as events; a last line without its newline is one the
  /// watcher is still writing, and is left for the next read.
  func events(_ text: String) throws -> [EventMessage] {
    let complete = text.lastIndex(of: "\n").map { text[...$0] } ?? ""
    return try complete.split(separator: "\n").map { line in
      guard case .event(let e) = try ServerMessage.decode(Array(line.utf8)) else {
        throw HarnessError("not an event: \(line)")
      }
      return e
    }
  }

  /// The fix times of `events`' location events, each once: with a fix every 10 s, the fix
  /// goes stale between fixes and the tier change is published again with the same fix.
  func fixTimes(_ events: [EventMessage]) -> [Instant] {
    var times: [Instant] = []
    for e in events {
      guard case .location(let l) = e.data, let t = l.fix?.time, t != times.last else { continue }
      times.append(t)
    }
    return times
  }

  /// Reads `fd` to its end, `chunk` bytes at a time with `pause` µs between reads, after
  /// `firstPause` µs of reading nothing: a consumer slower than locd.
  func readSlowly(_ fd: Int32, chunk: Int, pause: UInt32, firstPause: UInt32, timeout: Double = 120) -> String
  {
    usleep(firstPause)
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: chunk)
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, chunk) }
      if n <= 0 { break }
      bytes += buffer[0..<n]
      usleep(pause)
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  @Test func aSlowWatcherOfALongParkedReplayAtMaxSpeedLosesNoTimerFiring() throws {
    let dir = LocdProcess.makeDirectory()
    let (nmea, fixes) = Self.parkedFiveHours()
    try nmea.write(toFile: dir + "/park.nmea", atomically: true, encoding: .utf8)
    // Rules before, inside and after the five hours; which fire follows from the rule alone:
    // those after the first fix and not after the last one (simulated time stands still after
    // it). 12:59:45 is 5 s before the last fix, 13:00 10 s after it.
    let rules = [
      "07:30", "08:20", "09:05", "09:40", "10:15:30", "11:11", "12:00", "12:45", "12:59:45", "13:00", "13:30",
    ]
    var files: [String: String] = [:]
    var expected: [String: Instant] = [:]
    for (n, rule) in rules.enumerated() {
      let name = "t\(n)"
      files[name + ".timer"] = "[Timer]\nRule=\(rule)\n"
      let hms = rule.count == 5 ? rule + ":00" : rule
      let deadline = try #require(Instant(iso8601: "2026-06-21T\(hms)Z"))
      if deadline > fixes.first!, deadline <= fixes.last! { expected[name] = deadline }
    }
    #expect(expected.count == 8)
    let timersDir = try timers(in: dir, files)
    // A small queue, so flow control starts long before 1 MiB.
    let daemon = try LocdProcess(
      arguments: [
        "--clock", "replay", "--exit-at-end", "--timers-dir", timersDir, "--source",
        "replay:\(dir)/park.nmea?speed=max",
      ], directory: dir, config: "[Limits]\nMaxQueuedBytesPerClient=16384\n")
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    let watcher = try Child(
      Binaries.locctl.path, ["--socket", daemon.socketPath, "watch", "--json"], stdoutFD: fds[1])
    close(fds[1])
    defer { close(fds[0]) }
    // Busy for 1.5 s, then 4 KiB every 5 ms (at most 800 KiB/s).
    let text = readSlowly(fds[0], chunk: 4096, pause: 5000, firstPause: 1_500_000)
    #expect(watcher.wait(timeout: 30) == 0, "locctl watch ends with the simulation")
    #expect(daemon.child.wait(timeout: 30) == 0, "\(daemon.log)")
    let all = try events(text)
    let fired = all.compactMap { e -> (Instant, TimerFiredEvent)? in
      guard case .timerFired(let f) = e.data else { return nil }
      return (e.time, f)
    }
    #expect(fired.map(\.1.name).sorted() == expected.keys.sorted(), "each expected firing, once")
    for (time, f) in fired {
      #expect(f.deadline == expected[f.name], "\(f.name)")
      #expect(time == f.deadline, "fired at its deadline in simulated time")
      #expect(f.missed == 0)
    }
    // Every fix came through too, and the stream ends with the end of the simulation.
    #expect(fixTimes(all) == fixes)
    guard case .simulationFinished(let end)? = all.last?.data else {
      Issue.record(
        "the last event is not simulation-finished: \(all.last.map { ServerMessage.event($0).line } ?? "none")"
      )
      return
    }
    #expect(end.state == .known(.finished))
    #expect(end.time == fixes.last)
    #expect(end.exitAtEnd)
    #expect(end.pauses > 0, "the slow watcher paused the replay (else this test proves nothing)")
    #expect(!daemon.log.contains("not reading"), "\(daemon.log)")
  }

  @Test func aSubscriberThatNeverReadsIsDroppedAfterTheStallTimeoutAndTheReplayGoesOn() throws {
    let dir = LocdProcess.makeDirectory()
    let (nmea, fixes) = Self.parkedFiveHours()
    try nmea.write(toFile: dir + "/park.nmea", atomically: true, encoding: .utf8)
    let daemon = try LocdProcess(
      arguments: ["--clock", "replay", "--source", "replay:\(dir)/park.nmea?speed=max"], directory: dir,
      config: "[Limits]\nMaxQueuedBytesPerClient=16384\nReplayStallTimeout=2s\n")
    // A watcher that reads starts the replay; then a client subscribes and never reads.
    let out = dir + "/watch.jsonl"
    let fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let watcher = try Child(
      Binaries.locctl.path, ["--socket", daemon.socketPath, "watch", "--json"], stdoutFD: fd)
    close(fd)
    defer {
      kill(watcher.pid, SIGTERM)
      watcher.wait()
    }
    _ = try daemon.waitForStatus { $0.simulation?.state != .known(.waiting) }
    let stuck = try RawClient(path: daemon.socketPath)
    var small: Int32 = 4096
    setsockopt(stuck.socket.rawValue, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
    try stuck.handshake()
    try stuck.send(.subscribe(Set(EventKind.allCases)), id: .number(1))
    let s = try daemon.waitForStatus(timeout: 90) { $0.simulation?.state == .known(.finished) }
    // The client that never read: held for the stall timeout (the replay paused meanwhile),
    // then dropped as a slow consumer; the one that read was never dropped.
    #expect(s.server.counters.droppedSlow == 1, "\(daemon.log)")
    let sim = try #require(s.simulation)
    #expect(sim.pauses >= 1)
    #expect(sim.pausedFor >= .seconds(2))
    #expect(!sim.exitAtEnd)
    #expect(sim.time == fixes.last)
    #expect(daemon.log.contains("read nothing for 2 s while it was waited for"), "\(daemon.log)")
    var all: [EventMessage] = []
    var unreadable: (any Error)?
    try? AcquisitionEndToEndTests.waitUntil(timeout: 30, "the watcher's last event") {
      do {
        all = try events((try? String(contentsOfFile: out, encoding: .utf8)) ?? "")
      } catch {
        unreadable = error
        return true
      }
      return all.last?.data.kind == .simulationFinished
    }
    if let unreadable { throw unreadable }
    #expect(fixTimes(all) == fixes, "the reading watcher lost nothing")
    #expect(all.last?.data.kind == .simulationFinished)
    #expect(daemon.log.contains("replay finished at 2026-06-21T12:59:50Z simulated time"), "\(daemon.log)")
    #expect(daemon.stop() == 0)
  }

  @Test func exitAtEndExitsZeroOnceTheLastEventIsReadAndStatusSaysWhereTheReplayIs() throws {
    let dir = LocdProcess.makeDirectory()
    let start = Self.parkStart
    let fixes = (0..<60).map { start.adding(seconds: Double($0)) }
    try syntheticNMEA(fixes.map { ($0, Self.reykjavik.0, Self.reykjavik.1, 0) }).write(
      toFile: dir + "/short.nmea", atomically: true, encoding: .utf8)
    let daemon = try LocdProcess(
      arguments: ["--clock", "replay", "--exit-at-end", "--source", "replay:\(dir)/short.nmea?speed=max"],
      directory: dir)
    // Before anyone subscribes, the replay waits and says so.
    let waiting = try daemon.status()
    #expect(waiting.simulation?.state == .known(.waiting))
    #expect(waiting.simulation?.time == nil)
    #expect(waiting.simulation?.exitAtEnd == true)
    #expect(waiting.position.reason?.contains("waits for the first subscriber") == true)
    let human = try daemon.locctl(["status"])
    #expect(human.stdout.contains("Replay:") && human.stdout.contains("waiting"), "\(human.stdout)")
    #expect(
      !human.stdout.contains("connect a GPS receiver"),
      "the remedy is to subscribe, not a receiver: \(human.stdout)")
    let out = dir + "/watch.jsonl"
    let fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let watcher = try Child(
      Binaries.locctl.path, ["--socket", daemon.socketPath, "watch", "--json"], stdoutFD: fd)
    close(fd)
    #expect(daemon.child.wait(timeout: 30) == 0, "\(daemon.log)")
    #expect(watcher.wait(timeout: 10) == 0, "locctl watch exits 0 when locd ends the simulation")
    let all = try events(try String(contentsOfFile: out, encoding: .utf8))
    // Every fix was delivered before locd exited, and the last event says it is over.
    let times = all.compactMap { e -> Instant? in
      guard case .location(let l) = e.data else { return nil }
      return l.fix?.time
    }
    #expect(times == fixes)
    guard case .simulationFinished(let end)? = all.last?.data else {
      Issue.record(
        "the last event is not simulation-finished: \(all.last.map { ServerMessage.event($0).line } ?? "none")"
      )
      return
    }
    #expect(all.last?.time == fixes.last)
    #expect(end.state == .known(.finished) && end.time == fixes.last && end.exitAtEnd)
    #expect(daemon.log.contains("replay finished at 2026-06-21T08:00:59Z simulated time"), "\(daemon.log)")
    #expect(daemon.log.contains("stopping (replay finished)"))
  }

  @Test func exitAtEndNeedsAReplayThatEnds() throws {
    let log = Binaries.fixture("nmea/bu353s4.log").path
    let looped = try run(
      Binaries.locd,
      ["--config", "/dev/null", "--clock", "replay", "--exit-at-end", "--source", "replay:\(log)?loop=1"])
    #expect(looped.status == 2 && looped.stderr.contains("loops, so it never ends"), "\(looped.stderr)")
    let live = try run(
      Binaries.locd, ["--config", "/dev/null", "--exit-at-end", "--source", "replay:\(log)"])
    #expect(live.status == 2 && live.stderr.contains("--exit-at-end needs --clock replay"), "\(live.stderr)")
  }

  @Test(.enabled(if: getuid() == 0, "needs root: a Command= timer must come from a root-owned timers.d"))
  func hooksKnowTheyRunInASimulationAndLocdWaitsForThemBeforeExiting() throws {
    let dir = LocdProcess.makeDirectory()
    let fixes = (0..<120).map { Self.parkStart.adding(seconds: Double($0)) }
    try syntheticNMEA(fixes.map { ($0, Self.reykjavik.0, Self.reykjavik.1, 0) }).write(
      toFile: dir + "/short.nmea", atomically: true, encoding: .utf8)
    let out = dir + "/out"
    mkdir(out, 0o777)
    chmod(out, 0o777)
    // Slow on purpose: locd must wait for it before exiting.
    let script = dir + "/hook.sh"
    try "#!/bin/sh\nsleep 1\nenv | grep '^LOCD_' | sort > \"$1/$LOCD_TIMER.env\"\n".write(
      toFile: script, atomically: true, encoding: .utf8)
    chmod(script, 0o755)
    let timersDir = try timers(
      in: dir, ["hook.timer": "[Timer]\nRule=08:01\n[Action]\nCommand=\(script) \(out)\nUser=nobody\n"])
    let daemon = try LocdProcess(
      arguments: [
        "--clock", "replay", "--exit-at-end", "--timers-dir", timersDir, "--source",
        "replay:\(dir)/short.nmea?speed=max",
      ], directory: dir)
    let watcher = try Child(Binaries.locctl.path, ["--socket", daemon.socketPath, "watch", "--json"])
    #expect(daemon.child.wait(timeout: 30) == 0, "\(daemon.log)")
    #expect(watcher.wait(timeout: 10) == 0)
    // No polling: locd exited after the command ended.
    let env = try String(contentsOfFile: out + "/hook.env", encoding: .utf8)
    #expect(env.contains("LOCD_SIMULATED=1\n"), "\(env)")
    #expect(env.contains("LOCD_TIMER=hook\n"))
    #expect(env.contains("LOCD_DEADLINE=2026-06-21T08:01:00"))
    #expect(daemon.log.contains("waiting for 1 timer command(s) to end"), "\(daemon.log)")
  }
}
