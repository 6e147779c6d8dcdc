import LocCore
import Synchronization
import Testing

/// A `status` answer keeps the distance to the nearest zone border from the answer before
/// while the place is the same (`Engine.answerStatus`): a probe is hundreds of zone lookups,
/// and a client polling `status` at one place asked for the same one each time. Every answer
/// is checked against a probe made afresh for its place, and the probes the engine made are
/// counted, so a kept distance answered for another place, or a probe made again for the same
/// place, fails.
@Suite struct StatusBorderTests {
  static let badajoz = Coordinate(lat: 38.8794, lon: -6.9707)!
  static let elvas = Coordinate(lat: 38.8808, lon: -7.1628)!
  static let oslo = Coordinate(lat: 59.9139, lon: 10.7522)!

  /// Counts the engine's probes.
  final class Probes: Sendable {
    let count = Mutex(0)
  }

  func harness(_ probes: Probes) -> EngineHarness {
    var environment = TestZones.environment()
    environment.borderDistance = { c in
      probes.count.withLock { $0 += 1 }
      return BorderProbe.distance(from: c) { TestZones.zoneAt($0) }
    }
    return EngineHarness(environment: environment, at: at("2026-12-03T10:00:00Z"))
  }

  /// The border distance of a `status` answer.
  func answered(_ h: inout EngineHarness) throws -> Meters? {
    guard case .success(.status(let report))? = h.request(.status) else {
      Issue.record("status was not answered with a report")
      throw CancellationError()
    }
    #expect(report.timeZone.origin == .position)
    return report.timeZone.borderDistance
  }

  func fresh(_ c: Coordinate) -> Meters? {
    BorderProbe.distance(from: c) { TestZones.zoneAt($0) }.flatMap { $0.value < 10_000 ? $0 : nil }
  }

  @Test func aPlacesBorderIsProbedOnceWhileStatusIsPolledThere() throws {
    let probes = Probes()
    var h = harness(probes)
    _ = h.request(.setLocation(Self.badajoz, name: "Badajoz", accuracy: nil))
    let before = probes.count.withLock { $0 }
    let first = try answered(&h)
    #expect(first != nil && first == fresh(Self.badajoz), "Badajoz is a few km from Portugal")
    #expect(probes.count.withLock { $0 } == before + 1)
    for second in 1...5 {
      h.advance(to: at("2026-12-03T10:00:00Z").adding(seconds: Double(second)))
      #expect(try answered(&h) == first)
    }
    #expect(probes.count.withLock { $0 } == before + 1, "five more answers at the same place, no probe")

    // Another place is probed afresh; so is the first place again (only the last is kept).
    _ = h.request(.setLocation(Self.elvas, name: "Elvas", accuracy: nil))
    let elvas = try answered(&h)
    #expect(elvas == fresh(Self.elvas))
    #expect(elvas != first)
    _ = h.request(.setLocation(Self.badajoz, name: "Badajoz", accuracy: nil))
    #expect(try answered(&h) == first)

    // No border within 10 km: nothing answered, and that is kept too.
    _ = h.request(.setLocation(Self.oslo, name: "Oslo", accuracy: nil))
    let counted = probes.count.withLock { $0 }
    #expect(try answered(&h) == nil)
    #expect(try answered(&h) == nil)
    #expect(probes.count.withLock { $0 } == counted + 1)
  }
}
