import LocCore
import Testing

@testable import LocSystem

/// What `status` says of a simulation, from the shell's record of it (monotonic
/// microseconds in, a report out).
@Suite struct ReplayProgressTests {
  let t = Instant(iso8601: "2026-06-21T08:00:00Z")!

  @Test func statesInTheOrderASimulationGoesThrough() {
    var p = ReplayProgress()
    #expect(p.report(waiting: true, time: nil, exitAtEnd: false, now: 0).state == .waiting)
    #expect(p.report(waiting: false, time: t, exitAtEnd: false, now: 0).state == .playing)
    p.paused(at: 1_000_000)
    #expect(p.report(waiting: false, time: t, exitAtEnd: false, now: 1_500_000).state == .paused)
    p.resumed(at: 2_000_000)
    #expect(p.report(waiting: false, time: t, exitAtEnd: false, now: 2_000_000).state == .playing)
    p.finished = true
    let end = p.report(waiting: false, time: t, exitAtEnd: true, now: 3_000_000)
    #expect(end.state == .finished && end.time == t && end.exitAtEnd)
  }

  /// Pauses add up; the one in progress counts up to `now`; a second `paused` without a
  /// `resumed` is the same pause.
  @Test func pausesAndTimePausedAddUp() {
    var p = ReplayProgress()
    p.paused(at: 1_000_000)
    p.resumed(at: 1_250_000)
    p.paused(at: 5_000_000)
    p.paused(at: 6_000_000)
    let during = p.report(waiting: false, time: nil, exitAtEnd: false, now: 5_500_000)
    #expect(during.pauses == 2)
    #expect(during.pausedFor == .milliseconds(750))
    p.resumed(at: 7_000_000)
    p.resumed(at: 9_000_000)
    let after = p.report(waiting: false, time: nil, exitAtEnd: false, now: 10_000_000)
    #expect(after.pauses == 2)
    #expect(after.pausedFor == .milliseconds(2250))
  }
}
