import LocCore
import Testing

@Suite struct FixAcceptanceTests {
  let a = SourceID(0)
  let b = SourceID(1)
  let home = Coordinate(lat: 59.9139, lon: 10.7522)!

  /// The clock in these tests: a little after noon, so every fix here is in the past.
  let clock = at("2026-06-01T13:00:00Z")

  func fix(
    _ c: Coordinate?, _ t: Instant, accuracy: Double? = 5, speed: Double? = nil, mode: FixMode = .threeD
  ) -> Fix {
    Fix(
      time: t, coordinate: c, mode: mode, quality: .gps, speed: speed.map { MetersPerSecond($0) },
      horizontalAccuracy: accuracy.map { Meters($0) })
  }

  @Test func invalidAndOldFixes() {
    var acc = FixAcceptance()
    let t = at("2026-06-01T12:00:00Z")
    #expect(acc.judge(fix(home, t, mode: .noFix), from: a, at: clock) == .reject(.noFix))
    #expect(acc.judge(fix(nil, t), from: a, at: clock) == .reject(.noFix))
    #expect(acc.judge(fix(home, t), from: a, at: clock) == .accept)
    #expect(acc.judge(fix(home, t), from: a, at: clock) == .reject(.old))
    // Another source's fix older than the current one.
    #expect(acc.judge(fix(home, t.adding(.seconds(-5))), from: b, at: clock) == .reject(.old))
    acc.restarted(a)
    #expect(acc.judge(fix(home, t.adding(.seconds(-60))), from: a, at: clock) == .accept)
  }

  @Test func jumpsNeedAVehicleOrConfirmation() {
    var acc = FixAcceptance()
    var t = at("2026-06-01T12:00:00Z")
    #expect(acc.judge(fix(home, t), from: a, at: clock) == .accept)
    t = t.adding(.seconds(1))
    let far = home.destination(distance: 2000, bearing: 0)
    #expect(acc.judge(fix(far, t), from: a, at: clock) == .reject(.implausibleJump))
    // An aircraft reporting 300 m/s may cover 600 m in a second... and the receiver's own
    // speed lifts the limit, up to 1,000 knots (FixPlausibility.maxSpeed, 514 m/s): 1.2 km
    // in a second at a reported 450 m/s is believed (3 × 450 m/s allows 1,350 m/s).
    let ahead = home.destination(distance: 1200, bearing: 0)
    #expect(acc.judge(fix(ahead, t.adding(.seconds(1)), speed: 450), from: a, at: clock) == .accept)
    // Three mutually consistent fixes somewhere else win (the current was the outlier).
    var acc2 = FixAcceptance()
    var u = at("2026-06-01T12:00:00Z")
    #expect(acc2.judge(fix(home, u), from: a, at: clock) == .accept)
    let there = Coordinate(lat: 52.52, lon: 13.40)!
    for i in 0..<3 {
      u = u.adding(.seconds(1))
      let verdict = acc2.judge(
        fix(there.destination(distance: Meters(Double(i) * 10), bearing: 90), u), from: a, at: clock)
      #expect(verdict == (i < 2 ? .reject(.implausibleJump) : .accept))
    }
  }

  @Test func worseFixInsideTheCircleWaitsOnlyAWhile() {
    var acc = FixAcceptance()
    let t = at("2026-06-01T12:00:00Z")
    #expect(acc.judge(fix(home, t, accuracy: 3), from: a, at: clock) == .accept)
    let near = home.destination(distance: 2, bearing: 90)
    #expect(
      acc.judge(fix(near, t.adding(.milliseconds(100)), accuracy: 10), from: a, at: clock)
        == .reject(.insideAccuracy))
    // Better or equal accuracy always passes.
    #expect(acc.judge(fix(near, t.adding(.milliseconds(200)), accuracy: 3), from: a, at: clock) == .accept)
    // An old precise fix never beats a fresh worse one: after a few seconds its circle has grown.
    #expect(acc.judge(fix(home, t.adding(.seconds(6)), accuracy: 10), from: a, at: clock) == .accept)
  }
}

@Suite struct SignificanceAndZoneTests {
  let home = Coordinate(lat: 38.88, lon: -6.90)!

  func position(_ c: Coordinate, accuracy: Double) -> Position {
    Position(
      coordinate: c, accuracy: Meters(accuracy), time: at("2026-06-01T12:00:00Z"),
      receivedAt: at("2026-06-01T12:00:00Z"), source: "t")
  }

  @Test func thresholdPlusBothRadii() {
    let policy = SignificancePolicy(threshold: 1000)
    let from = position(home, accuracy: 20)
    #expect(
      policy.evaluate(from: nil, to: from) != nil && policy.evaluate(from: nil, to: from)?.distance == nil)
    #expect(
      policy.evaluate(from: from, to: position(home.destination(distance: 1030, bearing: 0), accuracy: 20))
        == nil)
    #expect(
      policy.evaluate(from: from, to: position(home.destination(distance: 1050, bearing: 0), accuracy: 20))
        != nil)
  }

  @Test func borderRoadDoesNotFlap() {
    var h = ZoneHysteresis()
    var t = at("2026-06-01T12:00:00Z")
    #expect(h.observe("Europe/Madrid", at: home, time: t, accuracy: 5) == "Europe/Madrid")
    // Zig-zagging 30 m either side of the border: never 3 fixes and 100 m into Portugal.
    for i in 0..<600 {
      t = t.adding(.seconds(1))
      let zone = i % 3 == 2 ? "Europe/Madrid" : "Europe/Lisbon"
      #expect(
        h.observe(
          zone, at: home.destination(distance: Meters(Double(i % 3) * 15), bearing: 270), time: t, accuracy: 5
        ) == nil)
    }
    #expect(h.adopted == "Europe/Madrid")
    // Really driving in: adopted after 3 fixes and 100 m past the accuracy radius.
    var adoptedAt: Int? = nil
    for i in 1...20 {
      t = t.adding(.seconds(1))
      if h.observe(
        "Europe/Lisbon", at: home.destination(distance: Meters(Double(i) * 25), bearing: 270), time: t,
        accuracy: 5) != nil
      {
        adoptedAt = i
        break
      }
    }
    #expect(adoptedAt == 6)  // 125 m from the first fix in it, minus 5 m accuracy, >= 100 m
    #expect(h.explanation == "Europe/Lisbon from the position")
  }

  @Test func parkedJustAcrossAdoptsAfterAWhile() {
    var h = ZoneHysteresis()
    var t = at("2026-06-01T12:00:00Z")
    _ = h.observe("Europe/Madrid", at: home, time: t, accuracy: 5)
    var adopted = false
    for _ in 0..<400 where !adopted {
      t = t.adding(.seconds(1))
      adopted = h.observe("Europe/Lisbon", at: home, time: t, accuracy: 5) != nil
      if !adopted { #expect(h.explanation?.contains("Europe/Lisbon seen by") == true) }
    }
    #expect(adopted)
    #expect(t.seconds(since: at("2026-06-01T12:00:00Z")) == 301)  // SwitchAfter=5min
  }
}
