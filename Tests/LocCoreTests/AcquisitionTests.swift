import LocCore
import Testing

/// Acquisition scenarios with a manual clock: instants in, outputs out.
@Suite struct AcquisitionTests {
  static let t0 = Instant(utc: CivilDate(year: 2026, month: 6, day: 1)!, hour: 8)
  static let here = Coordinate(lat: 48.1500, lon: 11.5847)!

  func at(_ seconds: Double) -> Instant { Self.t0.adding(seconds: seconds) }

  @Test func aFixThatNeverComesTimesOutAndBacksOffToItsCap() {
    var a = Acquisition(policy: Acquisition.Policy())
    var out = a.trigger(.start, at: at(0))
    #expect(out.contains(.receiverActive(true)))
    #expect(out.contains(.timeout(at: at(60))))
    var retries: [Duration] = []
    var now = at(60)
    for _ in 0..<6 {
      out = a.timedOut(at: now)
      #expect(out.contains(.receiverActive(false)))
      #expect(a.lastOutcome == .timedOut(at: now))
      guard let next = a.nextRefresh else {
        Issue.record("no retry scheduled")
        return
      }
      retries.append(next.duration(since: now))
      now = next
      #expect(a.refreshDue(at: now).contains(.receiverActive(true)))
      now = now.adding(.seconds(60))
    }
    // 1, 2, 4, 8 min, then the 15 min refresh interval caps it: never a tight loop.
    #expect(retries == [.seconds(60), .seconds(120), .seconds(240), .seconds(480), .seconds(900), .seconds(900)])
    #expect(a.failures == 6)
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
    #expect(out.contains(.transition(from: "acquiring", to: "settled", reason: "fix within 50 m, stable")))
    #expect(out.contains(.receiverActive(false)))
    #expect(out.contains(.refresh(at: at(6).adding(.seconds(900)))))
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
    let held = a.holder(+1, at: at(1))
    #expect(held.contains(.timeout(at: nil)))
    // Good fixes for ten minutes and the timeout time passes: still acquiring.
    for s in 2..<600 { _ = a.fix(Self.here, accuracy: 5, at: at(Double(s))) }
    #expect(a.timedOut(at: at(61)).isEmpty)
    #expect(a.isAcquiring)
    let left = a.holder(-1, at: at(600))
    #expect(left.contains(.receiverActive(false)))
    #expect(!a.isAcquiring)
  }

  @Test func continuousPolicyNeverTimesOut() {
    var p = Acquisition.Policy()
    p.mode = .continuous
    var a = Acquisition(policy: p)
    let out = a.trigger(.continuous, at: at(0))
    #expect(out.contains(.timeout(at: nil)))
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
    #expect(resumed.first == .transition(from: "idle", to: "acquiring", reason: "resume"))
    #expect(a.reasons == [.resume])
    #expect(a.trigger(.oneShot, at: at(201)).isEmpty)  // already acquiring: just another reason
    #expect(a.reasons == [.resume, .oneShot])
  }
}
