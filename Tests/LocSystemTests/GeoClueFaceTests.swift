import LocCore
import Testing

@testable import LocSystem

/// The GeoClue face's rules without a bus (issue 22): inputs go in, the actions are checked
/// against docs/GEOCLUE.md's contract, worked by hand in each test. The real clients
/// (where-am-i, gammastep, redshift, the portal) are the end-to-end suites'.
@Suite struct GeoClueFaceTests {
  static let t0 = Instant(iso8601: "2026-06-21T12:00:00Z")!
  static let user = Peer(pid: 4242, uid: 1000, gid: 1000)
  static let other = Peer(pid: 4343, uid: 1001, gid: 1001)
  static let app = AppID("org.example.Maps")!

  /// The apps model as the face sees it: decisions by key, changed by the test.
  final class Decisions {
    var table: [AppKey: AppAuthorization] = [:]
  }

  /// A face and the calls the test made of it.
  struct Rig {
    var face: GeoClueFace
    let decisions = Decisions()
    var call: GeoClueFace.CallID = 100
    var now = GeoClueFaceTests.t0

    init(_ configure: (inout GeoClueSettings) -> Void = { _ in }) {
      var settings = GeoClueSettings()
      configure(&settings)
      let decisions = self.decisions
      face = GeoClueFace(limits: GeoClueFace.Limits(settings)) { key in
        (decisions.table[key] ?? .notDetermined, decidedBy: "agent")
      }
    }

    mutating func run(_ input: GeoClueFace.Input) -> [GeoClueFace.Action] { face.handle(input, at: now) }

    mutating func nextCall() -> GeoClueFace.CallID {
      call += 1
      return call
    }

    /// CreateClient by `sender`; the client's number, or nil when refused.
    mutating func create(_ sender: String, _ peer: Peer = GeoClueFaceTests.user) -> GeoClueFace.ClientNumber?
    {
      let id = nextCall()
      for action in run(.getClient(id, sender: sender, peer: peer, admin: false, reuse: false)) {
        if case .exportClient(let number, _, id) = action { return number }
      }
      return nil
    }

    /// A client of `sender` with its DesktopId set.
    mutating func client(_ sender: String = ":1.1", _ peer: Peer = GeoClueFaceTests.user) throws
      -> GeoClueFace.ClientNumber
    {
      let made = create(sender, peer)
      let number = try #require(made)
      _ = run(
        .setProperty(nextCall(), number, sender: sender, name: "DesktopId", .string("org.example.Maps")))
      return number
    }

    /// An agent registered for `peer` at `level`.
    mutating func agent(_ name: String, _ peer: Peer = GeoClueFaceTests.user, level: UInt32) throws {
      let id = nextCall()
      let asked = run(.addAgent(id, sender: name, peer: peer, desktopID: "gnome-shell"))
      let call = try #require(
        asked.compactMap { a -> UInt64? in if case .callAgent(let c, name, .maxLevel) = a { c } else { nil } }
          .first)
      let done = run(.agentAnswered(call, .maxLevel(level)))
      #expect(done.contains { if case .reply(id, _) = $0 { true } else { false } })
    }

    /// Start of `number` by `sender`, as the adapter would feed it (the DesktopId's app).
    mutating func start(
      _ number: GeoClueFace.ClientNumber, _ sender: String = ":1.1", peer: Peer = GeoClueFaceTests.user
    )
      -> (GeoClueFace.CallID, [GeoClueFace.Action])
    {
      let id = nextCall()
      let identity = AppIdentity(
        key: AppKey(uid: peer.uid, app: GeoClueFaceTests.app), verification: .claimed, unit: nil)
      return (id, run(.start(id, number, sender: sender, identity: .success(identity))))
    }

