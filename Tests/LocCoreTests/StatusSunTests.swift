import LocCore
import Testing

/// A `status` answer keeps today's sun from the answer before while the place, the zone and
/// the local date are the same (`Engine.answerStatus`). Every answer here is checked against
/// the sun computed afresh for that answer's position, zone and instant, so a kept sun that
/// should have been dropped (a move, a new local day, another zone, new zone data) fails.
@Suite struct StatusSunTests {
  static let oslo = Coordinate(lat: 59.9139, lon: 10.7522)!
  static let tromso = Coordinate(lat: 69.6492, lon: 18.9553)!
  static let badajoz = Coordinate(lat: 38.8794, lon: -6.9707)!
  static let elvas = Coordinate(lat: 38.8808, lon: -7.1628)!

  /// The `status` request's report, and the sun computed without the engine.
  func answer(_ h: inout EngineHarness) throws -> (report: StatusReport, fresh: SunReport?) {
    guard case .success(.status(let report))? = h.request(.status) else {
      Issue.record("status was not answered with a report")
      throw CancellationError()
    }
    let place = try #require(report.position.position?.coordinate)
    let rules = try #require(TestZones.rules[report.timeZone.id == "Etc/UTC" ? "UTC" : report.timeZone.id])
    return (report, SunReport(today: place, in: rules, at: h.now))
  }

  @Test func theSunAnsweredIsAlwaysTheSunOfTheAnswersPlaceZoneAndDay() throws {
    var h = EngineHarness(at: at("2026-12-03T10:00:00Z"))
    _ = h.request(.setLocation(Self.oslo, name: "Oslo", accuracy: nil))
    var suns: [SunReport] = []
    func check(_ h: inout EngineHarness, zone: String) throws {
      let (report, fresh) = try answer(&h)
      #expect(report.timeZone.id == zone)
      #expect(report.sun == fresh, "at \(h.now): \(String(describing: report.sun))")
      if let sun = report.sun { suns.append(sun) }
    }
    try check(&h, zone: "Europe/Oslo")
    h.advance(to: at("2026-12-03T10:00:30Z"))
    try check(&h, zone: "Europe/Oslo")  // the same place, zone and day: answered from the last
    #expect(suns[0] == suns[1])

    // A move within the zone, where today's sun differs (polar night in Tromsø in December).
    _ = h.request(.setLocation(Self.tromso, name: "Tromsø", accuracy: nil))
    try check(&h, zone: "Europe/Oslo")
    #expect(suns[2] != suns[1])
    #expect(suns[2].sunrise == nil && suns[2].note?.contains("polar night") == true)

    // Back in Oslo, then past local midnight (23:00 UTC is midnight in Oslo in December).
    _ = h.request(.setLocation(Self.oslo, name: "Oslo", accuracy: nil))
    try check(&h, zone: "Europe/Oslo")
    h.advance(to: at("2026-12-03T22:59:00Z"))
    try check(&h, zone: "Europe/Oslo")
    h.advance(to: at("2026-12-03T23:01:00Z"))
    try check(&h, zone: "Europe/Oslo")
    #expect(suns[5].date != suns[4].date)

    // Another zone: Badajoz (Madrid) then Elvas (Lisbon), a few kilometres apart.
    _ = h.request(.setLocation(Self.badajoz, name: "Badajoz", accuracy: nil))
    try check(&h, zone: "Europe/Madrid")
    _ = h.request(.setLocation(Self.elvas, name: "Elvas", accuracy: nil))
    try check(&h, zone: "Europe/Lisbon")
    #expect(suns[7].sunrise != suns[6].sunrise)

    // New zone data (read again) keeps answering the same; the kept sun was dropped with it.
    h.handle(.timeZoneDataChanged(TestZones.catalog))
    try check(&h, zone: "Europe/Lisbon")
    #expect(suns[8] == suns[7])
  }
}
