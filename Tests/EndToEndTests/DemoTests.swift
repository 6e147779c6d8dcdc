import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// The embedded default of `make run` (demo/README.md): run with exactly the arguments the
/// Makefile gives locd, and the drive file is what its generator writes.
@Suite(.serialized) struct DemoTests {
  /// The event lines of a `locctl watch --json` output.
  func events(_ text: String) throws -> [EventMessage] {
    try text.split(separator: "\n").map { line in
      guard case .event(let e) = try ServerMessage.decode(Array(line.utf8)) else {
        throw HarnessError("not an event: \(line)")
      }
      return e
    }
  }

  @Test func theMakeRunDemoCrossesTheBorderAndFiresItsTimerWithinAMinute() throws {
    let dir = LocdProcess.makeDirectory()
    let root = Binaries.packageRoot.path
    func runArgs(_ extra: [String]) throws -> [String] {
      let r = try run(
        URL(fileURLWithPath: "/usr/bin/make"), ["-s", "-C", root, "run-args", "RUN_DIR=\(dir)"] + extra)
      guard r.status == 0 else { throw HarnessError("make run-args: \(r.stderr)") }
      return r.stdout.split(separator: "\n").map(String.init)
    }
    // What `make run` runs: simulated time, paced as driven (a simulated minute is a real one).
    let plain = try runArgs([])
    let source = try #require(plain.firstIndex(of: "--source").map { plain[$0 + 1] })
    #expect(source.hasSuffix("/demo/badajoz-elvas.nmea?speed=1&loop=1"), "\(source)")
    #expect(plain.contains("--clock") && plain[plain.firstIndex(of: "--clock")! + 1] == "replay")
    // The same command line at full speed, so the test does not wait the minute out.
    let args = try runArgs(["RUN_SPEED=max"])
    #expect(args.filter { !$0.contains("speed=") } == plain.filter { !$0.contains("speed=") })
    let daemon = try LocdProcess(arguments: args, directory: dir)
    let out = dir + "/watch.jsonl"
    let fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let watcher = try Child(
      Binaries.locctl.path, ["--socket", daemon.socketPath, "watch", "--json"], stdoutFD: fd)
    close(fd)
    defer {
      kill(watcher.pid, SIGTERM)
      watcher.wait()
    }
    // Until the second round's sunset (one day later) has fired.
    var all: [EventMessage] = []
    func firings() -> [TimerFiredEvent] {
      all.compactMap { if case .timerFired(let f) = $0.data { return f } else { return nil } }
    }
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline, firings().count < 2 {
      all = (try? events((try? String(contentsOfFile: out, encoding: .utf8)) ?? "")) ?? []
      usleep(100_000)
    }
    let fixTimes = all.compactMap { e -> Instant? in
      guard case .location(let l) = e.data else { return nil }
      return l.fix?.time
    }
    let firstFix = try #require(fixTimes.first)
    #expect(firstFix == Instant(iso8601: "2026-06-21T19:56:25Z"))
    // The demo timer: sunset, in Spain, within the first minute.
    let (sunsetTime, fired) = try #require(
      all.lazy.compactMap { e -> (Instant, TimerFiredEvent)? in
        guard case .timerFired(let f) = e.data, f.name == "sunset" else { return nil }
        return (e.time, f)
      }.first)
    #expect(sunsetTime.seconds(since: firstFix) < 60, "\(sunsetTime)")
    #expect(fired.timezone == "Europe/Madrid")
    // The border: Europe/Madrid to Europe/Lisbon within the first minute, once.
    let crossings = all.compactMap { e -> (Instant, TimezoneChangedEvent)? in
      guard case .timezoneChanged(let z) = e.data, z.from?.id == "Europe/Madrid", z.to.id == "Europe/Lisbon"
      else {
        return nil
      }
      return (e.time, z)
    }
    let first = try #require(crossings.first)
    #expect(first.0.seconds(since: firstFix) < 60, "\(first.0)")
    #expect(crossings.filter { $0.0.utcDate == firstFix.utcDate }.count == 1, "no flapping")
    // The loop plays the drive a day later: the timer fires again, nothing is rejected as old.
    let again = try #require(firings().dropFirst().first)
    #expect(again.date == CivilDate(year: 2026, month: 6, day: 22))
    let s = try daemon.status()
    #expect(s.rejectedFixes.first { $0.name == "old" }?.value == 0, "\(s.rejectedFixes)")
    #expect((s.counters()["rounds"] ?? 0) >= 2)
    #expect(s.simulation?.state == .known(.playing))
  }

  /// Issue 26, item 1: in replay every line of `status` and `timers` is on the simulated clock
  /// (locd's, which the protocol carries as `now`), never this machine's. The demo plays
  /// 21 June 2026 from 19:56:25Z at the pace it was driven, right at sunset in Badajoz
  /// (demo/README.md: sunset 19:56:51Z), while this machine's clock reads whatever today is.
  @Test func theDemoShowsStatusAndTimersOnTheSimulatedClock() throws {
    let dir = LocdProcess.makeDirectory()
    let root = Binaries.packageRoot.path
    let r = try run(URL(fileURLWithPath: "/usr/bin/make"), ["-s", "-C", root, "run-args", "RUN_DIR=\(dir)"])
    guard r.status == 0 else { throw HarnessError("make run-args: \(r.stderr)") }
    // Exactly what `make run` runs (a simulated second is a real one).
    let daemon = try LocdProcess(arguments: r.stdout.split(separator: "\n").map(String.init), directory: dir)
    let watcher = try Child(Binaries.locctl.path, ["--socket", daemon.socketPath, "watch", "--json"])
    defer {
      kill(watcher.pid, SIGTERM)
      watcher.wait()
    }
    let firstFix = try #require(Instant(iso8601: "2026-06-21T19:56:25Z"))
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline, try daemon.status().fix == nil { usleep(100_000) }
    try #require(try daemon.status().fix != nil, "the drive started")
    func locctl(_ args: [String]) throws -> String {
      let out = try run(Binaries.locctl, ["--socket", daemon.socketPath] + args)
      #expect(out.status == 0, "\(args): \(out.stderr)")
      return out.stdout
    }
    // The zones the drive is in, on that date (tzdata: Spain CEST = UTC+2, Portugal WEST = UTC+1).
    let offsets = ["CEST": 7200, "WEST": 3600]
    /// `2026-06-21 21:56:36 CEST` as an instant.
    func instant(_ text: Substring) throws -> Instant {
      let parts = text.split(separator: " ")
      try #require(parts.count == 3, "\(text)")
      let offset = try #require(offsets[String(parts[2])], "a June zone of the drive: \(text)")
      let utc = try #require(Instant(iso8601: "\(parts[0])T\(parts[1])Z"), "\(text)")
      return utc.adding(seconds: Double(-offset))
    }
    func row(_ screen: String, _ label: String) throws -> Substring {
      let line = try #require(
        screen.split(separator: "\n").first { $0.hasPrefix(label) }, "\(label) in \(screen)")
      return line.dropFirst(label.count).drop { $0 == " " }
    }

    let status = try locctl(["status"])
    // The local time is the simulated time the Replay line gives, on the drive's date.
    let local = try row(status, "Local time:")
    let replay = try row(status, "Replay:")
    let simulatedText = try #require(replay.split(separator: ";").first { $0.contains("simulated time ") })
    let simulated = try instant(simulatedText.split(separator: " ", maxSplits: 2).last!)
    #expect(local.hasPrefix(simulatedText.components(separatedBy: "simulated time ").last!), "\(status)")
    #expect(simulated >= firstFix && simulated.seconds(since: firstFix) < 600, "\(simulated)")
    // The Sun: within minutes of sunset the elevation is a few degrees either side of the
    // horizon (about 10° an hour there then), not this machine's day or night.
    let sunNow = try #require(status.split(separator: "\n").first { $0.contains("elevation ") })
    let elevationText = try #require(
      sunNow.components(separatedBy: "elevation ").last?.split(separator: "°").first)
    let elevation = try #require(Double(elevationText))
    #expect((-5.0...3.0).contains(elevation), "\(sunNow)")
    // Acquisition: its times are in June's zones and a deadline is not behind the clock.
    let receiver = try row(status, "Receiver:")
    for (word, abbreviation) in receiver.matches(of: /(since|gives up at) \d\d:\d\d (\w+)/).map({
      ($0.1, $0.2)
    }) {
      #expect(offsets[String(abbreviation)] != nil, "\(word) in a zone of June: \(receiver)")
    }
    if let m = receiver.firstMatch(of: /gives up at (\d\d:\d\d) (\w+)/) {
      let at = try instant("\(local.prefix(10)) \(m.1):59 \(m.2)")
      #expect(at >= simulated, "\(receiver) at \(simulated)")
    }

    // Timers: the time left is from the simulated now, bracketed by two status answers.
    let before = try #require(try daemon.status().now)
    let timers = try locctl(["timers"])
    let after = try #require(try daemon.status().now)
    let line = try #require(
      timers.split(separator: "\n").first { $0.hasSuffix("sunset  sunset  event") }, "\(timers)")
    let cells = line.split(separator: "  ", omittingEmptySubsequences: true).map {
      String($0).trimmingCharacters(in: .whitespaces)
    }
    let next = try instant(Substring(cells[0]))
    let left = cells[1]
    #expect(!left.hasPrefix("-"), "\(line)")
    // LEFT as TimeFormat.duration writes it: `15 s`, `12 min`, `3 h`, `3 h 4 min`, `2 d`.
    var seconds = 0.0
    let words = left.split(separator: " ")
    for i in stride(from: 0, to: words.count - 1, by: 2) {
      let n = try #require(Double(words[i]), "\(left)")
      seconds += n * ["s": 1, "min": 60, "h": 3600, "d": 86_400][String(words[i + 1]), default: .nan]
    }
    let impliedNow = next.adding(seconds: -seconds)
    // LEFT is rounded to the second below 2 min and to the minute below 2 days.
    #expect(
      impliedNow.seconds(since: before) > -61 && impliedNow.seconds(since: after) < 61,
      "NEXT - LEFT = \(impliedNow), locd's clock \(before) to \(after): \(line)")
  }

  /// Issue 43, item 2: before anyone watches, the demo's sources are held; `locctl locate
  /// --timeout 5s` waited 15 s and said "is it stuck?", and status said the held source was
  /// "failing". A locate starts the replay (it asks for a position), so it is answered by
  /// the drive's first fixes; the held source is waiting, not failing.
  @Test func theDemoAnswersLocateBeforeTheFirstSubscriber() throws {
    let dir = LocdProcess.makeDirectory()
    let root = Binaries.packageRoot.path
    let r = try run(URL(fileURLWithPath: "/usr/bin/make"), ["-s", "-C", root, "run-args", "RUN_DIR=\(dir)"])
    guard r.status == 0 else { throw HarnessError("make run-args: \(r.stderr)") }
    let daemon = try LocdProcess(arguments: r.stdout.split(separator: "\n").map(String.init), directory: dir)
    let held = try run(Binaries.locctl, ["--socket", daemon.socketPath, "status"])
    let sources = try #require(held.stdout.split(separator: "\n").first { $0.hasPrefix("Sources:") })
    #expect(sources.contains("waiting for the first subscriber"), "\(held.stdout)")
    #expect(!held.stdout.contains("failing"), "\(held.stdout)")
    #expect(held.stdout.contains("the replay waits for the first subscriber"), "\(held.stdout)")
    // Issue 43, item 8: the hint reaches this locd ("run 'locctl watch'" reached none).
    #expect(held.stdout.contains("run 'locctl --socket \(daemon.socketPath) watch'"), "\(held.stdout)")
    let locate = try run(Binaries.locctl, ["--socket", daemon.socketPath, "locate", "--timeout", "5s"])
    #expect(locate.status == 0, "\(locate.stderr)")
    #expect(!locate.stderr.contains("is it stuck"), "\(locate.stderr)")
    // The drive is near Badajoz and Elvas (38.9 N, 7.0 W; demo/README.md).
    #expect(locate.stdout.hasPrefix("38.8") || locate.stdout.hasPrefix("38.9"), "\(locate.stdout)")
    #expect(daemon.log.contains("replay clock: a client asked for a position; playing"), "\(daemon.log)")
  }

  /// Issue 43, item 9: `make run` built everything (tests, benchmarks, examples: 262 s cold
  /// on 2 cores) before the demo; it builds the two programs it runs and nothing else.
  @Test func makeRunBuildsOnlyLocdAndLocctl() throws {
    let root = Binaries.packageRoot.path
    let dir = LocdProcess.makeDirectory()
    let r = try run(URL(fileURLWithPath: "/usr/bin/make"), ["-n", "-s", "-C", root, "run", "RUN_DIR=\(dir)"])
    #expect(r.status == 0, "\(r.stderr)")
    let builds = r.stdout.split(separator: "\n").filter { $0.contains(" build") && $0.hasPrefix("swift") }
    #expect(builds.count == 2, "\(r.stdout)")
    #expect(builds.contains { $0.hasSuffix("--product locd") }, "\(builds)")
    #expect(builds.contains { $0.hasSuffix("--product locctl") }, "\(builds)")
  }

  /// Issue 43, item 2: before the replay's first fix the engine runs on the wall clock, and
  /// its deadlines did not: status said "acquiring since 14:50; gives up at 14:52" at 15:03.
  /// With `Timeout=1s` the attempt made at start gives up while the replay is held.
  @Test func deadlinesBeforeTheReplayStartsComeOnTheClockStatusShows() throws {
    let log = Binaries.fixture("nmea/bt451.log").path
    let daemon = try LocdProcess(
      arguments: ["--clock", "replay", "--source", "replay:\(log)"], config: "[Acquisition]\nTimeout=1s\n")
    let s = try daemon.waitForStatus {
      if case .timedOut? = $0.acquisition?.lastOutcome { return true } else { return false }
    }
    #expect(s.simulation?.state == .known(.waiting), "the replay is still held")
    #expect(s.acquisition?.phase == .idle)
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3"))
  func theDemoDriveIsWhatItsGeneratorWrites() throws {
    let root = Binaries.packageRoot.path
    let r = try run(URL(fileURLWithPath: "/usr/bin/python3"), [root + "/demo/make-drive.py"])
    #expect(r.status == 0, "\(r.stderr)")
    let committed = try String(contentsOfFile: root + "/demo/badajoz-elvas.nmea", encoding: .utf8)
    #expect(r.stdout == committed, "demo/badajoz-elvas.nmea differs from demo/make-drive.py's output")
  }
}
