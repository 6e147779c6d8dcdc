import LocCore
import Testing

/// Monitoring and ranging on hand-made sightings, every expectation reasoned from the rules
/// in docs/BEACONS.md (exit after ExitAfter, 1 s ranging, median over 5 s, forget after 10 s,
/// distance 10^((power − rssi) / 20) m, immediate < 0.5 m, near < 3 m).
@Suite struct BeaconMachineTests {
  static let uuid = BeaconUUID(high: 0x494E_5445_4C4C_495F, low: 0x524F_434B_535F_4857)
  static let other = BeaconUUID(high: 1, low: 2)
  static let t0 = Instant(microsecondsSinceEpoch: 1_780_000_000_000_000)
  static let a = BeaconIdentity(uuid: uuid, major: 1, minor: 1)
  static let b = BeaconIdentity(uuid: uuid, major: 1, minor: 2)
  static let c = BeaconIdentity(uuid: uuid, major: 2, minor: 1)
  static let d = BeaconIdentity(uuid: uuid, major: 2, minor: 2)
  static let x = BeaconIdentity(uuid: other, major: 1, minor: 1)
  static let everyone = BeaconConstraint(uuid: uuid)!
  static let monitor = BeaconSubscriptionID(1)
  static let ranging = BeaconSubscriptionID(2)

  static func at(_ seconds: Double) -> Instant { t0.adding(seconds: seconds) }

  static func seen(_ identity: BeaconIdentity, rssi: Int?, power: Int? = -62, address: UInt64 = 1)
    -> BeaconInput
  {
    .heard(
      BeaconSighting(
        identity: identity, address: BluetoothAddress(value: address),
        rssi: rssi.map { DecibelMilliwatts($0) },
        calibratedPower: power.map { DecibelMilliwatts($0) }))
  }

  /// The list of the one `.ranged` output, or `nil` if there is none.
  static func list(_ outputs: [BeaconOutput]) -> [RangedBeacon]? {
    for case .ranged(_, let list) in outputs { return list }
    return nil
  }

