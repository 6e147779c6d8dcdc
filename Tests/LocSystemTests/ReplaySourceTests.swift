import Foundation
import Glibc
import LocCore
import Testing

@testable import LocSystem

/// The replay source in-process: looped rounds move forward by whole days (so a replay's
/// time never goes back), and flow control's pause holds it until resume.
@Suite struct ReplaySourceTests {
  /// A log of `count` (at most 3600) RMC sentences one second apart from 2026-06-21 12:00:00Z.
  func log(_ count: Int) throws -> String {
    var text = ""
    for s in 0..<count {
      let hms = String(format: "12%02d%02d.00", s / 60, s % 60)
      text += sentence("GPRMC,\(hms),A,3853.32538,N,00701.67983,W,0.0,0.0,210626,,,A")
    }
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID()).nmea").path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test func eachRoundOfALoopedReplayPlaysOneDayLater() throws {
    let path = try log(3)
    defer { unlink(path) }
    let loop = try EventLoop()
    let r = Recorder()
    let source = ReplaySource(id: SourceID(0), path: path, speed: .max, loops: true, loop: loop, sink: r.sink)
    source.start()
    defer { source.stop() }
    #expect(pump(loop, seconds: 10) { r.fixes.count >= 9 })
    // A round of 2 s plus the 1 s pause fits in a day: each round is shifted by one day.
    let t0 = try #require(Instant(iso8601: "2026-06-21T12:00:00Z"))
    let expected = (0..<3).flatMap { round in
      (0..<3).map { t0.adding(seconds: Double(round * 86_400 + $0)) }
    }
    #expect(r.fixes.prefix(9).map(\.time) == expected)
    #expect(counter(source.snapshot, "rounds")! >= 3)
  }

  @Test func roundShiftCoversTheRecordingInWholeDays() {
    let day = ReplaySource.day
    #expect(ReplaySource.roundShift(span: 0) == day)
    #expect(ReplaySource.roundShift(span: day - Int64(ReplaySource.loopPause)) == day)
    #expect(ReplaySource.roundShift(span: day) == 2 * day, "a day-long recording and its pause need two")
  }

  @Test func aPausedReplayFeedsNothingUntilResumed() throws {
    let path = try log(600)
    defer { unlink(path) }
    let loop = try EventLoop()
    let r = Recorder()
    let source = ReplaySource(
      id: SourceID(0), path: path, speed: .max, loops: false, loop: loop, sink: r.sink)
    source.start()
    defer { source.stop() }
    // Paused as soon as the first fix is in: at most the batch being fed finishes.
    source.pause()
    #expect(source.isPaused)
    pump(loop, seconds: 0.3) { false }
    let held = r.fixes.count
    #expect(held < 600)
    pump(loop, seconds: 0.3) { false }
    #expect(r.fixes.count == held, "nothing more while paused")
    source.resume()
    #expect(!source.isPaused)
    #expect(pump(loop, seconds: 10) { source.snapshot.state == .finished })
    #expect(r.fixes.count == 600)
    let times = r.fixes.map(\.time)
    #expect(times == times.sorted() && Set(times).count == 600, "each fix once, in order")
  }
}
