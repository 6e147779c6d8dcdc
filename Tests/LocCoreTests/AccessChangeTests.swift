import LocCore
import Testing

/// An open session's access changes (a reload took its user out of a group): what it may
/// receive and ask from then on follows the new access, and it is told (issue 15: before,
/// access was decided once at hello and a removed reader kept reading).
@Suite struct AccessChangeTests {
  static let t0 = Instant(utc: CivilDate(year: 2026, month: 6, day: 1)!, hour: 8)
  static let oslo = Coordinate(lat: 59.9139, lon: 10.7522)!
  let reader = SessionID(5)

  func harness() -> EngineHarness {
    var h = EngineHarness(at: Self.t0)
    h.handle(.sessionOpened(reader, Peer(pid: 5, uid: 1000, gid: 100), .read, client: nil))
    return h
  }

  /// Effects for the reader: replies by request id, and pushed notices.
  func replies(_ effects: [Effect]) -> [Int64: Result<Response, RequestError>] {
    var out: [Int64: Result<Response, RequestError>] = [:]
    for e in effects {
      if case .reply(reader, .number(let id), let r) = e { out[id] = r }
    }
    return out
  }

  func pushed(_ effects: [Effect]) -> [Notice] {
    effects.compactMap { e in
      if case .push(let to, let n, _) = e, to.contains(reader) { return n }
      return nil
    }
  }

  @Test func aReaderReducedToNoneLosesItsSubscriptionsAndItsWaitingLocate() throws {
    var h = harness()
    _ = h.handle(.requestReceived(reader, .number(1), .subscribe([.location, .accessChanged])))
    // No fix yet: the locate waits.
    #expect(
      replies(h.handle(.requestReceived(reader, .number(2), .locate(timeout: .seconds(30), accuracy: nil))))
        .isEmpty)
    let effects = h.handle(.accessChanged(reader, .none, reason: .configurationReloaded))
    // The waiting locate is answered permission-denied, not left to its timeout.
    guard case .failure(let e)? = replies(effects)[2] else {
      Issue.record("locate not answered: \(effects)")
      return
    }
    #expect(e.code == .permissionDenied)
    // Told, with what it lost: reading needed for both kinds, so nothing is kept.
    let expected = AccessChange(
      from: .read, to: .none, reason: .configurationReloaded, unsubscribed: [.location, .accessChanged],
      subscriptions: [])
    #expect(pushed(effects) == [.accessChanged(expected)])
    // From now on: no location events, and reading is refused.
    let seen = h.log.count
    h.fix(Self.oslo, at: Self.t0.adding(seconds: 1))
    #expect(
      h.log.dropFirst(seen).contains { if case .push(_, .location, _) = $0.effect { true } else { false } })
    #expect(
      h.log.dropFirst(seen).allSatisfy { entry in
        if case .push(let to, .location, _) = entry.effect { return !to.contains(reader) }
        return true
      })
    guard case .failure(let denied)? = replies(h.handle(.requestReceived(reader, .number(3), .status)))[3]
    else {
      Issue.record("status answered after the change")
      return
    }
    #expect(denied.code == .permissionDenied)
  }

  @Test func aSessionThatLosesNothingAndDidNotAskIsNotTold() {
    var h = harness()
    let raised = h.handle(.accessChanged(reader, .admin, reason: .configurationReloaded))
    #expect(pushed(raised).isEmpty)
    // Now an administrator: changing state is allowed.
    #expect(
      replies(h.handle(.requestReceived(reader, .number(1), .clearLocation)))[1].map { r in
        if case .success = r { return true } else { return false }
      } == true)
    // The same access again changes nothing and says nothing.
    #expect(h.handle(.accessChanged(reader, .admin, reason: .configurationReloaded)).isEmpty)
  }
}
