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

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3"))
  func theDemoDriveIsWhatItsGeneratorWrites() throws {
    let root = Binaries.packageRoot.path
    let r = try run(URL(fileURLWithPath: "/usr/bin/python3"), [root + "/demo/make-drive.py"])
    #expect(r.status == 0, "\(r.stderr)")
    let committed = try String(contentsOfFile: root + "/demo/badajoz-elvas.nmea", encoding: .utf8)
    #expect(r.stdout == committed, "demo/badajoz-elvas.nmea differs from demo/make-drive.py's output")
  }
}
