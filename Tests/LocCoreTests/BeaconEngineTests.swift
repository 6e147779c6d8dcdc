import LocCore
import Testing

/// The engine hosts beacon monitoring and ranging for sessions: requests, pushes to the
/// session that asked, scanning that follows need, the timer, access.
@Suite struct BeaconEngineTests {
  static let start = at("2026-03-01T10:00:00Z")
  static let uuid = BeaconUUID("494e5445-4c4c-495f-524f-434b535f4857")!
  static let all = BeaconConstraint(uuid: uuid)!
  static let identity = BeaconIdentity(uuid: uuid, major: 20597, minor: 62207)
  static let address = BluetoothAddress("a4:c1:38:d5:a3:3b")!
  let reader = SessionID(7)
  let stranger = SessionID(8)

  func harness() -> EngineHarness {
    var h = EngineHarness(at: Self.start)
    h.handle(.sessionOpened(reader, Peer(pid: 3, uid: 1000, gid: 100), .read, client: nil))
    h.handle(.sessionOpened(stranger, Peer(pid: 4, uid: 1001, gid: 101), .none, client: nil))
    return h
  }

  func reply(_ effects: [Effect]) -> Result<Response, RequestError>? {
    for case .reply(_, _, let result) in effects { return result }
    return nil
  }

  func code(_ effects: [Effect]) -> ErrorCode? {
    if case .failure(let e)? = reply(effects) { return e.code }
    return nil
  }

  func pushes(_ h: EngineHarness, to session: SessionID) -> [(at: Instant, notice: Notice)] {
    h.log.compactMap { entry in
      if case .push(let s, let n, _) = entry.effect, s.contains(session) { return (entry.at, n) }
      return nil
    }
  }

  func sighting(rssi: Int, power: Int? = -59) -> BeaconSighting {
    BeaconSighting(
      identity: Self.identity, address: Self.address, rssi: DecibelMilliwatts(rssi),
      calibratedPower: power.map { DecibelMilliwatts($0) })
  }

  @Test func rangingPushesListsToTheSessionThatAsked() throws {
    var h = harness()
    let effects = h.handle(.requestReceived(reader, .number(1), .rangeBeacons(Self.all)))
    #expect(reply(effects) == .success(.beaconRanging(Self.all)))
    #expect(effects.contains(.beaconScanning(active: true)))
    #expect(h.armed[.beacons] == Self.start.adding(seconds: 1))
    h.advance(to: Self.start.adding(seconds: 0.5))
    h.handle(.beaconHeard(sighting(rssi: -60), source: h.source))
    h.advance(to: Self.start.adding(seconds: 1.5))
    let lists = pushes(h, to: reader)
    // One list, at the first second: one sample of -60 dBm with -59 dBm at 1 m, so
    // 10^((-59 - -60) / 20) = 1.122 m, which is near (0.5...3 m).
    try #require(lists.count == 1)
    #expect(lists[0].at == Self.start.adding(seconds: 1))
    guard case .beaconsRanged(let c, let list) = lists[0].notice else {
      Issue.record("not a ranging list: \(lists[0].notice)")
      return
    }
    #expect(c == Self.all)
    try #require(list.count == 1)
    #expect(list[0].identity == Self.identity && list[0].address == Self.address)
    #expect(list[0].rssi == DecibelMilliwatts(-60))
    #expect(abs((list[0].accuracy?.value ?? -1) - 1.1220184543019633) < 1e-9)
    #expect(list[0].proximity == .near)
    #expect(pushes(h, to: h.watcher).allSatisfy { $0.notice.kind != nil }, "nobody else gets the list")
  }

  @Test func stoppingAndClosingEndScanning() {
    var h = harness()
    h.handle(.requestReceived(reader, .number(1), .rangeBeacons(Self.all)))
    let unknown = h.handle(.requestReceived(reader, .number(2), .stopMonitoringBeacons(Self.all)))
    #expect(code(unknown) == .notFound)
    let stopped = h.handle(.requestReceived(reader, .number(3), .stopRangingBeacons(Self.all)))
    #expect(reply(stopped) == .success(.done))
    #expect(stopped.contains(.beaconScanning(active: false)))
    #expect(h.armed[.beacons] == nil)
    h.handle(.requestReceived(reader, .number(4), .monitorBeacons(Self.all, exitAfter: nil)))
    let closed = h.handle(.sessionClosed(reader))
    #expect(closed.contains(.beaconScanning(active: false)))
    #expect(h.armed[.beacons] == nil)
  }

