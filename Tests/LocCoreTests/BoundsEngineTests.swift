import LocCore
import Testing

/// Issue 40, item 4, in the engine harness: a value out of bounds from each kind of source
/// (the geolocation service's answer by its kind, the static file, `set-location`, a
/// receiver's fix) is raised or refused as docs/SOURCES.md, "Bounds", says, and `status`
/// shows it with its source, field, value and bound. The service is the harness, as in
/// NetworkEngineTests: each answer is written here as the geolocate API gives it.
@Suite struct BoundsEngineTests {
  static let t0 = at("2026-06-21T10:00:00Z")
  /// The issue's answer: a place with an accuracy of 1e-300 m.
  static let tiny = Array(#"{"location": {"lat": 59.9139, "lng": 10.7522}, "accuracy": 1e-300}"#.utf8)
  static let home = WifiAccessPoint(bssid: [0, 1, 2, 3, 4, 5], ssid: Array("home".utf8), signal: -50)

  static func outOfBounds(_ h: EngineHarness) throws -> OutOfBoundsReport {
    try #require(h.engine.status(at: h.now).outOfBounds)
  }

  /// A harness whose lookup (of `networks`, or IP-only when empty) is answered with `body`.
  static func answered(_ body: [UInt8], wifi: [WifiAccessPoint], cells: [CellTower] = []) -> EngineHarness {
    var h = EngineHarness(config: NetworkEngineTests.config(), at: t0)
    if !cells.isEmpty { h.handle(.cellsSeen(cells, source: SourceID(0))) }
    h.handle(.wifiScanned(wifi, problem: wifi.isEmpty ? "no NetworkManager" : nil))
    h.handle(.geolocateAnswered(.answered(status: 200, body: body)))
    return h
  }

  @Test(arguments: [(PositionProvenance.wifi, 10.0), (.cell, 50), (.ip, 1000)])
  func aServiceAnswerOf1eMinus300IsRaisedToItsKindsFloor(origin: PositionProvenance, floor: Double) throws {
    let cell = CellTower(radio: .lte, mobileCountryCode: 242, mobileNetworkCode: 1, areaCode: 161, cellId: 10)
    var h = Self.answered(
      Self.tiny, wifi: origin == .wifi ? [Self.home] : [], cells: origin == .cell ? [cell] : [])
    let r = h.engine.resolve(at: h.now)
    #expect(r.provenance == origin && r.tier == .fix)
    #expect(r.position?.accuracy == Meters(floor), "never better than a \(origin) answer can be")
    let report = try Self.outOfBounds(h)
    #expect(report.raised == 1 && report.refused == 0)
    let entry = try #require(report.recent.first)
    #expect(entry.source == NetworkEngineTests.config().network.url && entry.provenance == origin)
    #expect(entry.value == OutOfBounds(.accuracy, 1e-300, bound: floor, .raised) && entry.count == 1)
    #expect(
      h.logLines.contains(
        "\(origin.rawValue) value from \(entry.source): accuracy 1e-300 m is below \(OutOfBounds.number(floor)) m: raised to it"
      ))
    // locate --accuracy 5m: the fresh answer is not that accurate, so it waits and then says so.
    let asked = h.request(.locate(timeout: .seconds(5), accuracy: Meters(5)))
    #expect(asked == nil, "not answered at once: 5 m is not met")
    h.advance(to: Self.t0.adding(seconds: 6))
    let answer = h.log.compactMap { e -> LocateAnswer? in
      if case .reply(_, _, .success(.located(let a))) = e.effect { return a }
      return nil
    }.last
    #expect(answer?.accuracyMet == false && answer?.position.position?.accuracy == Meters(floor))
  }

  @Test func anAnswerFromMemoryIsTheRaisedOneAndIsNotCountedAgain() throws {
    var h = Self.answered(Self.tiny, wifi: [Self.home])
    h.advance(to: Self.t0.adding(seconds: 400))  // past MaxAge= (300 s)
    _ = h.request(.refresh)
    h.handle(.wifiScanned([Self.home], problem: nil))
    #expect(try NetworkEngineTests.network(h).counts.cacheHits >= 1)
    #expect(h.engine.resolve(at: h.now).position?.accuracy == Meters(10))
    #expect(try Self.outOfBounds(h).raised == 1)
  }

