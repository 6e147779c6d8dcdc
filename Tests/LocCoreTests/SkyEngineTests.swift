import LocCore
import Testing

/// The engine's sky (docs/decisions/0046-sky-view.md): the latest per source in memory,
/// answered by `sky` and summed up in `status`; a `sky` event when it changed, at most once a
/// second per source; never persisted, never logged above debug.
@Suite struct SkyEngineTests {
  static let t0 = at("2026-06-21T12:00:00Z")

  /// A sky of `used` used and `unused` unused GPS satellites, the first with signal `best`.
  static func sky(used: Int, unused: Int = 2, best: Double = 41) -> Sky {
    Sky(
      satellites: (0..<(used + unused)).map { i in
        Satellite(
          constellation: .gps, svid: i + 1, prn: i + 1, elevation: Double(10 + i), azimuth: Double(30 * i),
          signal: i == 0 ? best : 20, used: i < used)
      })
  }

  /// The `sky` notices the watcher got, with their instants.
  static func skyEvents(_ h: EngineHarness) -> [(at: Instant, sky: SourceSky)] {
    h.notices.compactMap { n in
      if case .sky(let s) = n.notice { return (n.at, s) }
      return nil
    }
  }

  @Test func eventsOnChangeAtMostOnceASecond() {
    var h = EngineHarness(at: Self.t0)
    let a = Self.sky(used: 5)
    let b = Self.sky(used: 6)
    let c = Self.sky(used: 7)
    var effects = h.handle(.skyDecoded(a, source: h.source))  // first: sent
    #expect(!effects.contains { if case .persist = $0 { return true } else { return false } })
    #expect(
      !effects.contains { if case .log(let level, _) = $0 { return level > .debug } else { return false } })
    h.advance(to: Self.t0.adding(.milliseconds(400)))
    h.handle(.skyDecoded(b, source: h.source))  // changed, but too soon: not sent
    h.advance(to: Self.t0.adding(.milliseconds(1000)))
    effects = h.handle(.skyDecoded(b, source: h.source))  // a second after the last: sent
    #expect(effects.contains { if case .push = $0 { return true } else { return false } })
    h.advance(to: Self.t0.adding(.milliseconds(2500)))
    h.handle(.skyDecoded(b, source: h.source))  // unchanged: not sent
    h.advance(to: Self.t0.adding(.milliseconds(3000)))
    h.handle(.skyDecoded(c, source: h.source))  // changed, 2 s after the last event: sent
    let events = Self.skyEvents(h)
    #expect(events.map(\.sky.sky) == [a, b, c])
    #expect(events.map(\.at) == [Self.t0, Self.t0.adding(.seconds(1)), Self.t0.adding(.seconds(3))])
    #expect(events.allSatisfy { $0.sky.source == "replay:test" })
  }

  @Test func theLatestIsAnsweredAndSummedUp() {
    var h = EngineHarness(at: Self.t0)
    if case .success(.skies(let none))? = h.request(.sky) {
      #expect(none.isEmpty)
    } else {
      Issue.record("no answer to sky")
    }
    if case .success(.status(let s))? = h.request(.status) { #expect(s.satellites == nil) }
    h.handle(.skyDecoded(Self.sky(used: 5), source: h.source))
    h.advance(to: Self.t0.adding(.milliseconds(200)))
    let latest = Self.sky(used: 9, unused: 5, best: 44)
    h.handle(.skyDecoded(latest, source: h.source))  // too soon for an event, but the latest
    guard case .success(.skies(let skies))? = h.request(.sky) else {
      Issue.record("no answer to sky")
      return
    }
    #expect(
      skies == [SourceSky(source: "replay:test", sky: latest, time: Self.t0.adding(.milliseconds(200)))])
    guard case .success(.status(let s))? = h.request(.status) else {
      Issue.record("no status")
      return
    }
    #expect(s.satellites == Sky.Summary(used: 9, inView: 14, bestSignal: 44))
  }

  @Test func aSatelliteOnTwoSignalsCountsOnce() {
    let s = Sky(satellites: [
      Satellite(constellation: .gps, svid: 5, prn: 5, signal: 40, used: true, signalID: 1),
      Satellite(constellation: .gps, svid: 5, prn: 5, signal: 33, used: true, signalID: 8),
      Satellite(constellation: .glonass, svid: 5, prn: 69),
    ])
    #expect(s.summary == Sky.Summary(used: 1, inView: 2, bestSignal: 40))
    #expect(Sky(satellites: []).summary == Sky.Summary(used: 0, inView: 0, bestSignal: nil))
  }
}
