import LocCore
import Testing

/// The retry schedule shared by the TCP clients and the bind retries: one outage from the
/// first failure to the next connection, its attempts counted, the backoff underneath.
@Suite struct ReconnectScheduleTests {
  @Test func theFirstAttemptOfAllIsNotARetry() {
    var s = ReconnectSchedule()
    let r1 = s.attempting()
    #expect(!r1)
    #expect(s.outage == nil)
  }

  @Test func anOutageBeginsOnceAndCountsItsAttempts() throws {
    var s = ReconnectSchedule()
    _ = s.attempting()
    let first = s.failed(at: 5_000_000)
    // ReconnectBackoff: 1 s first, doubling.
    #expect(first.delay == 1_000_000 && first.began)
    let r2 = s.attempting()
    #expect(r2)
    let second = s.failed(at: 6_000_000)
    #expect(second.delay == 2_000_000 && !second.began)
    let r3 = s.attempting()
    #expect(r3)
    let r4 = s.connected(at: 9_000_000)
    let outage = try #require(r4)
    // Began at the first failure; two retries since.
    #expect(outage.since == 5_000_000 && outage.attempts == 2)
    #expect(s.outage == nil)
    let r5 = s.attempting()
    #expect(!r5)
  }

  @Test func aConnectionWithoutAnOutageEndsNone() {
    var s = ReconnectSchedule()
    let r6 = s.connected(at: 1_000)
    #expect(r6 == nil)
  }

  @Test func forgettingTheOutageKeepsTheBackoffStep() {
    var s = ReconnectSchedule()
    _ = s.failed(at: 0)
    _ = s.failed(at: 1_000_000)
    s.forgetOutage()
    let r7 = s.attempting()
    #expect(s.outage == nil && !r7)
    let next = s.failed(at: 3_000_000)
    // A new outage begins, but the wait goes on doubling (1 s, 2 s, then 4 s).
    #expect(next.began && next.delay == 4_000_000)
  }

  @Test func aHealthyConnectionStartsTheBackoffOver() {
    var s = ReconnectSchedule()
    _ = s.failed(at: 0)
    _ = s.failed(at: 1_000_000)
    _ = s.connected(at: 3_000_000)
    // Up for ReconnectBackoff.healthyMicroseconds (10 s): back to 1 s, a new outage.
    let next = s.failed(at: 13_000_000)
    #expect(next.began && next.delay == 1_000_000)
  }
}
