import LocCore
import Testing

/// `source-status` events go out when what a subscriber is told of changes (the state's
/// name, the fault), never for another reconnect attempt or new counters; a fault is dated
/// from its beginning and kept in `status` until it ends (decision 0047).
@Suite struct SourceNoticeTests {
  static let t0 = Instant(utc: CivilDate(year: 2026, month: 3, day: 1)!, hour: 12)
  let source = SourceID(0)
  let watcher = SessionID(3)
  let uri = "serial:/dev/gps0?baud=auto"

  /// An engine with one connected source and a session subscribed to `source-status`.
  func subscribed() -> Engine {
    var e = Engine(config: DaemonConfig())
    _ = e.handle(.started(nil, stateProblem: nil), at: Self.t0)
    _ = e.handle(.sourceUpdated(snapshot(.connected), restarted: true), at: Self.t0)
    _ = e.handle(.sessionOpened(watcher, Peer(pid: 3, uid: 0, gid: 0), .admin, client: "test"), at: Self.t0)
    _ = e.handle(.requestReceived(watcher, .number(1), .subscribe([.sourceStatus])), at: Self.t0)
    return e
  }

  func snapshot(
    _ state: SourceState, lastError: String? = nil, fault: SourceFault? = nil, fixes: Int = 0
  ) -> SourceSnapshot {
    SourceSnapshot(
      id: source, uri: uri, state: state, counters: [Counter("fixes", fixes)], lastError: lastError,
      fault: fault)
  }

  /// The `source-status` events among `effects`.
  func told(_ effects: [Effect]) -> [SourceSnapshot] {
    effects.compactMap {
      if case .push(let ids, .sourceStatus(let s), _) = $0, ids.contains(watcher) { return s }
      return nil
    }
  }

  /// The source as `status` shows it.
  func status(_ e: inout Engine, at t: Instant) -> SourceSnapshot? {
    let effects = e.handle(.requestReceived(watcher, .number(9), .status), at: t)
    for effect in effects {
      if case .reply(_, _, .success(.status(let r))) = effect { return r.sources.first }
    }
    return nil
  }

