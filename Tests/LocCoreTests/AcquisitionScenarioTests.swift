import LocCore
import Testing

/// Acquisition in the engine, with a manual clock: what the shell is told about receivers,
/// which timers are armed, what `locate` answers and when.
@Suite struct AcquisitionScenarioTests {
  static let t0 = Instant(utc: CivilDate(year: 2026, month: 6, day: 1)!, hour: 8)
  static let oslo = Coordinate(lat: 59.9139, lon: 10.7522)!
  /// Everything but `location`: a watcher that does not itself hold acquisition open.
  static let quiet = Set(EventKind.allCases).subtracting([.location])
  let reader = SessionID(5)

  func at(_ seconds: Double) -> Instant { Self.t0.adding(seconds: seconds) }

  func harness(state: StoredState? = nil, config: DaemonConfig = DaemonConfig()) -> EngineHarness {
    var h = EngineHarness(config: config, at: Self.t0, state: state, watching: Self.quiet)
    h.handle(.sessionOpened(reader, Peer(pid: 5, uid: 1000, gid: 1000), .read, client: "reader"))
    return h
  }

  /// The reader's request; returns its reply if there was one at once.
  func ask(_ h: inout EngineHarness, _ r: Request, id: Int64 = 1) -> Result<Response, RequestError>? {
    for e in h.handle(.requestReceived(reader, .number(id), r)) {
      if case .reply(reader, .number(id), let result) = e { return result }
    }
    return nil
  }

  /// Replies to the reader logged so far, by request id.
  func replies(_ h: EngineHarness) -> [(at: Instant, id: Int64, result: Result<Response, RequestError>)] {
    h.log.compactMap { entry in
      if case .reply(reader, .number(let id), let r) = entry.effect { return (entry.at, id, r) }
      return nil
    }
  }

  func located(_ r: Result<Response, RequestError>?) -> LocateAnswer? {
    if case .success(.located(let a))? = r { return a }
    return nil
  }

  func status(_ h: inout EngineHarness) -> StatusReport? {
    if case .success(.status(let s))? = h.request(.status) { return s }
    return nil
  }

