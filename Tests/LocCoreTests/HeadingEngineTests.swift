import Testing

@testable import LocCore

/// The compass in the engine (decision 0054), replayed without a bus: `start-heading` and
/// `stop-heading`, the filter each session asked for, the claim that follows the sessions
/// that may have heading (plain sessions with read access; apps authorized and in use), and
/// the release when the last one stops, goes away or may no longer have it.
@Suite struct HeadingEngineTests {
  static let t0 = at("2026-03-01T10:00:00Z")
  static let admin = SessionID(50)
  static let reader = SessionID(2)
  static let other = SessionID(3)
  static let app = SessionID(1)
  static let id = "org.example.Compass"

  static func started() -> EngineHarness {
    var h = EngineHarness(at: t0, watching: [.acquisition])
    h.handle(.appsLoaded(nil, problem: nil))
    h.plain(admin, uid: 0, access: .admin)
    h.plain(reader, uid: 1000, access: .read)
    h.plain(other, uid: 1001, access: .read)
    return h
  }

  /// Feeds compass readings, one a second.
  static func turn(_ h: inout EngineHarness, _ headings: [Double]) {
    for d in headings {
      h.advance(to: h.now.adding(seconds: 1))
      h.handle(.headingMeasured(d, source: h.source))
    }
  }

  /// The magnetic headings `session` was pushed.
  static func headings(_ h: EngineHarness, _ session: SessionID) -> [Double] {
    h.pushed(to: session).compactMap { if case .heading(let r) = $0 { r.magneticHeading } else { nil } }
  }

  /// The claims and releases asked of the shell, in order.
  static func claims(_ h: EngineHarness) -> [Bool] {
    h.log.compactMap { if case .compass(let c) = $0.effect { c } else { nil } }
  }

  @Test func theCompassIsClaimedWhileASessionWantsHeadingAndReleasedAfter() throws {
    var h = Self.started()
    Self.turn(&h, [10])
    #expect(Self.claims(h).isEmpty, "nobody wants heading: no claim")
    #expect(Self.headings(h, Self.reader).isEmpty)
    #expect(h.send(Self.reader, .startHeading(filter: 0)) == .success(.done))
    #expect(Self.claims(h) == [true])
    h.send(Self.other, .startHeading(filter: 0))
    #expect(Self.claims(h) == [true], "a second session keeps the one claim")
    Self.turn(&h, [20, 21])
    #expect(Self.headings(h, Self.reader) == [20, 21])
    #expect(Self.headings(h, Self.other) == [20, 21])
    let status = try #require(h.engine.status(at: h.now).heading)
    #expect(status.sessions == 2 && status.eligible == 2 && status.claimed)
    #expect(status.counters.delivered == 4 && status.counters.claims == 1)
    #expect(h.send(Self.reader, .stopHeading) == .success(.done))
    #expect(Self.claims(h) == [true], "the other still wants it")
    h.handle(.sessionClosed(Self.other))
    #expect(Self.claims(h) == [true, false], "released when the last one went away")
    #expect(h.engine.status(at: h.now).heading?.claimed == false)
    Self.turn(&h, [30])
    #expect(Self.headings(h, Self.reader) == [20, 21])
    if case .failure(let e)? = h.send(Self.reader, .stopHeading) {
      #expect(e.code == .notFound)
    } else {
      Issue.record("stop-heading without start-heading must be not-found")
    }
  }

  @Test func eachSessionsFilterHoldsBackSmallTurnsTheShortWayRound() {
    var h = Self.started()
    h.send(Self.reader, .startHeading(filter: 10))
    h.send(Self.other, .startHeading(filter: 0))
    Self.turn(&h, [355, 359, 4, 6, 20, 25, 31])
    // 355 first; 359 and 4 within 10° of it (4 is 9° away across north); 6 is 11°; 20 is
    // 14° from 6; 25 is 5°; 31 is 11° from 20.
    #expect(Self.headings(h, Self.reader) == [355, 6, 20, 31])
    #expect(Self.headings(h, Self.other) == [355, 359, 4, 6, 20, 25, 31])
    #expect(h.engine.heading.report.counters.filtered == 3)
  }

  @Test func aSessionStartingWhileClaimedGetsTheLatestHeadingAtOnce() {
    var h = Self.started()
    h.send(Self.reader, .startHeading(filter: 0))
    Self.turn(&h, [90])
    h.send(Self.other, .startHeading(filter: 5))
    #expect(Self.headings(h, Self.other) == [90])
  }

  @Test func readingsThatAreNoHeadingAreCountedAndDropped() {
    var h = Self.started()
    h.send(Self.reader, .startHeading(filter: 0))
    Self.turn(&h, [-1, .nan, 360, 45])
    #expect(Self.headings(h, Self.reader) == [45])
    #expect(h.engine.heading.report.counters.invalid == 3)
  }

  @Test func anAppGetsHeadingOnlyWhileAuthorizedAndInUse() {
    var h = Self.started()
    h.app(Self.app, Self.id)
    h.send(Self.app, .setActivity(.foreground))
    #expect(h.send(Self.app, .startHeading(filter: 0)) == .success(.done))
    Self.turn(&h, [10])
    #expect(Self.headings(h, Self.app).isEmpty, "not determined: nothing")
    #expect(Self.claims(h).isEmpty, "an app that may not have heading claims nothing")
    h.send(Self.admin, .changeApp(AppID(Self.id)!, uid: 1000, .grant(.whenInUse, .full)))
    #expect(Self.claims(h) == [true])
    Self.turn(&h, [20])
    #expect(Self.headings(h, Self.app) == [20])
    // In the background, past the grace window: no longer in use.
    h.send(Self.app, .setActivity(.background))
    h.advance(to: h.now.adding(seconds: 30))
    #expect(Self.claims(h) == [true, false])
    Self.turn(&h, [40])
    #expect(Self.headings(h, Self.app) == [20])
    // Back in the foreground: claimed again, and the next reading arrives.
    h.send(Self.app, .setActivity(.foreground))
    #expect(Self.claims(h) == [true, false, true])
    Self.turn(&h, [50])
    #expect(Self.headings(h, Self.app) == [20, 50])
    h.send(Self.admin, .changeApp(AppID(Self.id)!, uid: 1000, .deny))
    #expect(Self.claims(h) == [true, false, true, false])
    Self.turn(&h, [60])
    #expect(Self.headings(h, Self.app) == [20, 50])
  }

  @Test func aSessionWithoutReadAccessIsRefused() {
    var h = Self.started()
    let nobody = SessionID(7)
    h.plain(nobody, uid: 2000, access: .none)
    if case .failure(let e)? = h.send(nobody, .startHeading(filter: 0)) {
      #expect(e.code == .permissionDenied)
    } else {
      Issue.record("start-heading needs read access")
    }
    #expect(Self.claims(h).isEmpty)
  }
}