  @Test func anOutageIsOneEventHoweverManyAttempts() {
    var e = subscribed()
    // Unplugged: end of file, then the device node is gone at every attempt (2 s apart).
    var events: [SourceSnapshot] = []
    var t = Self.t0.adding(.seconds(1))
    events += told(
      e.handle(
        .sourceUpdated(
          snapshot(.reconnecting(retryAt: t.adding(.seconds(2))), lastError: "end of file"), restarted: false),
        at: t))
    for attempt in 1...4 {
      t = t.adding(.seconds(2))
      let again = snapshot(
        .reconnecting(retryAt: t.adding(.seconds(2))), lastError: "open /dev/gps0: No such file or directory",
        fixes: attempt)
      events += told(e.handle(.sourceUpdated(again, restarted: false), at: t))
    }
    #expect(events.count == 1)
    #expect(events.first?.state.name == "reconnecting")
    #expect(
      events.first?.fault
        == SourceFault(kind: .error, reason: "end of file", since: Self.t0.adding(.seconds(1))))
    // Status has the latest attempt's error and counters, and the outage from its start.
    let now = status(&e, at: t)
    #expect(now?.lastError == "open /dev/gps0: No such file or directory")
    #expect(now?.counters == [Counter("fixes", 4)])
    #expect(now?.fault?.reason == "end of file")
    #expect(now?.fault?.since == Self.t0.adding(.seconds(1)))
    // Back: one event, without the fault.
    t = t.adding(.seconds(1))
    let back = told(e.handle(.sourceUpdated(snapshot(.connected), restarted: true), at: t))
    #expect(back.count == 1)
    #expect(back.first?.state == .connected)
    #expect(back.first?.fault == nil)
    #expect(status(&e, at: t)?.fault == nil)
  }

  @Test func aSilenceIsToldOnceWhenItBeginsAndOnceWhenItEnds() {
    var e = subscribed()
    let silent = SourceFault(kind: .silent, reason: "sent nothing for 10 s", since: Self.t0)
    // The shell's date for a new fault is not used: the engine dates it on its own clock.
    let t1 = Self.t0.adding(.seconds(11))
    let began = told(e.handle(.sourceUpdated(snapshot(.connected, fault: silent), restarted: false), at: t1))
    #expect(began.count == 1)
    #expect(began.first?.state == .connected)
    #expect(began.first?.fault == SourceFault(kind: .silent, reason: "sent nothing for 10 s", since: t1))
    // Still silent at a later report (other counters): nothing new, the beginning kept.
    let t2 = t1.adding(.seconds(5))
    var later = silent
    later.since = t2
    #expect(
      told(e.handle(.sourceUpdated(snapshot(.connected, fault: later, fixes: 2), restarted: false), at: t2))
        .isEmpty)
    #expect(status(&e, at: t2)?.fault?.since == t1)
    // Bytes again: the fault clears, told once.
    let t3 = t2.adding(.seconds(1))
    let ended = told(e.handle(.sourceUpdated(snapshot(.connected, fixes: 3), restarted: false), at: t3))
    #expect(ended.count == 1)
    #expect(ended.first?.fault == nil)
    #expect(told(e.handle(.sourceUpdated(snapshot(.connected, fixes: 4), restarted: false), at: t3)).isEmpty)
    #expect(status(&e, at: t3)?.fault == nil)
  }

  @Test func aFailedSpeedHuntIsAFaultWithItsError() {
    var e = subscribed()
    _ = e.handle(.sourceUpdated(snapshot(.starting), restarted: true), at: Self.t0)
    let t1 = Self.t0.adding(.seconds(10))
    let reason = "no NMEA at 9600, 4800, 38400, 115200 baud"
    let hunt = snapshot(
      .starting, lastError: reason, fault: SourceFault(kind: .noNMEA, reason: reason, since: t1))
    let events = told(e.handle(.sourceUpdated(hunt, restarted: false), at: t1))
    #expect(events.count == 1)
    #expect(events.first?.state == .starting)
    #expect(events.first?.lastError == reason)
    #expect(events.first?.fault?.kind == .noNMEA)
    #expect(events.first?.fault?.since == t1)
    // Another round fails: the same fault, not news.
    let t2 = t1.adding(.seconds(10))
    #expect(told(e.handle(.sourceUpdated(hunt, restarted: false), at: t2)).isEmpty)
    #expect(status(&e, at: t2)?.fault?.since == t1)
  }

  @Test func statusCompletedByTheShellKeepsTheEnginesFault() {
    var e = subscribed()
    let t1 = Self.t0.adding(.seconds(11))
    let silent = SourceFault(kind: .silent, reason: "sent nothing for 10 s", since: t1)
    _ = e.handle(.sourceUpdated(snapshot(.connected, fault: silent), restarted: false), at: t1)
    let t2 = t1.adding(.seconds(30))
    var report: StatusReport?
    for effect in e.handle(.requestReceived(watcher, .number(9), .status), at: t2) {
      if case .reply(_, _, .success(.status(let r))) = effect { report = r }
    }
    // The shell's snapshot now: newer counters, the fault dated when it was made.
    var live = snapshot(.connected, fixes: 7)
    live.fault = SourceFault(kind: .silent, reason: "sent nothing for 10 s", since: t2)
    let shown = report?.completed(server: ServerCounters(), sources: [live]).sources.first
    #expect(shown?.counters == [Counter("fixes", 7)])
    #expect(shown?.fault?.since == t1)
  }

  @Test func aFaultOfAnotherKindBeginsAgain() {
    let t1 = Self.t0.adding(.seconds(1))
    let error = SourceFault.continuing(
      nil, reported: nil, lastError: "connect: Connection refused", at: Self.t0)
    #expect(error == SourceFault(kind: .error, reason: "connect: Connection refused", since: Self.t0))
    // Same kind, another reason: the outage goes on as it began.
    #expect(SourceFault.continuing(error, reported: nil, lastError: "connect: timed out", at: t1) == error)
    // What the shell reports wins over an error, and begins at `now`.
    let silent = SourceFault(kind: .silent, reason: "sent nothing for 10 s", since: Self.t0)
    #expect(
      SourceFault.continuing(error, reported: silent, lastError: "x", at: t1)
        == SourceFault(kind: .silent, reason: "sent nothing for 10 s", since: t1))
    #expect(SourceFault.continuing(error, reported: nil, lastError: nil, at: t1) == nil)
  }
}