  @Test func aFixThatNeverComesFallsBackAndBacksOffToItsCap() {
    let yesterday = at(-86_400)
    let stored = Position(
      coordinate: Self.oslo, accuracy: 8, time: yesterday, receivedAt: yesterday,
      source: "gpsd://127.0.0.1:2947")
    var h = harness(state: StoredState(lastKnown: stored))
    #expect(h.receiverCommands.map(\.active) == [true])
    #expect(h.armed[.acquisitionTimeout] == at(60))
    // A client asks meanwhile and gets, at its timeout, the cached position with its age.
    #expect(ask(&h, .locate(timeout: .seconds(30), accuracy: nil)) == nil)
    h.advance(to: at(30))
    let answer = located(replies(h).first?.result)
    #expect(answer?.provenance == .cached)
    #expect(answer?.position.age == .seconds(86_430))
    #expect(answer?.note == "no fresh fix within 50 m came in 30 s")
    #expect(answer?.waited == .seconds(30))
    h.advance(to: at(3 * 3600))
    // On at start, off after each 60 s attempt, retries 1, 2, 4, 8 min apart, then every
    // 15 min (the refresh interval): never a tight loop.
    let commands = h.receiverCommands
    let offs = commands.filter { !$0.active }.map(\.at)
    let ons = commands.filter { $0.active }.map(\.at)
    #expect(zip(ons, offs).allSatisfy { $1.duration(since: $0) == .seconds(60) })
    let gaps = zip(offs, ons.dropFirst()).map { $1.duration(since: $0) }
    #expect(
      Array(gaps.prefix(7)) == [60, 120, 240, 480, 900, 900, 900].map { Duration.seconds($0) },
      "\(gaps)")
    let s = status(&h)
    #expect(s?.position.tier == .cached)
    #expect(s?.acquisition?.failures == gaps.count + 1)
    #expect(s?.acquisition?.phase == .idle)
    #expect(s?.position.reason == "receivers idle between refreshes; last known position")
  }

  @Test func aPoorFixImprovingToAGoodOneSettlesAtTheGoodOne() {
    var h = harness()
    for (i, accuracy) in [900.0, 300, 120, 60, 30].enumerated() {
      h.fix(Self.oslo, at: at(Double(i + 1)), accuracy: accuracy)
    }
    #expect(h.receiverCommands.map(\.active) == [true], "30 m once is not yet stable")
    h.fix(Self.oslo.destination(distance: 10, bearing: 90), at: at(6), accuracy: 25)
    #expect(h.receiverCommands.map(\.active) == [true, false])
    #expect(h.receiverCommands.last?.at == at(6))
    // (The start came before the watcher subscribed; the log has it.)
    #expect(h.logLines.contains("acquisition: idle -> acquiring (start)"))
    #expect(
      h.acquisitionChanges.map { [$0.change.transition.from, $0.change.transition.to] } == [
        [.acquiring, .settled], [.settled, .idle],
      ])
    let s = status(&h)
    #expect(s?.acquisition?.lastOutcome == .settled(at: at(6), accuracy: 25))
    #expect(s?.position.position?.accuracy == 25)
    // Idle: no acquisition timeout armed, only the refresh, 15 min on.
    #expect(h.armed[.acquisitionTimeout] == nil)
    #expect(h.armed[.acquisitionRefresh] == at(906))
    h.advance(to: at(906))
    #expect(h.receiverCommands.map(\.active) == [true, false, true])
    #expect(h.acquisitionChanges.last?.change.transition.reason == .triggered(.refresh))
  }

  @Test func aContinuousSubscriberKeepsAcquisitionOnUntilItLeaves() {
    var h = harness()
    #expect(ask(&h, .subscribe([.location])) != nil)
    #expect(h.armed[.acquisitionTimeout] == nil, "held open: no timeout")
    for s in 1...600 { h.fix(Self.oslo, at: at(Double(s)), accuracy: 5) }
    #expect(h.receiverCommands.map(\.active) == [true])
    #expect(status(&h)?.acquisition?.reasons == [.start, .subscriber])
    _ = ask(&h, .unsubscribe([.location]), id: 2)
    // It had a stable fix all along: settles as soon as the subscriber leaves.
    #expect(h.receiverCommands.map(\.active) == [true, false])
    #expect(h.receiverCommands.last?.at == at(600))
    #expect(
      h.acquisitionChanges.contains {
        $0.change.transition.reason == .subscribersLeft(accuracy: 50)
          && $0.change.transition.reason.description.hasPrefix("last continuous subscriber left")
      })
    // A session that goes away without unsubscribing lets go the same way.
    h.advance(to: at(700))
    _ = ask(&h, .subscribe([.location]), id: 3)
    #expect(h.receiverCommands.last?.active == true)
    h.handle(.sessionClosed(reader))
    h.advance(to: at(800))
    #expect(h.receiverCommands.last?.active == false)
    #expect(
      h.receiverCommands.last?.at == at(760), "no fix came after the subscriber: the normal 60 s timeout")
  }

  @Test func resumeFromSuspendTriggersAcquisition() {
    var h = harness()
    h.fix(Self.oslo, at: at(1))
    h.fix(Self.oslo, at: at(2))
    #expect(h.receiverCommands.map(\.active) == [true, false])
    h.advance(to: at(300))
    h.handle(.resumed(sleptFor: .seconds(7200)))
    #expect(h.receiverCommands.map(\.active) == [true, false, true])
    #expect(h.acquisitionChanges.last?.change.transition.reason == .triggered(.resume))
    #expect(h.armed[.acquisitionTimeout] == at(360))
  }

  @Test func locateWaitsForAGoodEnoughFixThenSettles() {
    var h = harness()
    h.fix(Self.oslo, at: at(1), accuracy: 30)
    h.fix(Self.oslo, at: at(2), accuracy: 30)
    #expect(h.receiverCommands.map(\.active) == [true, false])
    // A fresh 30 m fix answers a request for 50 m at once...
    let quick = located(ask(&h, .locate(timeout: .seconds(20), accuracy: 50), id: 1))
    #expect(quick?.provenance == .fresh)
    #expect(quick?.accuracyMet == true)
    #expect(quick?.waited == .zero)
    // ...but not one for 10 m: the receivers wake up until a good enough fix comes.
    #expect(ask(&h, .locate(timeout: .seconds(20), accuracy: 10), id: 2) == nil)
    #expect(h.receiverCommands.last?.active == true)
    #expect(h.armed[.locateDeadline] == at(22))
    h.fix(Self.oslo, at: at(5), accuracy: 20)
    h.fix(Self.oslo, at: at(6), accuracy: 8)
    let answer = replies(h).first { $0.id == 2 }
    #expect(answer?.at == at(6))
    #expect(located(answer?.result)?.accuracyMet == true)
    #expect(located(answer?.result)?.position.position?.accuracy == 8)
    // Answered, and the last two fixes were stable: the receivers sleep again.
    #expect(h.receiverCommands.last?.active == false)
    #expect(h.armed[.locateDeadline] == nil)
  }

  @Test func locateEdgeCases() {
    var h = harness()
    // Timeout 0: what there is, now, with a note.
    let now = located(ask(&h, .locate(timeout: .zero, accuracy: nil), id: 1))
    #expect(now?.provenance == LocateAnswer.Provenance.none)
    #expect(now?.position.reason != nil)
    #expect(now?.note == "answered at once (timeout 0)")
    // A bounded number of waiting requests per connection.
    for id in 2...17 { #expect(ask(&h, .locate(timeout: .seconds(30), accuracy: 5), id: Int64(id)) == nil) }
    guard case .failure(let e)? = ask(&h, .locate(timeout: .seconds(30), accuracy: 5), id: 18) else {
      Issue.record("the 17th waiting locate should fail")
      return
    }
    #expect(e.code == .failed)
    #expect(status(&h)?.acquisition?.pendingLocates == 16)
    // The session goes away: its requests are dropped, never answered.
    h.handle(.sessionClosed(reader))
    #expect(status(&h)?.acquisition?.pendingLocates == 0)
    h.advance(to: at(120))
    #expect(!replies(h).contains { $0.id >= 2 && $0.id <= 17 })
    // Nothing can deliver (the only source failed): answered at once, saying why.
    h.handle(.sessionOpened(reader, Peer(pid: 5, uid: 1000, gid: 1000), .read, client: "reader"))
    h.handle(
      .sourceUpdated(
        SourceSnapshot(id: h.source, uri: "serial:/dev/gps", state: .failed, lastError: "no such device"),
        restarted: false))
    let none = located(ask(&h, .locate(timeout: .seconds(30), accuracy: nil), id: 20))
    #expect(none?.note == "no source can deliver fixes (serial:/dev/gps: failed (no such device))")
  }

  @Test func refreshNeedsOnlyReadingAndStartsAnAttempt() {
    var h = harness()
    h.fix(Self.oslo, at: at(1))
    h.fix(Self.oslo, at: at(2))
    h.advance(to: at(100))
    guard case .success(.acquisition(let report))? = ask(&h, .refresh) else {
      Issue.record("refresh should answer with the acquisition state")
      return
    }
    #expect(report.phase == .acquiring)
    #expect(report.reasons == [.manual])
    #expect(report.deadline == at(160))
    #expect(h.receiverCommands.last?.active == true)
    let stranger = SessionID(9)
    h.handle(.sessionOpened(stranger, Peer(pid: 9, uid: 4242, gid: 4242), .none, client: nil))
    let denied = h.handle(.requestReceived(stranger, .number(1), .refresh))
    #expect(
      denied.contains {
        if case .reply(_, _, .failure(let e)) = $0 {
          return e.code == .permissionDenied
        } else {
          return false
        }
      })
  }

  @Test func continuousPolicyNeverReleasesTheReceivers() {
    var config = DaemonConfig()
    config.acquisition.mode = .continuous
    var h = harness(config: config)
    for s in 1...120 { h.fix(Self.oslo, at: at(Double(s))) }
    h.advance(to: at(7200))
    #expect(h.receiverCommands.map(\.active) == [true])
    #expect(h.armed[.acquisitionTimeout] == nil)
    #expect(h.armed[.acquisitionRefresh] == nil)
    #expect(status(&h)?.acquisition?.reasons == [.continuous, .start])
  }

  @Test func aClockSetBackDoesNotKeepTheReceiverOnForAnHour() {
    var h = harness()
    #expect(ask(&h, .locate(timeout: .seconds(45), accuracy: nil)) == nil)
    h.now = at(-3600)  // NTP steps the clock back an hour at boot
    h.handle(.clockStepped)
    #expect(h.armed[.acquisitionTimeout] == at(-3600 + 60))
    #expect(h.armed[.locateDeadline] == at(-3600 + 45))
    h.advance(to: at(-3600 + 60))
    #expect(h.receiverCommands.last?.active == false)
    #expect(located(replies(h).first?.result)?.waited == .seconds(45))
  }
}