  @Test func anAnswerOffTheGlobeOrWithAnAccuracyOf0IsRefusedWithItsValue() throws {
    let off = Array(#"{"location": {"lat": 123, "lng": 10.7522}, "accuracy": 40}"#.utf8)
    var h = Self.answered(off, wifi: [Self.home])
    #expect(h.engine.resolve(at: h.now).tier == .none)
    #expect(
      try NetworkEngineTests.network(h).lastProblem
        == "coordinates outside the globe (latitude 123° is above 90°: refused)")
    #expect(try Self.outOfBounds(h).recent.first?.value == OutOfBounds(.latitude, 123, bound: 90, .refused))
    let zero = Array(#"{"location": {"lat": 59.9, "lng": 10.7}, "accuracy": 0}"#.utf8)
    h = Self.answered(zero, wifi: [Self.home])
    #expect(try Self.outOfBounds(h).recent.first?.value == OutOfBounds(.accuracy, 0, bound: 0, .refused))
    #expect(try Self.outOfBounds(h).recent.first?.provenance == .wifi)
  }

  @Test func anAnswerAtOrAboveItsFloorIsTakenAsItCameAndStatusSaysNothing() throws {
    let fine = Array(#"{"location": {"lat": 59.9139, "lng": 10.7522}, "accuracy": 10}"#.utf8)
    let h = Self.answered(fine, wifi: [Self.home])
    #expect(h.engine.resolve(at: h.now).position?.accuracy == Meters(10))
    #expect(h.engine.status(at: h.now).outOfBounds == nil)
  }

  @Test func theStaticFileBeyondItsBoundsGivesNoPositionAndStatusSaysWhichValue() throws {
    var h = EngineHarness(at: Self.t0)
    h.handle(
      .staticFileRead(path: "/etc/geolocation", contents: "59.9139\n10.7522\n23\n1e-300\n", problem: nil))
    var s = h.engine.status(at: h.now)
    #expect(s.position.tier == .none)
    #expect(
      s.staticFile?.problem
        == "line 4: the accuracy 1e-300 m is below 0.01 m (no machine's place is known to less than a centimetre)"
    )
    let entry = try #require(s.outOfBounds?.recent.last)
    #expect(entry.source == "static:/etc/geolocation" && entry.provenance == .staticFile)
    #expect(entry.value == OutOfBounds(.accuracy, 1e-300, bound: 0.01, .refused))
    // The same file read again (another file in /etc changed) is not another value.
    h.handle(
      .staticFileRead(path: "/etc/geolocation", contents: "59.9139\n10.7522\n23\n1e-300\n", problem: nil))
    #expect(try Self.outOfBounds(h).refused == 1)
    h.handle(
      .staticFileRead(path: "/etc/geolocation", contents: "59.9139\n10.7522\n1e308\n15\n", problem: nil))
    s = h.engine.status(at: h.now)
    #expect(s.staticFile?.problem == "line 3: the altitude 1e+308 m is outside -11000…100000 m")
    #expect(s.outOfBounds?.recent.last?.value == OutOfBounds(.altitude, 1e308, bound: 100_000, .refused))
    #expect(s.outOfBounds?.refused == 2)
  }

  @Test func setLocationBelowACentimetreIsRefusedAndShown() throws {
    var h = EngineHarness(at: Self.t0)
    let oslo = Coordinate(lat: 59.9139, lon: 10.7522)!
    for bad in [0.0, 1e-300, 0.009] {
      let reply = h.request(.setLocation(oslo, name: nil, accuracy: Meters(bad)))
      guard case .failure(let error)? = reply else {
        Issue.record("set-location with accuracy \(bad) was not refused: \(String(describing: reply))")
        continue
      }
      #expect(error.code == .invalidParams)
      #expect(error.message.contains("must be at least 0.01 m"), "\(error.message)")
    }
    #expect(h.engine.status(at: h.now).manual == nil)
    let report = try Self.outOfBounds(h)
    #expect(report.refused == 3 && report.recent.count == 1)
    #expect(report.recent.first?.source == "manual (uid 0)" && report.recent.first?.provenance == .manual)
    #expect(report.recent.first?.value == OutOfBounds(.accuracy, 0.009, bound: 0.01, .refused))
    // A centimetre, and no accuracy at all, are statements locd takes.
    guard case .success? = h.request(.setLocation(oslo, name: nil, accuracy: Meters(0.01))) else {
      Issue.record("1 cm refused")
      return
    }
    #expect(h.engine.status(at: h.now).manual?.accuracy == Meters(0.01))
    guard case .success? = h.request(.setLocation(oslo, name: nil, accuracy: nil)) else {
      Issue.record("no accuracy refused")
      return
    }
  }

  @Test func aFixsValuesOutOfBoundsAreShownWithItsSourceAndKeptOffTheFix() throws {
    var h = EngineHarness(at: Self.t0)
    var fix = Fix(
      time: Self.t0, coordinate: Coordinate(lat: 59.9139, lon: 10.7522), mode: .threeD, quality: .rtkFixed,
      horizontalAccuracy: Meters(0.01), satellitesUsed: 12)
    fix.outOfBounds = [OutOfBounds(.accuracy, 1e-300, bound: 0.01, .raised)]
    h.handle(.fixDecoded(fix, source: SourceID(0)))
    let s = h.engine.status(at: h.now)
    #expect(s.fix?.accuracy == Meters(0.01))
    let entry = try #require(s.outOfBounds?.recent.first)
    #expect(entry.provenance == .gnss && entry.value.action == .raised && entry.source == "replay:test")
    // The fix the engine keeps (and publishes) carries no record of its own.
    let published = h.notices.compactMap { n -> Fix? in
      if case .location(_, let f) = n.notice { return f } else { return nil }
    }
    #expect(published.last?.outOfBounds.isEmpty == true && published.last?.horizontalAccuracy == Meters(0.01))
  }
}
