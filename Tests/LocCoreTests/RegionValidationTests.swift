import LocCore
import Testing

/// Bad input to region monitoring: each refused with its own error, and nothing changes.
@Suite struct RegionValidationTests {
  static let oslo = Coordinate(lat: 59.91, lon: 10.75)!
  static let t0 = Instant(secondsSinceEpoch: 1_780_000_000)

  func region(_ id: String, radius: Double = 100) throws -> CircularRegion {
    try CircularRegion(id: RegionID(id), centre: Self.oslo, radius: Meters(radius))
  }

  /// The message of an `invalidRadius` error, nil for any other error.
  func radiusMessage(_ error: RegionError?) -> String? {
    if case .invalidRadius(let message)? = error { return message }
    return nil
  }

  /// The message of an `invalidCentre` error, nil for any other error.
  func centreMessage(_ error: RegionError?) -> String? {
    if case .invalidCentre(let message)? = error { return message }
    return nil
  }

  @Test(arguments: [
    (0.0, "below the minimum of 10 m"), (-5, "below the minimum of 10 m"),
    (9.99, "below the minimum of 10 m"),
    (.nan, "not NaN"), (.infinity, "must be finite"), (-.infinity, "must be finite"),
    (1e9, "above the maximum of 100 km"), (100_000.5, "above the maximum of 100 km"),
  ])
  func badRadius(radius: Double, words: String) throws {
    let error = #expect(throws: RegionError.self) { try region("r", radius: radius) }
    let message = try #require(radiusMessage(error))
    #expect(message.contains(words))
  }

  @Test func radiusBoundsAreAccepted() throws {
    #expect(try region("small", radius: 10).radius == 10)
    #expect(try region("large", radius: 100_000).radius == 100_000)
  }

