import LocCore
import Testing

/// Acquisition scenarios with a manual clock: instants in, outputs out.
@Suite struct AcquisitionTests {
  typealias Transition = Acquisition.Transition
  static let t0 = Instant(utc: CivilDate(year: 2026, month: 6, day: 1)!, hour: 8)
  static let here = Coordinate(lat: 48.1500, lon: 11.5847)!

  func at(_ seconds: Double) -> Instant { Self.t0.adding(seconds: seconds) }

  @Test func aFixThatNeverComesTimesOutAndBacksOffToItsCap() {
    var a = Acquisition(policy: Acquisition.Policy())
    let started = a.trigger(.start, at: at(0))
    #expect(started == [Transition(from: .idle, to: .acquiring, reason: .triggered(.start), at: at(0))])
    #expect(a.isAcquiring)
    #expect(a.deadline == at(60))
    var retries: [Duration] = []
    var reasons: [String] = []
    var now = at(60)
    for _ in 0..<6 {
      let out = a.timedOut(at: now)
      reasons.append(a.lastTransition?.reason.description ?? "")
      #expect(out.map(\.to) == [.idle])
      #expect(!a.isAcquiring)
      #expect(a.lastOutcome == .timedOut(at: now))
      guard let next = a.nextRefresh else {
        Issue.record("no retry scheduled")
        return
      }
      retries.append(next.duration(since: now))
      now = next
      #expect(a.refreshDue(at: now).map(\.reason) == [.triggered(.refresh)])
      #expect(a.isAcquiring)
      now = now.adding(.seconds(60))
    }
    // 1, 2, 4, 8 min, then the 15 min refresh interval caps it: never a tight loop.
    #expect(
      retries == [.seconds(60), .seconds(120), .seconds(240), .seconds(480), .seconds(900), .seconds(900)])
    #expect(a.failures == 6)
    #expect(reasons.first == "no fix within 50 m in 1 min; next attempt in 1 min")
    #expect(reasons.last == "no fix within 50 m in 1 min; next attempt in 15 min")
    // A success ends the back-off: the next timeout waits the first delay again.
    _ = a.refreshDue(at: now.adding(.seconds(900)))
    now = now.adding(.seconds(901))
    _ = a.fix(Self.here, accuracy: 5, at: now)
    _ = a.fix(Self.here, accuracy: 5, at: now.adding(.seconds(1)))
    #expect(a.failures == 0)
    _ = a.trigger(.manual, at: now.adding(.seconds(10)))
    _ = a.timedOut(at: now.adding(.seconds(70)))
    #expect(a.nextRefresh == now.adding(.seconds(130)))
  }

  @Test func aPoorFixImprovingToAGoodOneSettlesAtTheGoodOne() {
    var a = Acquisition(policy: Acquisition.Policy())
    _ = a.trigger(.start, at: at(0))
    for (i, accuracy) in [900.0, 300, 120, 60].enumerated() {
      #expect(a.fix(Self.here, accuracy: Meters(accuracy), at: at(Double(i + 1))).isEmpty)
      #expect(a.isAcquiring)
    }
    #expect(a.fix(Self.here, accuracy: 30, at: at(5)).isEmpty)  // good, not yet stable
    let out = a.fix(Self.here.destination(distance: 10, bearing: 90), accuracy: 25, at: at(6))
    #expect(
      out == [
        Transition(from: .acquiring, to: .settled, reason: .stable(accuracy: 50), at: at(6)),
        Transition(from: .settled, to: .idle, reason: .released(refreshIn: .seconds(900)), at: at(6)),
      ])
    #expect(
      out.map(\.reason.description) == [
        "fix within 50 m, stable", "receivers released; next refresh in 15 min",
      ])
    #expect(a.nextRefresh == at(6).adding(.seconds(900)))
    #expect(a.lastOutcome == .settled(at: at(6), accuracy: 25))
    #expect(!a.isAcquiring)
  }

  @Test func aJumpBetweenGoodFixesIsNotStable() {
    var a = Acquisition(policy: Acquisition.Policy())
    _ = a.trigger(.manual, at: at(0))
    _ = a.fix(Self.here, accuracy: 20, at: at(1))
    // 5 km away: the first good fix was wrong or we moved fast; start counting again.
    #expect(a.fix(Self.here.destination(distance: 5000, bearing: 0), accuracy: 20, at: at(2)).isEmpty)
    #expect(a.isAcquiring)
  }

  @Test func aContinuousSubscriberKeepsAcquisitionOnUntilItLeaves() {
    var a = Acquisition(policy: Acquisition.Policy())
    _ = a.trigger(.start, at: at(0))
    #expect(a.holder(+1, at: at(1)).isEmpty)  // already acquiring: no transition
    #expect(a.deadline == nil)
    #expect(a.reasons == [.start, .subscriber])
    // Good fixes for ten minutes and the timeout time passes: still acquiring.
    for s in 2..<600 { _ = a.fix(Self.here, accuracy: 5, at: at(Double(s))) }
    #expect(a.timedOut(at: at(61)).isEmpty)
    #expect(a.isAcquiring)
    let left = a.holder(-1, at: at(600))
    #expect(left.map(\.to) == [.settled, .idle])
    #expect(left.first?.reason.description == "last continuous subscriber left; fix within 50 m, stable")
    #expect(!a.isAcquiring)
  }

  @Test func continuousPolicyNeverTimesOut() {
    var p = Acquisition.Policy()
    p.mode = .continuous
    var a = Acquisition(policy: p)
    #expect(a.trigger(.continuous, at: at(0)).map(\.to) == [.acquiring])
    #expect(a.deadline == nil)
    for s in 1..<100 { #expect(a.fix(Self.here, accuracy: 3, at: at(Double(s))).isEmpty) }
    #expect(a.isAcquiring)
  }

  @Test func resumeAndOneShotTriggerAcquisitionFromIdle() {
    var a = Acquisition(policy: Acquisition.Policy())
    _ = a.trigger(.start, at: at(0))
    _ = a.fix(Self.here, accuracy: 5, at: at(1))
    _ = a.fix(Self.here, accuracy: 5, at: at(2))
    #expect(!a.isAcquiring)
    // Idle: no wakeups but the refresh.
    #expect(a.refreshDue(at: at(100)).isEmpty)
    let resumed = a.trigger(.resume, at: at(200))
    #expect(resumed == [Transition(from: .idle, to: .acquiring, reason: .triggered(.resume), at: at(200))])
    #expect(a.reasons == [.resume])
    // Already acquiring: another reason, and a full timeout from now.
    #expect(a.trigger(.manual, at: at(230)).isEmpty)
    #expect(a.deadline == at(290))
    #expect(a.reasons == [.resume, .manual])
    #expect(a.attempts == 2)
  }

  @Test func aOneShotKeepsAcquiringUntilAnsweredOrItsOwnTimeout() {
    var a = Acquisition(policy: Acquisition.Policy())
    // A one-shot waiting 120 s: longer than the 60 s policy timeout.
    let started = a.oneShot(7, until: at(120), at: at(0))
    #expect(started.map(\.reason) == [.triggered(.oneShot)])
    #expect(a.isAcquiring)
    #expect(a.deadline == at(120))
    // A stable 30 m fix satisfies the policy, but the one-shot still waits (it wants better).
    #expect(a.fix(Self.here, accuracy: 30, at: at(1)).isEmpty)
    #expect(a.fix(Self.here, accuracy: 30, at: at(2)).isEmpty)
    #expect(a.isAcquiring)
    // Its owner answers it (or it gives up): the stable fix settles at once.
    let out = a.release(7, at: at(50))
    #expect(out.map(\.to) == [.settled, .idle])
    #expect(!a.isAcquiring)
    #expect(a.lastOutcome == .settled(at: at(50), accuracy: 30))
    #expect(a.release(7, at: at(51)).isEmpty)
  }

  @Test func aTimeoutWithAStableFixHeldBackByAOneShotSettles() {
    var a = Acquisition(policy: Acquisition.Policy())
    _ = a.oneShot(1, until: at(30), at: at(0))
    _ = a.fix(Self.here, accuracy: 20, at: at(1))
    _ = a.fix(Self.here, accuracy: 20, at: at(2))
    #expect(a.isAcquiring)
    let out = a.timedOut(at: at(60))
    #expect(
      out.first == Transition(from: .acquiring, to: .settled, reason: .stable(accuracy: 50), at: at(60)))
    #expect(a.failures == 0)
    #expect(a.oneShots.isEmpty)
  }

  @Test func policyChangesAtReload() {
    var a = Acquisition(policy: Acquisition.Policy())
    _ = a.trigger(.start, at: at(0))
    var continuous = Acquisition.Policy()
    continuous.mode = .continuous
    // Switching to continuous holds the running attempt open.
    #expect(a.update(continuous, at: at(10)).isEmpty)
    #expect(a.deadline == nil)
    #expect(a.timedOut(at: at(61)).isEmpty)
    _ = a.fix(Self.here, accuracy: 5, at: at(100))
    _ = a.fix(Self.here, accuracy: 5, at: at(101))
    #expect(a.isAcquiring)
    // Back to on-demand: the stable fix settles at once.
    #expect(a.update(Acquisition.Policy(), at: at(200)).map(\.to) == [.settled, .idle])
    #expect(!a.isAcquiring)
    // A shorter refresh interval applies to the refresh already planned.
    var quick = Acquisition.Policy()
    quick.refreshInterval = .seconds(60)
    #expect(a.update(quick, at: at(300)).isEmpty)
    #expect(a.nextRefresh == at(360))
  }

  @Test func aClockStepGivesTheAttemptAFullTimeoutFromNow() {
    var a = Acquisition(policy: Acquisition.Policy())
    _ = a.trigger(.start, at: at(0))
    // Set back an hour (NTP at boot): without a rebase the receiver would stay on an hour.
    let back = at(-3600)
    a.clockStepped(at: back)
    #expect(a.deadline == back.adding(.seconds(60)))
    _ = a.timedOut(at: back.adding(.seconds(60)))
    #expect(a.nextRefresh == back.adding(.seconds(120)))
    // Idle, set back again: the retry stays one delay away, not an hour and a delay.
    let further = back.adding(.seconds(-3600))
    a.clockStepped(at: further)
    #expect(a.nextRefresh == further.adding(.seconds(60)))
  }
}
