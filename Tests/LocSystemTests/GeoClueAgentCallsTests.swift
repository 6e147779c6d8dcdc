import Testing

@testable import LocSystem

/// How many unanswered calls to agents each user may have (GeoClueService's bookkeeping):
/// the figures come from the rules written in GeoClueAgentCalls, worked by hand below.
@Suite struct GeoClueAgentCallsTests {
  @Test func oneUsersAgentIsAskedAtMostItsShare() {
    var calls = GeoClueAgentCalls(maxTotal: 64, maxPerUser: 4)
    for _ in 0..<4 {
      #expect(calls.decide(uid: 65534) == .admit)
      calls.take(uid: 65534)
    }
    #expect(calls.decide(uid: 65534) == .perUserLimit)
    #expect(calls.decide(uid: 0) == .admit && calls.decide(uid: 1000) == .admit)
    // An answer gives one back.
    calls.release(uid: 65534)
    #expect(calls.held(by: 65534) == 3 && calls.taken == 3)
    #expect(calls.decide(uid: 65534) == .admit)
  }

  @Test func theLastSlotsAreForUsersWithNoneOutstanding() {
    // 10 in all, 4 per user: the last 4 (from 6 taken) only for a user holding none.
    var calls = GeoClueAgentCalls(maxTotal: 10, maxPerUser: 4)
    for uid: UInt32 in [1, 1, 1, 2, 2, 2] { calls.take(uid: uid) }
    #expect(calls.taken == 6)
    #expect(calls.decide(uid: 1) == .full, "user 1 holds 3, below its 4, but only the reserve is left")
    #expect(calls.decide(uid: 3) == .admit)
    for uid: UInt32 in [3, 4, 5, 6] { calls.take(uid: uid) }
    #expect(calls.decide(uid: 7) == .full, "all 10 taken")
    calls.release(uid: 6)
    #expect(calls.decide(uid: 7) == .admit && calls.decide(uid: 3) == .full)
  }

  @Test func releasingWhatWasNeverTakenChangesNothing() {
    var calls = GeoClueAgentCalls(maxTotal: 2, maxPerUser: 1)
    calls.release(uid: 42)
    #expect(calls.taken == 0 && calls.held(by: 42) == 0)
    // A total smaller than the per-user share: the reserve cannot go below nothing.
    var small = GeoClueAgentCalls(maxTotal: 1, maxPerUser: 4)
    #expect(small.decide(uid: 1) == .admit)
    small.take(uid: 1)
    #expect(small.decide(uid: 1) == .full && small.decide(uid: 2) == .full)
  }
}