    func key(_ peer: Peer = GeoClueFaceTests.user) -> AppKey {
      AppKey(uid: peer.uid, app: GeoClueFaceTests.app)
    }
  }

  static func failure(_ actions: [GeoClueFace.Action], _ id: GeoClueFace.CallID) -> (
    name: String, text: String
  )? {
    for case .fail(id, let name, let text) in actions { return (name, text) }
    return nil
  }

  static func replied(_ actions: [GeoClueFace.Action], _ id: GeoClueFace.CallID) -> Bool {
    actions.contains { if case .reply(id, _) = $0 { true } else { false } }
  }

  static func opened(_ actions: [GeoClueFace.Action]) -> AccuracyAuthorization? {
    for case .openSession(_, _, _, let accuracy) in actions { return accuracy }
    return nil
  }

  /// A location `metres` north of Oslo, `seconds` after t0.
  static func values(north metres: Double, after seconds: Double) throws -> GeoClueLocationValues {
    let time = t0.adding(seconds: seconds)
    // One degree of latitude is about 111.2 km; the thresholds below leave a wide margin.
    let coordinate = try #require(Coordinate(lat: 59.9139 + metres / 111_200, lon: 10.7522))
    let position = Position(
      coordinate: coordinate, accuracy: 5, altitude: nil, time: time, receivedAt: time, source: "test")
    let resolved = PositionResolver.resolve(
      fix: position, lastKnown: nil, manual: nil, freshFor: .seconds(10), now: time, sourceProblem: nil)
    return try #require(GeoClueLocationValues(resolved, fix: nil))
  }

  /// Starts `number` with the app decided when-in-use (full) and the engine's yes.
  static func active(_ rig: inout Rig, _ number: GeoClueFace.ClientNumber) {
    rig.decisions.table[rig.key()] = AppAuthorization(.whenInUse)
    let (id, actions) = rig.start(number)
    #expect(opened(actions) != nil)
    let answered = rig.run(.engineAnswered(number, .success(.done)))
    #expect(replied(answered, id))
  }

  // MARK: Start

  @Test func startWithoutADesktopIDIsDenied() throws {
    var rig = Rig()
    let made = rig.create(":1.1")
    let number = try #require(made)
    let id = rig.nextCall()
    let actions = rig.run(.start(id, number, sender: ":1.1", identity: nil))
    let refusal = try #require(Self.failure(actions, id))
    #expect(refusal.name == BusError.Name.accessDenied && refusal.text == "'DesktopId' property must be set")
    #expect(rig.face.counters.startsDenied == 1)
  }

  @Test func startOfADecidedAppIsAnsweredOnlyOnceTheEngineAgrees() throws {
    var rig = Rig()
    let number = try rig.client()
    rig.decisions.table[rig.key()] = AppAuthorization(.whenInUse)
    let (id, actions) = rig.start(number)
    // RequestedAccuracyLevel never set: city (4), reduced.
    #expect(Self.opened(actions) == .reduced)
    #expect(!Self.replied(actions, id), "Start waits for the engine's answer")
    #expect(rig.face.client(number)?.active == false)
    let answered = rig.run(.engineAnswered(number, .success(.done)))
    #expect(Self.replied(answered, id))
    #expect(rig.face.client(number)?.active == true && rig.face.inUse)
    #expect(answered.contains { if case .inUseChanged = $0 { true } else { false } })
  }

  @Test func startBeforeAnyAgentOrDecisionWaitsThenIsDenied() throws {
    var rig = Rig()
    let number = try rig.client()
    let (id, actions) = rig.start(number)
    #expect(actions.contains { if case .arm(.agentWait(number), .seconds(5)) = $0 { true } else { false } })
    #expect(Self.failure(actions, id) == nil)
    let later = rig.run(.timerFired(.agentWait(number)))
    let refusal = try #require(Self.failure(later, id))
    #expect(refusal.text.contains("no agent for UID 1000 and no decision"))
  }

  @Test func anAgentArrivingDuringTheWaitIsAskedAndItsYesRemembered() throws {
    var rig = Rig()
    let number = try rig.client()
    let (id, _) = rig.start(number)
    let addID = rig.nextCall()
    let asked = rig.run(.addAgent(addID, sender: ":1.9", peer: Self.user, desktopID: "gnome-shell"))
    let read = try #require(
      asked.compactMap { a -> UInt64? in if case .callAgent(let c, _, .maxLevel) = a { c } else { nil } }
        .first)
    let registered = rig.run(.agentAnswered(read, .maxLevel(8)))
    let authorize = try #require(
      registered.compactMap { a -> UInt64? in
        if case .callAgent(let c, ":1.9", .authorize("org.example.Maps", .city)) = a { c } else { nil }
      }.first)
    let answered = rig.run(.agentAnswered(authorize, .authorized(.exact)))
    // Yes at city: when-in-use, reduced (min of the level asked and the level allowed).
    #expect(
      answered.contains { if case .remember(_, .grant(.whenInUse, .reduced)) = $0 { true } else { false } })
    #expect(Self.opened(answered) == .reduced)
    #expect(Self.failure(answered, id) == nil)
  }

  // MARK: Agents

  @Test func anAgentThatDoesNotAnswerGetsTheStartDeniedAndItsLateAnswerKept() throws {
    var rig = Rig()
    try rig.agent(":1.9", level: 8)
    let number = try rig.client()
    let (id, actions) = rig.start(number)
    let call = try #require(
      actions.compactMap { a -> UInt64? in if case .callAgent(let c, _, _) = a { c } else { nil } }.first)
    #expect(actions.contains { if case .arm(.agentTimeout(call), .seconds(20)) = $0 { true } else { false } })
    let timedOut = rig.run(.timerFired(.agentTimeout(call)))
    let refusal = try #require(Self.failure(timedOut, id))
    #expect(refusal.text.contains("did not answer AuthorizeApp for 'org.example.Maps' within 20 s"))
    #expect(rig.face.counters.agentTimeouts == 1)
    // Still counted until the bus answers: the per-user share (4) holds one.
    #expect(rig.face.agentCalls.held(by: 1000) == 1)
    let late = rig.run(.agentAnswered(call, .authorized(.exact)))
    #expect(late.contains { if case .remember(_, .grant(.whenInUse, .reduced)) = $0 { true } else { false } })
    #expect(Self.opened(late) == nil, "the Start was answered already")
    #expect(rig.face.counters.lateAgentAnswers == 1 && rig.face.agentCalls.held(by: 1000) == 0)
  }

  @Test func aUserWhoseAgentHoldsItsShareIsAskedNothingMore() throws {
    var rig = Rig { $0.maxAgentCallsPerUser = 1 }
    try rig.agent(":1.9", level: 8)
    let first = try rig.client()
    let second = try rig.client()
    _ = rig.start(first)
    let (id, actions) = rig.start(second)
    let refusal = try #require(Self.failure(actions, id))
    #expect(refusal.text.contains("has not answered 1 calls (MaxAgentCallsPerUser)"))
    #expect(!actions.contains { if case .callAgent = $0 { true } else { false } })
    // Another user's agent is still asked.
    try rig.agent(":1.8", Self.other, level: 8)
  }

  @Test func theAgentsMaxAccuracyLevelCapsARunningClient() throws {
    var rig = Rig()
    try rig.agent(":1.9", level: 8)
    let number = try rig.client()
    _ = rig.run(
      .setProperty(rig.nextCall(), number, sender: ":1.1", name: "RequestedAccuracyLevel", .uint32(8)))
    rig.decisions.table[rig.key()] = AppAuthorization(.whenInUse)
    let (_, started) = rig.start(number)
    #expect(Self.opened(started) == .full)
    _ = rig.run(.engineAnswered(number, .success(.done)))
    _ = rig.run(.location(try Self.values(north: 0, after: 0), [number]))
    // Down to city: the updates start again reduced, and the next location is a new object at
    // once, though it is inside any threshold.
    let capped = rig.run(.agentLevelChanged(name: ":1.9", level: 4))
    #expect(capped.contains { if case .restartUpdates(number, .reduced) = $0 { true } else { false } })
    _ = rig.run(
      .setProperty(rig.nextCall(), number, sender: ":1.1", name: "DistanceThreshold", .uint32(10_000)))
    let cell = rig.run(.location(try Self.values(north: 300, after: 1), [number]))
    #expect(
      cell.contains {
        if case .publishLocation(number, _, supersedeAtOnce: true) = $0 { true } else { false }
      })
    // To 0: stopped; back to 8: started again, nobody asked.
    let off = rig.run(.agentLevelChanged(name: ":1.9", level: 0))
    #expect(off.contains { if case .closeSession(number) = $0 { true } else { false } })
    #expect(rig.face.client(number)?.active == false)
    let on = rig.run(.agentLevelChanged(name: ":1.9", level: 8))
    #expect(Self.opened(on) == .full)
    #expect(!on.contains { if case .callAgent = $0 { true } else { false } })
  }

  // MARK: Thresholds

  @Test func thresholdsDecideWhichLocationsAreSignalled() throws {
    var rig = Rig()
    let number = try rig.client()
    _ = rig.run(
      .setProperty(rig.nextCall(), number, sender: ":1.1", name: "DistanceThreshold", .uint32(1000)))
    _ = rig.run(.setProperty(rig.nextCall(), number, sender: ":1.1", name: "TimeThreshold", .uint32(60)))
    Self.active(&rig, number)
    func outcome(_ actions: [GeoClueFace.Action]) -> String {
      for action in actions {
        if case .publishLocation = action { return "new" }
        if case .refreshLocation = action { return "in place" }
      }
      return "nothing"
    }
    #expect(outcome(rig.run(.location(try Self.values(north: 0, after: 0), [number]))) == "new")
    // 500 m in 120 s: inside the distance threshold.
    #expect(outcome(rig.run(.location(try Self.values(north: 500, after: 120), [number]))) == "in place")
    // 2 km but 30 s after the last signalled: inside the time threshold.
    #expect(outcome(rig.run(.location(try Self.values(north: 2000, after: 30), [number]))) == "in place")
    // 2 km and 90 s after it: past both.
    #expect(outcome(rig.run(.location(try Self.values(north: 2000, after: 90), [number]))) == "new")
    // The same values again: nothing.
    #expect(outcome(rig.run(.location(try Self.values(north: 2000, after: 90), [number]))) == "nothing")
    #expect(rig.face.counters.locationsSignalled == 2)
  }

  /// Heading (decision 0054): the compass's while the course is unknown or the device
  /// still, updating the current Location in place; a moving device keeps its course.
  @Test func headingComesFromTheCompassWhileTheCourseIsUnknownOrTheDeviceStill() throws {
    var rig = Rig()
    let number = try rig.client()
    // Thresholds, so that what stays in place is an update of the current object (without
    // them every change is a new Location).
    _ = rig.run(
      .setProperty(rig.nextCall(), number, sender: ":1.1", name: "DistanceThreshold", .uint32(1000)))
    _ = rig.run(.setProperty(rig.nextCall(), number, sender: ":1.1", name: "TimeThreshold", .uint32(60)))
    Self.active(&rig, number)
    func shown(_ actions: [GeoClueFace.Action]) -> (how: String, heading: Double)? {
      for action in actions {
        if case .publishLocation(_, let v, _) = action { return ("new", v.heading) }
        if case .refreshLocation(_, let v) = action { return ("in place", v.heading) }
      }
      return nil
    }
    // No course (a fix without one): unknown until the compass says, then the compass's.
    let first = try Self.values(north: 0, after: 0)
    #expect(shown(rig.run(.location(first, [number])))! == ("new", GeoClueLocationValues.unknown))
    #expect(shown(rig.run(.heading(271.5, [number])))! == ("in place", 271.5))
    #expect(shown(rig.run(.heading(280, [number])))! == ("in place", 280))
    // Still (0.2 m/s, a course of 90 from noise): the compass's heading.
    var still = try Self.values(north: 0, after: 5)
    still.speed = 0.2
    still.heading = 90
    #expect(shown(rig.run(.location(still, [number])))! == ("in place", 280))
    // Moving (3 m/s on a course of 90): the course over ground.
    var moving = still
    moving.speed = 3
    #expect(shown(rig.run(.location(moving, [number])))! == ("in place", 90))
    #expect(shown(rig.run(.heading(10, [number]))) == nil, "moving: the compass changes nothing shown")
    // Another client's compass reading is not this one's.
    #expect(rig.run(.heading(45, [number + 1])).isEmpty)
  }

  // MARK: Limits and peers

  @Test func clientsAreLimitedPerUserAndAVanishedPeerFreesThem() throws {
    var rig = Rig { $0.maxClientsPerUser = 2 }
    let first = rig.create(":1.1")
    let second = rig.create(":1.2")
    #expect(first != nil && second != nil)
    let id = rig.nextCall()
    let refused = rig.run(.getClient(id, sender: ":1.3", peer: Self.user, admin: false, reuse: false))
    let refusal = try #require(Self.failure(refused, id))
    #expect(refusal.name == BusError.Name.limitsExceeded)
    #expect(refusal.text == "locd serves at most 2 GeoClue clients per user (UID 1000 has them)")
    #expect(rig.face.counters.clientsRefusedPerUser == 1)
    let others = rig.create(":1.4", Self.other)
    #expect(others != nil, "another user is not held back")
    // The first connection leaves: its client goes, and the user may have another.
    let gone = rig.run(.peerVanished(":1.1"))
    #expect(gone.contains { if case .unexportClient(1) = $0 { true } else { false } })
    let again = rig.create(":1.3")
    #expect(again != nil)
  }

  @Test func aVanishedPeersActiveClientClosesItsSession() throws {
    var rig = Rig()
    let number = try rig.client()
    Self.active(&rig, number)
    let gone = rig.run(.peerVanished(":1.1"))
    #expect(gone.contains { if case .closeSession(number) = $0 { true } else { false } })
    #expect(rig.face.client(number) == nil && !rig.face.inUse)
  }

  @Test func onlyTheOwnerMayUseAClient() throws {
    var rig = Rig()
    let number = try rig.client()
    let (id, actions) = rig.start(number, ":1.66", peer: Self.other)
    #expect(Self.failure(actions, id)?.name == BusError.Name.accessDenied)
    guard case .failure = rig.face.read("Active", of: number, from: ":1.66") else {
      Issue.record("a stranger read a property")
      return
    }
    #expect(rig.face.counters.strangersDenied == 2)
  }

  /// Decision 0067: a client asking street or exact whose app was decided reduced asks the
  /// engine for temporary full accuracy, after its updates start at full; one asking city
  /// does not, nor one whose app has full accuracy. The agent's MaxAccuracyLevel raised from
  /// city to exact asks too, with the updates started again at full.
  @Test func aLevelAboveTheAppsReducedDecisionAsksForTemporaryFullAccuracy() throws {
    func asked(_ actions: [GeoClueFace.Action]) -> [String] {
      actions.compactMap { if case .askFullAccuracy(_, let purpose) = $0 { purpose } else { nil } }
    }
    var rig = Rig()
    try rig.agent(":1.9", level: 8)
    rig.decisions.table[rig.key()] = AppAuthorization(.whenInUse, accuracy: .reduced)
    let exact = try rig.client()
    _ = rig.run(
      .setProperty(rig.nextCall(), exact, sender: ":1.1", name: "RequestedAccuracyLevel", .uint32(8)))
    let (_, started) = rig.start(exact)
    #expect(
      Self.opened(started) == .full, "the updates at the level asked; the engine's gate holds them reduced")
    #expect(asked(started) == ["'org.example.Maps' asks GeoClue for accuracy level 8 (exact)"])
    let open = try #require(started.firstIndex { if case .openSession = $0 { true } else { false } })
    let ask = try #require(started.firstIndex { if case .askFullAccuracy = $0 { true } else { false } })
    #expect(open < ask)
    #expect(rig.face.counters.fullAccuracyAsked == 1)
    _ = rig.run(.stop(rig.nextCall(), exact, sender: ":1.1"))
    // City: nothing to ask for.
    let city = try rig.client()
    _ = rig.run(
      .setProperty(rig.nextCall(), city, sender: ":1.1", name: "RequestedAccuracyLevel", .uint32(4)))
    #expect(asked(rig.start(city).1).isEmpty)
    _ = rig.run(.stop(rig.nextCall(), city, sender: ":1.1"))
    // Full accuracy decided: nothing to ask for.
    rig.decisions.table[rig.key()] = AppAuthorization(.whenInUse)
    let full = try rig.client()
    _ = rig.run(
      .setProperty(rig.nextCall(), full, sender: ":1.1", name: "RequestedAccuracyLevel", .uint32(8)))
    #expect(asked(rig.start(full).1).isEmpty)
    #expect(rig.face.counters.fullAccuracyAsked == 1)
  }

  @Test func aCapRaisedAboveTheAppsReducedDecisionAsksForTemporaryFullAccuracy() throws {
    var rig = Rig()
    try rig.agent(":1.9", level: 4)
    rig.decisions.table[rig.key()] = AppAuthorization(.whenInUse, accuracy: .reduced)
    let number = try rig.client()
    _ = rig.run(
      .setProperty(rig.nextCall(), number, sender: ":1.1", name: "RequestedAccuracyLevel", .uint32(8)))
    let (_, started) = rig.start(number)
    #expect(Self.opened(started) == .reduced)
    _ = rig.run(.engineAnswered(number, .success(.done)))
    let raised = rig.run(.agentLevelChanged(name: ":1.9", level: 8))
    let restart = try #require(
      raised.firstIndex { if case .restartUpdates(number, .full) = $0 { true } else { false } })
    let ask = try #require(
      raised.firstIndex { if case .askFullAccuracy(number, _) = $0 { true } else { false } })
    #expect(restart < ask)
  }
}