  @Test func monitoringEntersAndExitsAfterExitAfter() throws {
    var h = harness()
    let effects = h.handle(
      .requestReceived(reader, .number(1), .monitorBeacons(Self.all, exitAfter: .seconds(10))))
    #expect(reply(effects) == .success(.beaconMonitor(Self.all, state: .unknown, exitAfter: .seconds(10))))
    h.advance(to: Self.start.adding(seconds: 2))
    h.handle(.beaconHeard(sighting(rssi: -70), source: h.source))
    h.advance(to: Self.start.adding(seconds: 5))
    h.handle(.beaconHeard(sighting(rssi: -70), source: h.source))
    h.advance(to: Self.start.adding(seconds: 60))
    // Entered at the first sighting (2 s); exited ExitAfter (10 s) after the last one (5 s).
    let events = pushes(h, to: reader)
    #expect(events.map(\.at) == [Self.start.adding(seconds: 2), Self.start.adding(seconds: 15)])
    #expect(
      events.map(\.notice) == [
        .beaconRegion(Self.all, .entered, state: .inside), .beaconRegion(Self.all, .exited, state: .outside),
      ])
  }

  /// Beacon identities are location data: a session without read access gets nothing.
  @Test func beaconsNeedReadAccess() {
    var h = harness()
    for request in [Request.rangeBeacons(Self.all), .monitorBeacons(Self.all, exitAfter: nil)] {
      let effects = h.handle(.requestReceived(stranger, .number(1), request))
      #expect(code(effects) == .permissionDenied)
      #expect(!effects.contains(.beaconScanning(active: true)))
    }
  }

  @Test func aSessionHasAtMost32BeaconRequests() {
    var h = harness()
    for minor in 0..<32 {
      let c = BeaconConstraint(uuid: Self.uuid, major: 1, minor: UInt16(minor))!
      let effects = h.handle(.requestReceived(reader, .number(Int64(minor)), .rangeBeacons(c)))
      #expect(reply(effects) == .success(.beaconRanging(c)))
    }
    // The same constraint again restarts it; a new one is refused.
    let again = h.handle(
      .requestReceived(
        reader, .number(40), .rangeBeacons(BeaconConstraint(uuid: Self.uuid, major: 1, minor: 0)!)))
    #expect(reply(again).map { if case .success = $0 { true } else { false } } == true)
    let over = h.handle(.requestReceived(reader, .number(41), .monitorBeacons(Self.all, exitAfter: nil)))
    #expect(code(over) == .failed)
  }
}

/// A beacon source's state says nothing about fixes: `locate` and the status's reason
/// look only at fix sources.
@Suite struct BeaconSourceIsNoFixSourceTests {
  @Test func locateIsAnsweredAtOnceWhenOnlyBeaconSourcesRemain() throws {
    var h = EngineHarness(at: at("2026-03-01T10:00:00Z"))
    // The harness's fix source (0) finished; a beacon source (1) plays on.
    h.handle(
      .sourceUpdated(SourceSnapshot(id: h.source, uri: "replay:test", state: .finished), restarted: false))
    h.handle(
      .sourceUpdated(
        SourceSnapshot(id: SourceID(1), uri: "replay:x.btsnoop", state: .connected, givesFixes: false),
        restarted: true))
    let reply = h.request(.locate(timeout: .seconds(60), accuracy: nil))
    guard case .success(.located(let answer))? = reply else {
      Issue.record("locate not answered at once: \(String(describing: reply))")
      return
    }
    #expect(answer.note?.contains("replay:test: finished") == true, "\(answer.note ?? "")")
    #expect(answer.note?.contains("btsnoop") == false)
  }
}
