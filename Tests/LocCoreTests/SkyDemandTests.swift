import LocCore
import Testing

/// Who reads satellites, as the engine decides it (decision 0069): `sky` subscribers, and a
/// `sky` request for ten minutes after it; a `sky` request that comes while nobody read
/// skies waits for the first sky of each connected receiver, at most five seconds. The
/// engine says so with `Effect.skies(wanted:)` and in `status`'s `skies`.
@Suite struct SkyDemandTests {
  static let t0 = at("2026-06-21T12:00:00Z")

  /// A sky of two GPS satellites, one used.
  static let sky = Sky(satellites: [
    Satellite(constellation: .gps, svid: 5, prn: 5, elevation: 40, azimuth: 90, signal: 38, used: true),
    Satellite(constellation: .gps, svid: 9, prn: 9, elevation: 20, azimuth: 200, signal: 30),
  ])

  /// The `skies(wanted:)` effects in `effects`.
  static func wishes(_ effects: [Effect]) -> [Bool] {
    effects.compactMap { if case .skies(let wanted) = $0 { return wanted } else { return nil } }
  }

  /// The wishes the harness logged so far.
  static func wishes(_ h: EngineHarness) -> [Bool] { wishes(h.log.map(\.effect)) }

  static func status(_ h: inout EngineHarness) throws -> StatusReport {
    guard case .success(.status(let s))? = h.request(.status) else { throw Missing() }
    return s
  }

  struct Missing: Error {}

  /// The replies to request `id` of the watcher in `effects`.
  static func replies(_ effects: [Effect], _ id: RequestID) -> [Result<Response, RequestError>] {
    effects.compactMap { e in
      if case .reply(_, let rid, let result) = e, rid == id { return result }
      return nil
    }
  }

  @Test func nobodyReadingWantsNoSkies() throws {
    // The harness's watcher subscribes to locations only: nobody reads satellites.
    var h = EngineHarness(at: Self.t0, watching: [.location])
    h.fix(Coordinate(latitude: 59.9, longitude: 10.7)!, at: Self.t0.adding(.seconds(1)))
    #expect(Self.wishes(h).allSatisfy { !$0 })
    let s = try Self.status(&h)
    #expect(s.skies == SkiesReport(assembled: false, readers: [], built: 0, askedUntil: nil, waiting: 0))
  }

  @Test func aSkySubscriptionWantsSkiesUntilItEnds() throws {
    var h = EngineHarness(at: Self.t0, watching: [.location])
    #expect(Self.wishes(h.handle(.requestReceived(h.watcher, .number(2), .subscribe([.sky])))) == [true])
    #expect(try Self.status(&h).skies?.readers == [.subscribers])
    #expect(Self.wishes(h.handle(.requestReceived(h.watcher, .number(3), .unsubscribe([.sky])))) == [false])
    #expect(Self.wishes(h.handle(.requestReceived(h.watcher, .number(4), .subscribe([.sky])))) == [true])
    // The session goes: nobody reads.
    #expect(Self.wishes(h.handle(.sessionClosed(h.watcher))) == [false])
  }

  @Test func aSkyRequestWhileNobodyReadWaitsForTheReceiversSky() throws {
    var h = EngineHarness(at: Self.t0, watching: [.location])
    // The harness's source is a connected receiver with no sky: the request waits for one.
    let asked = h.handle(.requestReceived(h.watcher, .number(7), .sky))
    #expect(Self.replies(asked, .number(7)).isEmpty)
    #expect(Self.wishes(asked) == [true])
    let waiting = try Self.status(&h)
    #expect(waiting.skies?.waiting == 1 && waiting.skies?.readers == [.request])
    #expect(waiting.skies?.askedUntil == Self.t0.adding(.seconds(600)))

    h.advance(to: Self.t0.adding(.seconds(2)))
    let came = h.handle(.skyDecoded(Self.sky, source: h.source))
    let reply = Self.replies(came, .number(7))
    guard case .success(.skies(let skies))? = reply.first else {
      Issue.record("the request was not answered by the sky: \(reply)")
      return
    }
    #expect(skies.map(\.sky) == [Self.sky])
    // Asked again a minute later: skies are still assembled, so it is answered at once.
    h.advance(to: Self.t0.adding(.seconds(60)))
    #expect(Self.replies(h.handle(.requestReceived(h.watcher, .number(8), .sky)), .number(8)).count == 1)
    // Ten minutes after the last request nobody reads any more.
    h.advance(to: Self.t0.adding(.seconds(60 + 600)))
    #expect(Self.wishes(h) == [true, false])
    let after = try Self.status(&h)
    #expect(after.skies == SkiesReport(assembled: false, readers: [], built: 1, askedUntil: nil, waiting: 0))
  }

  @Test func aSkyRequestThatNoSkyAnswersIsAnsweredAfterFiveSeconds() {
    var h = EngineHarness(at: Self.t0, watching: [.location])
    _ = h.handle(.requestReceived(h.watcher, .number(7), .sky))
    h.advance(to: Self.t0.adding(.milliseconds(4900)))
    #expect(Self.replies(h.log.map(\.effect), .number(7)).isEmpty)
    h.advance(to: Self.t0.adding(.seconds(5)))
    let replies = Self.replies(h.log.map(\.effect), .number(7))
    guard case .success(.skies(let skies))? = replies.first else {
      Issue.record("not answered after the bound: \(replies)")
      return
    }
    #expect(skies.isEmpty && replies.count == 1)
  }

  @Test func aSkyRequestWhileSkiesComeIsAnsweredAtOnce() {
    // The harness's watcher subscribes to every kind, `sky` among them: skies are read.
    var h = EngineHarness(at: Self.t0)
    #expect(Self.wishes(h) == [true])
    #expect(Self.replies(h.handle(.requestReceived(h.watcher, .number(7), .sky)), .number(7)).count == 1)
  }

  @Test func aReceiverWithACurrentSkyIsNotWaitedFor() {
    // Skies came (a face read them, the shell's business): the engine wants none itself,
    // but the receiver's sky is current, so a request is answered at once.
    var h = EngineHarness(at: Self.t0, watching: [.location])
    h.handle(.skyDecoded(Self.sky, source: h.source))
    h.advance(to: Self.t0.adding(.seconds(1)))
    #expect(Self.replies(h.handle(.requestReceived(h.watcher, .number(7), .sky)), .number(7)).count == 1)
  }
}
