import Testing

@testable import LocCore

/// Issue 28, finding 4, in the engine: one user took every region slot with apps that were
/// never authorized, and registering into a set of regions that all held the fix cost time
/// that grew with the set. Now an app without the location gets no region, one user's apps
/// together stop at MaxRegionsPerUser, and the hint does not look through thousands of
/// regions inside after every registration.
@Suite struct RegionQuotaTests {
  typealias R = RegionEngineTests

  static func regionsCounter(_ h: EngineHarness, _ name: String) -> Int? {
    h.engine.status(at: h.now).regions?.counters.first { $0.name == name }?.value
  }

  @Test func anAppWithoutTheLocationGetsNoRegion() throws {
    // Never asked: no decision at all.
    var h = R.started(nil)
    guard case .failure(let error)? = h.send(R.app, .registerRegion(R.region())) else {
      Issue.record("a region for an app never asked")
      return
    }
    #expect(error.code == .notAuthorized && error.message.contains("needed to register regions"), "\(error)")
    // Denied.
    h.send(R.admin, .changeApp(AppID(R.id)!, uid: 1000, .deny))
    guard case .failure(let denied)? = h.send(R.app, .registerRegion(R.region())) else {
      Issue.record("a region for a denied app")
      return
    }
    #expect(denied.code == .notAuthorized)
    #expect(h.engine.status(at: h.now).regions?.regions ?? 0 == 0)
    #expect(Self.regionsCounter(h, "refusedUnauthorized") == 2)
    // Allowed: the same request is taken.
    h.send(R.admin, .changeApp(AppID(R.id)!, uid: 1000, .grant(.whenInUse, .full)))
    guard case .success(.regions)? = h.send(R.app, .registerRegion(R.region())) else {
      Issue.record("not taken once allowed")
      return
    }
  }

  @Test func oneUsersAppsTogetherStopAtTheirShareAndOthersStillRegister() throws {
    var config = DaemonConfig()
    config.regions.maxRegionsPerUser = 3
    var h = R.started(.grant(.always, .full), config: config)
    // A second app of the same user, and an app of another user, both allowed.
    let second = SessionID(2)
    let other = SessionID(3)
    h.app(second, "org.example.Second")
    h.app(other, "org.example.Other", uid: 1001)
    h.send(R.admin, .changeApp(AppID("org.example.Second")!, uid: 1000, .grant(.always, .full)))
    h.send(R.admin, .changeApp(AppID("org.example.Other")!, uid: 1001, .grant(.always, .full)))
    for (session, name) in [(R.app, "a"), (R.app, "b"), (second, "c")] {
      guard case .success? = h.send(session, .registerRegion(R.region(name))) else {
        Issue.record("\(name) refused")
        return
      }
    }
    for session in [R.app, second] {
      guard case .failure(let error)? = h.send(session, .registerRegion(R.region("d"))) else {
        Issue.record("a fourth region for user 1000")
        return
      }
      #expect(error.code == .tooManyRegions && error.message.contains("MaxRegionsPerUser=3"), "\(error)")
    }
    guard case .success? = h.send(other, .registerRegion(R.region("d"))) else {
      Issue.record("another user's app was locked out")
      return
    }
    #expect(h.engine.status(at: h.now).regions?.regions == 4)
  }

  /// 5,000 regions that all hold the fix (inside after it): the hint plans the next fix at
  /// the floor without going through them, and says so.
  @Test func thousandsOfRegionsInsideDoNotMakeEachHintLookThroughThem() throws {
    var monitor = RegionMonitor()
    for n in 0..<5_000 {
      _ = monitor.handle(.register(RegionOwner(1), R.region("r\(n)", radius: 500)), at: R.t0)
    }
    _ = monitor.handle(.fix(R.centre, accuracy: 5), at: R.t0.adding(seconds: 10))
    #expect(monitor.activeCount == 5_000 && monitor.undetermined == 0)
    let hint = try #require(monitor.acquisitionHint(at: R.t0.adding(seconds: 11), policy: FixHintPolicy()))
    #expect(
      hint.because.hasPrefix("region boundary 0 m away") && hint.because.contains("or more"),
      "\(hint.because)")
    #expect(hint.due == R.t0.adding(seconds: 40), "the floor after the fix")
    // Below the bound the nearest boundary is found: 500 m - 0 m from the centre.
    var few = RegionMonitor()
    _ = few.handle(.register(RegionOwner(1), R.region("one", radius: 500)), at: R.t0)
    _ = few.handle(.fix(R.centre, accuracy: 5), at: R.t0.adding(seconds: 10))
    let one = try #require(few.acquisitionHint(at: R.t0.adding(seconds: 11), policy: FixHintPolicy()))
    #expect(one.because.contains("region \"one\""), "\(one.because)")
  }
}
