import LocCore
import Testing

/// The retry schedule shared by the TCP clients and the bind retries: one outage from the
/// first failure to the next connection, its attempts counted, the backoff underneath.
@Suite struct ReconnectScheduleTests {
  @Test func theFirstAttemptOfAllIsNotARetry() {
    var s = ReconnectSchedule()
    let retry = s.attempting()
    #expect(!retry)
    #expect(s.outage == nil)
  }

  @Test func anOutageBeginsOnceAndCountsItsAttempts() throws {
    var s = ReconnectSchedule()
    _ = s.attempting()
    let first = s.failed(at: 5_000_000)
    // ReconnectBackoff: 1 s first, doubling.
    #expect(first.delay == 1_000_000 && first.began)
    let firstRetry = s.attempting()
    #expect(firstRetry)
    let second = s.failed(at: 6_000_000)
    #expect(second.delay == 2_000_000 && !second.began)
    let secondRetry = s.attempting()
    #expect(secondRetry)
    let ended = s.connected(at: 9_000_000)
    let outage = try #require(ended)
    // Began at the first failure; two retries since.
    #expect(outage.since == 5_000_000 && outage.attempts == 2)
    #expect(s.outage == nil)
    let retryAfter = s.attempting()
    #expect(!retryAfter)
  }

  @Test func aConnectionWithoutAnOutageEndsNone() {
    var s = ReconnectSchedule()
    let ended = s.connected(at: 1_000)
    #expect(ended == nil)
  }

  @Test func forgettingTheOutageKeepsTheBackoffStep() {
    var s = ReconnectSchedule()
    _ = s.failed(at: 0)
    _ = s.failed(at: 1_000_000)
    s.forgetOutage()
    let retryAfter = s.attempting()
    #expect(s.outage == nil && !retryAfter)
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