  @Test func scanningFollowsSubscriptions() {
    var m = BeaconMachine()
    #expect(!m.scanningNeeded)
    #expect(
      m.handle(.subscribe(Self.monitor, .monitor(Self.everyone, exitAfter: .seconds(30))), at: Self.t0) == [
        .scanning(needed: true)
      ])
    #expect(m.handle(.subscribe(Self.ranging, .range(Self.everyone)), at: Self.t0) == [])
    #expect(m.handle(.unsubscribe(Self.monitor), at: Self.t0) == [])
    #expect(m.handle(.unsubscribe(BeaconSubscriptionID(99)), at: Self.t0) == [])
    #expect(m.handle(.unsubscribe(Self.ranging), at: Self.t0) == [.scanning(needed: false)])
    #expect(!m.scanningNeeded)
    #expect(m.nextDeadline == nil)
  }

  @Test func aRegionIsEnteredOnceAndLeftAfterExitAfterOfSilence() {
    var m = BeaconMachine()
    _ = m.handle(
      .subscribe(Self.monitor, .monitor(Self.everyone, exitAfter: BeaconSubscription.defaultExitAfter)),
      at: Self.t0)
    #expect(m.regionState(Self.monitor) == .unknown)
    #expect(m.handle(Self.seen(Self.a, rssi: -70), at: Self.at(2)) == [.region(Self.monitor, .entered)])
    // Another beacon of the same wildcard region: still the same region, no second entry.
    #expect(m.handle(Self.seen(Self.b, rssi: -70), at: Self.at(3)) == [])
    #expect(m.regionState(Self.monitor) == .inside)
    // Exit 30 s (Core Location's default) after the last matching advertisement, not before.
    #expect(m.nextDeadline == Self.at(33))
    #expect(m.handle(.tick, at: Self.at(32.9)) == [])
    #expect(m.handle(.tick, at: Self.at(33)) == [.region(Self.monitor, .exited)])
    #expect(m.handle(.tick, at: Self.at(40)) == [])
    #expect(m.nextDeadline == nil)
    #expect(m.handle(Self.seen(Self.c, rssi: nil), at: Self.at(41)) == [.region(Self.monitor, .entered)])
  }

  @Test func aWildcardRegionIsLeftOnlyWhenAllItsBeaconsAreSilent() {
    var m = BeaconMachine()
    _ = m.handle(.subscribe(Self.monitor, .monitor(Self.everyone, exitAfter: .seconds(10))), at: Self.t0)
    _ = m.handle(Self.seen(Self.a, rssi: -70), at: Self.at(1))
    // a falls silent after 1 s; c keeps sending every 8 s: never 10 s without a match.
    for t in stride(from: 8.0, through: 40, by: 8) {
      #expect(m.handle(.tick, at: Self.at(t - 0.5)) == [])
      #expect(m.handle(Self.seen(Self.c, rssi: -80), at: Self.at(t)) == [])
    }
    #expect(m.handle(.tick, at: Self.at(49.9)) == [])
    #expect(m.handle(.tick, at: Self.at(50)) == [.region(Self.monitor, .exited)])
  }

  @Test func silenceFromTheStartDeterminesOutsideWithoutAnExit() {
    var m = BeaconMachine()
    _ = m.handle(.subscribe(Self.monitor, .monitor(Self.everyone, exitAfter: .seconds(30))), at: Self.t0)
    // Beacons of another UUID do not count.
    #expect(m.handle(Self.seen(Self.x, rssi: -40), at: Self.at(1)) == [])
    #expect(m.counters.unmatched == 1)
    #expect(m.handle(.tick, at: Self.at(29)) == [])
    #expect(m.handle(.tick, at: Self.at(30)) == [.region(Self.monitor, .determinedOutside)])
    #expect(m.regionState(Self.monitor) == .outside)
  }

  @Test func aNarrowConstraintIgnoresItsNeighbours() {
    var m = BeaconMachine()
    let one = BeaconConstraint(uuid: Self.uuid, major: 1, minor: 2)!
    _ = m.handle(.subscribe(Self.monitor, .monitor(one, exitAfter: .seconds(30))), at: Self.t0)
    #expect(m.handle(Self.seen(Self.a, rssi: -60), at: Self.at(1)) == [])
    #expect(m.handle(Self.seen(Self.b, rssi: -60), at: Self.at(2)) == [.region(Self.monitor, .entered)])
  }

  @Test func rangingOrdersByProximityThenAccuracyUnknownLast() throws {
    var m = BeaconMachine()
    _ = m.handle(.subscribe(Self.ranging, .range(Self.everyone)), at: Self.t0)
    // Measured power -62 dBm at 1 m; n = 2, so distance = 10^((-62 - rssi) / 20) m:
    //   a -68 → 2.00 m near; b -50 → 0.25 m immediate; d -90 → 25.1 m far;
    //   c -80 with an implausible power → unknown; e -66 → 1.58 m near (before a).
    let e = BeaconIdentity(uuid: Self.uuid, major: 3, minor: 3)
    _ = m.handle(Self.seen(Self.a, rssi: -68), at: Self.at(0.1))
    _ = m.handle(Self.seen(Self.b, rssi: -50), at: Self.at(0.2))
    _ = m.handle(Self.seen(Self.c, rssi: -80, power: nil), at: Self.at(0.3))
    _ = m.handle(Self.seen(Self.d, rssi: -90), at: Self.at(0.4))
    _ = m.handle(Self.seen(e, rssi: -66), at: Self.at(0.5))
    _ = m.handle(Self.seen(Self.x, rssi: -30), at: Self.at(0.6))
    #expect(m.handle(.tick, at: Self.at(0.9)) == [])
    let list = try #require(Self.list(m.handle(.tick, at: Self.at(1))))
    #expect(list.map(\.identity) == [Self.b, e, Self.a, Self.d, Self.c])
    #expect(list.map(\.proximity) == [.immediate, .near, .near, .far, .unknown])
    let meters = list.map { $0.accuracy?.value }
    #expect(abs(try #require(meters[0]) - 0.2512) < 1e-4)
    #expect(abs(try #require(meters[1]) - 1.5849) < 1e-4)
    #expect(abs(try #require(meters[2]) - 1.9953) < 1e-4)
    #expect(abs(try #require(meters[3]) - 25.119) < 1e-3)
    #expect(meters[4] == nil)
    // Unknown distance, but its RSSI is known.
    #expect(list[4].rssi == DecibelMilliwatts(-80))
  }

  @Test func rssiIsTheMedianOfTheWindow() throws {
    var m = BeaconMachine()
    _ = m.handle(.subscribe(Self.ranging, .range(Self.everyone)), at: Self.t0)
    // -62, then a -90 outlier, then -61: the median is -62, 1 m, near.
    _ = m.handle(Self.seen(Self.a, rssi: -62), at: Self.at(0.1))
    _ = m.handle(Self.seen(Self.a, rssi: -90), at: Self.at(0.2))
    _ = m.handle(Self.seen(Self.a, rssi: -61), at: Self.at(0.3))
    let list = try #require(Self.list(m.handle(.tick, at: Self.at(1))))
    #expect(list.count == 1)
    #expect(list.first?.rssi == DecibelMilliwatts(-62))
    #expect(list.first?.accuracy == Meters(1))
    // Four samples: the mean of the two middle ones (-62, -61).
    _ = m.handle(Self.seen(Self.a, rssi: -50), at: Self.at(1.5))
    let four = try #require(Self.list(m.handle(.tick, at: Self.at(2))))
    #expect(four.first?.rssi == DecibelMilliwatts(-61.5))
  }

  @Test func aSilentBeaconReportsUnknownThenDropsOut() throws {
    var m = BeaconMachine()
    _ = m.handle(.subscribe(Self.ranging, .range(Self.everyone)), at: Self.t0)
    _ = m.handle(Self.seen(Self.a, rssi: -60), at: Self.at(0.5))
    #expect(try #require(Self.list(m.handle(.tick, at: Self.at(1)))).first?.proximity == .near)
    for t in 2...5 { _ = m.handle(.tick, at: Self.at(Double(t))) }
    // 5.5 s after the last sample it is out of the 5 s window: unknown, no RSSI.
    let stale = try #require(Self.list(m.handle(.tick, at: Self.at(6))))
    #expect(stale.map(\.proximity) == [.unknown])
    #expect(stale.first?.rssi == nil && stale.first?.accuracy == nil)
    #expect(stale.first?.lastHeard == Self.at(0.5))
    for t in 7...10 { #expect(Self.list(m.handle(.tick, at: Self.at(Double(t))))?.count == 1) }
    // 10.5 s after: forgotten.
    #expect(try #require(Self.list(m.handle(.tick, at: Self.at(11)))).isEmpty)
    #expect(m.trackedBeaconCount == 0)
  }

  @Test func rangingIsAboutOnceASecond() throws {
    var m = BeaconMachine()
    _ = m.handle(.subscribe(Self.ranging, .range(Self.everyone)), at: Self.t0)
    #expect(m.nextDeadline == Self.at(1))
    #expect(Self.list(m.handle(.tick, at: Self.at(1))) == [])
    #expect(m.handle(.tick, at: Self.at(1.5)) == [])
    #expect(Self.list(m.handle(.tick, at: Self.at(2))) != nil)
    // A late tick: one list, and the next a second after it, not a burst to catch up.
    #expect(m.handle(.tick, at: Self.at(4.5)).count == 1)
    #expect(m.nextDeadline == Self.at(5.5))
  }

  @Test func twoTransmittersOfOneIdentityAreTwoEntries() throws {
    // Govee thermometers all send one identity (the captures show it); each is ranged apart.
    var m = BeaconMachine()
    _ = m.handle(.subscribe(Self.ranging, .range(Self.everyone)), at: Self.t0)
    _ = m.handle(Self.seen(Self.a, rssi: -80, address: 1), at: Self.at(0.1))
    _ = m.handle(Self.seen(Self.a, rssi: -60, address: 2), at: Self.at(0.2))
    let list = try #require(Self.list(m.handle(.tick, at: Self.at(1))))
    #expect(list.map(\.address.value) == [2, 1])
  }

  @Test func aClockSetBackDoesNotFreezeTheRegion() {
    var m = BeaconMachine()
    _ = m.handle(.subscribe(Self.monitor, .monitor(Self.everyone, exitAfter: .seconds(30))), at: Self.t0)
    _ = m.handle(Self.seen(Self.a, rssi: -60), at: Self.at(3600))
    // Set back an hour: the exit comes 30 s after the step, not an hour and 30 s later.
    #expect(m.handle(.tick, at: Self.at(0)) == [])
    #expect(m.counters.clockWentBack == 1)
    #expect(m.nextDeadline == Self.at(30))
    #expect(m.handle(.tick, at: Self.at(30)) == [.region(Self.monitor, .exited)])
  }

  @Test func limitsRefuseAndEvict() throws {
    var config = BeaconMachine.Configuration()
    config.maxSubscriptions = 2
    config.maxBeacons = 2
    var m = BeaconMachine(configuration: config)
    _ = m.handle(.subscribe(Self.monitor, .monitor(Self.everyone, exitAfter: .seconds(30))), at: Self.t0)
    _ = m.handle(.subscribe(Self.ranging, .range(Self.everyone)), at: Self.t0)
    let third = BeaconSubscriptionID(3)
    #expect(
      m.handle(.subscribe(third, .range(Self.everyone)), at: Self.t0) == [
        .refused(third, .tooManySubscriptions)
      ])
    // Replacing a live one is not a new one.
    #expect(m.handle(.subscribe(Self.monitor, .range(Self.everyone)), at: Self.t0) == [])
    #expect(m.subscriptionCount == 2)
    #expect(
      m.handle(.subscribe(Self.monitor, .monitor(Self.everyone, exitAfter: .zero)), at: Self.t0) == [
        .refused(Self.monitor, .invalidExitAfter)
      ])
    #expect(m.counters.refused == 2)
    // Three beacons, room for two: the one heard longest ago goes.
    _ = m.handle(Self.seen(Self.a, rssi: -60), at: Self.at(0.1))
    _ = m.handle(Self.seen(Self.b, rssi: -60), at: Self.at(0.2))
    _ = m.handle(Self.seen(Self.a, rssi: -60), at: Self.at(0.3))
    _ = m.handle(Self.seen(Self.c, rssi: -60), at: Self.at(0.4))
    #expect(m.counters.evictedBeacons == 1)
    let list = try #require(Self.list(m.handle(.tick, at: Self.at(1))))
    #expect(Set(list.map(\.identity)) == [Self.a, Self.c])
  }

  @Test func aFloodOfNewAddressesKeepsTheTableBoundedAndTheRegularRanged() throws {
    var config = BeaconMachine.Configuration()
    config.maxBeacons = 16
    var m = BeaconMachine(configuration: config)
    _ = m.handle(.subscribe(Self.ranging, .range(Self.everyone)), at: Self.t0)
    // One regular beacon heard every 10 ms, and 200 addresses heard once each in between.
    for i in 0..<200 {
      _ = m.handle(Self.seen(Self.a, rssi: -60, address: 1), at: Self.at(Double(i) * 0.01))
      _ = m.handle(
        Self.seen(Self.a, rssi: -90, address: 1000 + UInt64(i)), at: Self.at(Double(i) * 0.01 + 0.005))
    }
    // 201 transmitters in 2 s, none silent for 10 s: what is not in the table was evicted.
    #expect(m.trackedBeaconCount <= 16)
    #expect(m.counters.evictedBeacons + m.trackedBeaconCount == 201)
    // The regular one is never among those heard longest ago.
    let list = try #require(Self.list(m.handle(.tick, at: Self.at(2))))
    #expect(list.first?.address.value == 1)
  }

  @Test func medianFilterKeepsItsBounds() {
    var f = RSSIMedianFilter(window: .seconds(5), capacity: 3)
    #expect(f.median(at: Self.t0) == nil)
    for (i, v) in [-90, -50, -60, -70].enumerated() { f.add(DecibelMilliwatts(v), at: Self.at(Double(i))) }
    // Only the last three (-50, -60, -70) are kept.
    #expect(f.median(at: Self.at(3)) == DecibelMilliwatts(-60))
    // At 6.5 s only the samples of 2 s and 3 s are less than 5 s old.
    #expect(f.median(at: Self.at(6.5)) == DecibelMilliwatts(-65))
    #expect(f.median(at: Self.at(8)) == nil)
  }
}
