import Testing

@testable import LocSystem

/// Who gets a connection slot (ControlServer's bookkeeping): the figures come from the
/// rules written in ClientSlots, worked by hand below.
@Suite struct ClientSlotsTests {
  @Test func theReserveIsForAdministratorsOnly() {
    // 5 slots, the last 2 for administrators: 3 for everyone else.
    var slots = ClientSlots(maxClients: 5, reservedForAdmin: 2, maxPerUser: 100)
    for uid: UInt32 in [1000, 1001, 1002] {
      #expect(slots.decide(uid: uid, admin: false) == .admit)
      slots.take(uid: uid)
    }
    #expect(slots.decide(uid: 1003, admin: false) == .reservedForAdmin)
    #expect(slots.decide(uid: 0, admin: true) == .admit)
    slots.take(uid: 0)
    slots.take(uid: 0)
    #expect(slots.decide(uid: 0, admin: true) == .full)
    // A slot given back is anyone's again, below the reserve.
    slots.release(uid: 1000)
    slots.release(uid: 0)
    #expect(slots.decide(uid: 1003, admin: false) == .reservedForAdmin)
    slots.release(uid: 0)
    #expect(slots.decide(uid: 1003, admin: false) == .admit)
  }

  @Test func oneUidIsHeldToItsShare() {
    var slots = ClientSlots(maxClients: 100, reservedForAdmin: 0, maxPerUser: 2)
    slots.take(uid: 65534)
    slots.take(uid: 65534)
    #expect(slots.decide(uid: 65534, admin: false) == .perUserLimit)
    #expect(slots.decide(uid: 1000, admin: false) == .admit)
    // Administrators are not held to it.
    #expect(slots.decide(uid: 65534, admin: true) == .admit)
    slots.release(uid: 65534)
    #expect(slots.held(by: 65534) == 1)
    #expect(slots.decide(uid: 65534, admin: false) == .admit)
  }

  @Test func aReserveAsLargeAsEverythingLeavesNothingToOthers() {
    let slots = ClientSlots(maxClients: 4, reservedForAdmin: 10, maxPerUser: 4)
    #expect(slots.decide(uid: 1000, admin: false) == .reservedForAdmin)
    #expect(slots.decide(uid: 0, admin: true) == .admit)
  }

  @Test func releasingWhatWasNeverTakenChangesNothing() {
    var slots = ClientSlots(maxClients: 1, reservedForAdmin: 0, maxPerUser: 1)
    slots.release(uid: 7)
    #expect(slots.taken == 0)
  }
}

/// The log throttle: `burst` lines per window, then a count of those held back.
@Suite struct LogThrottleTests {
  @Test func passesABurstThenCountsWhatItHeldBack() {
    var t = LogThrottle(burst: 3, windowMicroseconds: 10_000_000)
    // Three lines pass at once (none held back before them), the next five are held.
    #expect((0..<3).map { _ in t.admit(at: 1_000_000) } == [0, 0, 0])
    #expect((0..<5).allSatisfy { _ in t.admit(at: 2_000_000) == nil })
    // A new window: the first line says five were held back, the next none.
    #expect(t.admit(at: 11_000_000) == 5)
    #expect(t.admit(at: 11_000_001) == 0)
  }
}