  @Test(arguments: [
    (91.0, 0.0), (-90.5, 0), (.nan, 0), (0, 180.5), (0, -181), (0, .infinity), (.infinity, 0),
  ])
  func badCentre(latitude: Double, longitude: Double) throws {
    let error = #expect(throws: RegionError.self) {
      try CircularRegion(id: "r", latitude: latitude, longitude: longitude, radius: 100)
    }
    let message = try #require(centreMessage(error))
    // Errors go back to the client and may be logged: never the coordinates themselves.
    #expect(!message.contains("91") && !message.contains("180.5"))
  }

  @Test func badIDs() throws {
    #expect(throws: RegionError.invalidID("a region id must not be empty")) { try RegionID("") }
    #expect(throws: RegionError.self) { try RegionID(String(repeating: "x", count: 129)) }
    #expect(throws: RegionError.self) { try RegionID("line\nbreak") }
    #expect(try RegionID(String(repeating: "é", count: 64)).value.utf8.count == 128)
  }

  @Test func badDwell() throws {
    for dwell in [Duration.zero, .milliseconds(999), .seconds(24 * 3600 + 1)] {
      #expect(throws: RegionError.self) {
        try CircularRegion(id: RegionID("d"), centre: Self.oslo, radius: 100, dwell: dwell)
      }
    }
  }

  @Test func duplicateIDsPerOwner() throws {
    var monitor = RegionMonitor()
    let a = RegionOwner(1)
    let b = RegionOwner(2)
    let home = try region("home")
    #expect(monitor.handle(.register(a, home), at: Self.t0) == [.registered(a, home.id)])
    // The same id for the same owner: refused, even with another centre.
    let again = try CircularRegion(id: home.id, centre: Coordinate(lat: 1, lon: 1)!, radius: 50)
    #expect(monitor.handle(.register(a, again), at: Self.t0) == [.refused(a, home.id, .duplicateID(home.id))])
    // Another owner may use the id.
    #expect(monitor.handle(.register(b, home), at: Self.t0) == [.registered(b, home.id)])
    #expect(monitor.count == 2)
    #expect(monitor.regions(of: a).map(\.region) == [home])
    #expect(monitor.counters.refused == 1)
  }

  @Test func unregisterUnknownAndAgain() throws {
    var monitor = RegionMonitor()
    let a = RegionOwner(1)
    let home = try region("home")
    #expect(
      monitor.handle(.unregister(a, home.id), at: Self.t0) == [.refused(a, home.id, .notFound(home.id))])
    _ = monitor.handle(.register(a, home), at: Self.t0)
    #expect(monitor.handle(.unregister(a, home.id), at: Self.t0) == [.unregistered(a, home.id)])
    #expect(monitor.state(of: home.id, for: a) == nil)
    #expect(monitor.handle(.register(a, home), at: Self.t0) == [.registered(a, home.id)])
    #expect(monitor.state(of: home.id, for: a) == .unknown)
  }

  @Test func perOwnerLimit() throws {
    var config = RegionMonitor.Configuration()
    config.maxRegionsPerOwner = 3
    var monitor = RegionMonitor(configuration: config)
    let a = RegionOwner(1)
    for k in 0..<3 { _ = monitor.handle(.register(a, try region("r\(k)")), at: Self.t0) }
    let fourth = try region("r3")
    #expect(
      monitor.handle(.register(a, fourth), at: Self.t0) == [
        .refused(a, fourth.id, .tooManyForOwner(limit: 3))
      ])
    #expect(
      monitor.handle(.register(RegionOwner(2), fourth), at: Self.t0) == [
        .registered(RegionOwner(2), fourth.id)
      ])
    #expect(monitor.count(for: a) == 3)
    #expect(RegionError.tooManyForOwner(limit: 3).description.contains("3 regions"))
  }

  /// The defaults: 10,000 per owner, 100,000 in total; the 100,001st is refused with the
  /// total's error, and the monitor is unchanged.
  @Test func theHundredThousandAndFirstRegion() throws {
    var monitor = RegionMonitor()
    var k = 0
    for owner in 0..<10 {
      for _ in 0..<10_000 {
        let r = try CircularRegion(
          id: RegionID("r\(k)"), centre: Coordinate(lat: Double(k % 170) - 85, lon: Double(k % 359) - 179)!,
          radius: 100)
        let out = monitor.handle(.register(RegionOwner(UInt32(owner)), r), at: Self.t0)
        try #require(out == [.registered(RegionOwner(UInt32(owner)), r.id)])
        k += 1
      }
    }
    #expect(monitor.count == 100_000)
    // Owner 0 is at its own limit too: the per-owner error comes first for it.
    let extra = try region("extra")
    #expect(
      monitor.handle(.register(RegionOwner(0), extra), at: Self.t0) == [
        .refused(RegionOwner(0), extra.id, .tooManyForOwner(limit: 10_000))
      ])
    let newcomer = RegionOwner(99)
    #expect(
      monitor.handle(.register(newcomer, extra), at: Self.t0) == [
        .refused(newcomer, extra.id, .tooManyInTotal(limit: 100_000))
      ])
    #expect(monitor.count == 100_000)
    #expect(monitor.count(for: newcomer) == 0)
    // Room again after one goes.
    _ = monitor.handle(.unregister(RegionOwner(3), try RegionID("r30000")), at: Self.t0)
    #expect(monitor.handle(.register(newcomer, extra), at: Self.t0) == [.registered(newcomer, extra.id)])
  }

  @Test func badAccuracyIsIgnoredAndCounted() throws {
    var monitor = RegionMonitor()
    let a = RegionOwner(1)
    let home = try region("home")
    _ = monitor.handle(.register(a, home), at: Self.t0)
    for bad in [-1.0, .nan, .infinity] {
      #expect(monitor.handle(.fix(Self.oslo, accuracy: Meters(bad)), at: Self.t0).isEmpty)
    }
    #expect(monitor.counters.ignoredFixes == 3)
    #expect(monitor.state(of: home.id, for: a) == .unknown)
  }

  @Test func unregisterAllForgetsOneOwner() throws {
    var monitor = RegionMonitor()
    let a = RegionOwner(1)
    let b = RegionOwner(2)
    for k in 0..<5 {
      _ = monitor.handle(.register(a, try region("a\(k)")), at: Self.t0)
      _ = monitor.handle(.register(b, try region("b\(k)")), at: Self.t0)
    }
    let out = monitor.handle(.unregisterAll(a), at: Self.t0)
    #expect(out.count == 5)
    #expect(monitor.count == 5)
    #expect(monitor.count(for: a) == 0)
    #expect(monitor.regions(of: b).map(\.region.id.value) == ["b0", "b1", "b2", "b3", "b4"])
  }

  /// Ids are printed in status lines, logs and terminals: a line separator would break a
  /// line and a bidi override would show another id than the one stored (issue 28).
  @Test func idsThatWouldBreakOrDisguiseWhatIsPrintedAreRefused() throws {
    for bad in [
      "a\u{2028}b", "a\u{2029}b", "home\u{202E}krow", "\u{2066}x", "a\u{200B}b", "a\u{85}b", "a\u{9F}b",
      "\u{E000}",
    ] {
      #expect(throws: RegionError.self, "\(bad.unicodeScalars.map { String($0.value, radix: 16) })") {
        try RegionID(bad)
      }
    }
    for good in ["home", "h\u{f6}me", "\u{6771}\u{4EAC}", "caf\u{e9} \u{2615}", "a-b_c.d", "\u{1F3E0}"] {
      #expect(try RegionID(good).value == good)
    }
  }
}
