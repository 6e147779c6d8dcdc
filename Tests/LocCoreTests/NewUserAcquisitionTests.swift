import Testing

@testable import LocCore

/// Issue 15, "Found by a new user": acquisition and the time zone with a receiver in a car,
/// with fixes that carry no accuracy, and with a zone candidate that needs more fixes.
@Suite struct NewUserAcquisitionTests {
  typealias Transition = Acquisition.Transition
  static let t0 = Instant(utc: CivilDate(year: 2026, month: 6, day: 1)!, hour: 8)
  static let here = Coordinate(lat: 48.1500, lon: 11.5847)!

  func at(_ seconds: Double) -> Instant { Self.t0.adding(seconds: seconds) }

  /// The point `meters` east of `here`.
  func east(_ meters: Double) -> Coordinate { Self.here.destination(distance: Meters(meters), bearing: 90) }

  @Test func aReceiverInACarSettles() {
    // ±4.5 m fixes 20 m apart at 20 m/s: each is where the one before said it would be. Before,
    // only fixes inside each other's circles (9 m) counted: "no fix within 50 m" for good.
    var a = Acquisition(policy: Acquisition.Policy())
    _ = a.trigger(.start, at: at(0))
    #expect(a.fix(east(0), accuracy: 4.5, speed: MetersPerSecond(20), at: at(1)).isEmpty)
    let out = a.fix(east(20), accuracy: 4.5, speed: MetersPerSecond(20), at: at(2))
    #expect(out.map(\.to) == [.settled, .idle])
    // Without a reported speed, the speed of the two fixes before stands in: the third settles.
    var b = Acquisition(policy: Acquisition.Policy())
    _ = b.trigger(.start, at: at(0))
    #expect(b.fix(east(0), accuracy: 4.5, at: at(1)).isEmpty)
    #expect(b.fix(east(20), accuracy: 4.5, at: at(2)).isEmpty)
    #expect(b.fix(east(40), accuracy: 4.5, at: at(3)).map(\.to) == [.settled, .idle])
    // A jump still breaks the streak: 500 m in a second at a reported 20 m/s.
    var c = Acquisition(policy: Acquisition.Policy())
    _ = c.trigger(.start, at: at(0))
    _ = c.fix(east(0), accuracy: 4.5, speed: MetersPerSecond(20), at: at(1))
    #expect(c.fix(east(500), accuracy: 4.5, speed: MetersPerSecond(20), at: at(2)).isEmpty)
    #expect(c.isAcquiring)
  }

  @Test func fixesWithoutAccuracyCountAsFiftyMetres() {
    // An RMC-only feed: stable fixes settle with the default Accuracy=50 (before: never).
    var a = Acquisition(policy: Acquisition.Policy())
    _ = a.trigger(.start, at: at(0))
    #expect(a.fix(Self.here, accuracy: nil, at: at(1)).isEmpty)
    #expect(a.fix(east(10), accuracy: nil, at: at(2)).map(\.to) == [.settled, .idle])
    #expect(a.lastOutcome == .settled(at: at(2), accuracy: Fix.assumedAccuracy))
    // A stricter Accuracy= is not met by them.
    var policy = Acquisition.Policy()
    policy.accuracy = 20
    var b = Acquisition(policy: policy)
    _ = b.trigger(.start, at: at(0))
    for i in 1...5 { #expect(b.fix(Self.here, accuracy: nil, at: at(Double(i))).isEmpty) }
    #expect(b.isAcquiring)
  }

  @Test func aZoneCandidateKeepsTheAttemptGoingUntilDecided() {
    var a = Acquisition(policy: Acquisition.Policy())
    _ = a.trigger(.start, at: at(0))
    #expect(a.zoneWantsFixes(true, at: at(1)).isEmpty)
    #expect(a.fix(Self.here, accuracy: 5, at: at(1)).isEmpty)
    #expect(a.fix(Self.here, accuracy: 5, at: at(2)).isEmpty, "stable, but the zone wants more fixes")
    #expect(a.isAcquiring)
    #expect(a.zoneWantsFixes(false, at: at(3)).map(\.to) == [.settled, .idle])
    // At the timeout a stable fix settles even while the zone still wants fixes: no failure.
    var b = Acquisition(policy: Acquisition.Policy())
    _ = b.trigger(.start, at: at(0))
    _ = b.zoneWantsFixes(true, at: at(0))
    _ = b.fix(Self.here, accuracy: 5, at: at(1))
    _ = b.fix(Self.here, accuracy: 5, at: at(2))
    #expect(b.timedOut(at: at(60)).map(\.to) == [.settled, .idle])
    #expect(b.failures == 0)
  }

  @Test func fixesFarFromAnyBorderMoveTheZone() {
    // Boundary data with no border within the probe's 10 km: a parked receiver's fixes
    // without accuracy are at least 10 km into the zone. Before, the depth stayed 0 and the
    // status said "seen by 4 of 3 fixes, 0 of 100 m into it" until SwitchAfter.
    var environment = EngineEnvironment(zoneAt: { c in
      c.longitude.value < 11 ? "Europe/Paris" : "Europe/Berlin"
    })
    environment.borderDistance = { _ in nil }
    var zones = ZoneMachine(environment: environment, settings: ZoneHysteresis.Settings())
    zones.started(from: Coordinate(lat: 48.85, lon: 2.35)!, at: at(0))
    #expect(zones.adopted == "Europe/Paris")
    for i in 1...2 {
      #expect(zones.observe(Self.here, time: at(Double(i)), accuracy: nil) == false)
      #expect(zones.wantsFixes, "fix \(i): a candidate that needs more fixes")
    }
    #expect(zones.observe(Self.here, time: at(3), accuracy: nil) == true)
    #expect(zones.adopted == "Europe/Berlin")
    #expect(!zones.wantsFixes)
    // Without boundary distance, a parked receiver is 0 m in; the count never reads "4 of 3".
    var p = ZoneHysteresis()
    p.reset(to: "Europe/Paris", at: at(0))
    for i in 1...4 { _ = p.observe("Europe/Berlin", at: Self.here, time: at(Double(i)), accuracy: 5) }
    #expect(
      p.explanation
        == "Europe/Paris from the position; Europe/Berlin seen by 3 of 3 fixes, 0 of 100 m into it")
  }
}
