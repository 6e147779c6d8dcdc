import Testing

@testable import LocCore

#if canImport(Glibc)
  import Glibc
#endif

/// The hint as acquisition's trigger, through the engine's real acquisition machine: a
/// receiver that gives fixes only while the engine keeps it powered (`receivers(active:)`),
/// parked at home while an app monitors visits. The acquisition log must show short
/// attempts started by `regions` about once a visit cadence and the receiver asleep in
/// between, and the visit must still be seen (docs/REGIONS.md, "Visits", "Cadence").
@Suite struct RegionAcquisitionTests {
  static let t0 = at("2026-06-01T07:00:00Z")
  static let home = Coordinate(lat: 59.9139, lon: 10.7522)!
  static let app = SessionID(1)
  static let id = "org.example.Diary"

  /// A harness whose receiver follows the engine: a fix every second while powered (a few
  /// metres of seeded noise, 5 m accuracy), nothing while asleep; runs `seconds`.
  static func run(_ h: inout EngineHarness, seconds: Int) -> (powered: Int, fixes: Int) {
    var rng = SplitMix64(seed: 7)
    var powered = 0
    var fixes = 0
    for s in 1...seconds {
      let t = t0.adding(seconds: Double(s))
      h.advance(to: t)
      let on =
        h.log.reversed().lazy.compactMap { e -> Bool? in
          if case .receivers(let active) = e.effect { return active } else { return nil }
        }.first ?? false
      guard on else { continue }
      powered += 1
      let north = Double.random(in: -3...3, using: &rng) / 111_195.0
      h.fix(Coordinate(lat: home.latitude.value + north, lon: home.longitude.value)!, at: t)
      fixes += 1
    }
    return (powered, fixes)
  }

  @Test func visitsWakeTheReceiverOnceACadenceAndLetItSleepInBetween() throws {
    var h = EngineHarness(at: Self.t0, watching: [.acquisition])
    h.handle(.appsLoaded(nil, problem: nil))
    h.plain(SessionID(50), uid: 0, access: .admin)
    h.app(Self.app, Self.id)
    h.send(SessionID(50), .changeApp(AppID(Self.id)!, uid: 1000, .grant(.always, .full)))
    let started = h.send(Self.app, .monitorVisits(true))
    guard case .success(.done)? = started else { Issue.record("\(String(describing: started))"); return }
    let (powered, fixes) = Self.run(&h, seconds: 30 * 60)
    // The acquisition log: attempts, what started them, how long the receiver slept between.
    let transitions = h.log.compactMap { e -> Acquisition.Transition? in
      if case .push(_, .acquisition(let c), _) = e.effect { return c.transition } else { return nil }
    }
    let starts = transitions.filter { $0.from == .idle && $0.to == .acquiring }
    let byRegions = starts.filter { $0.reason == .triggered(.regions) }
    // 30 min at a 60 s cadence: about 30 wake-ups (the first from the start trigger).
    #expect(byRegions.count >= 25 && byRegions.count <= 31, "\(byRegions.count) attempts")
    let ends = transitions.filter { $0.to == .idle }
    var sleeps: [Double] = []
    for end in ends {
      if let next = starts.first(where: { $0.at > end.at }) { sleeps.append(next.at.seconds(since: end.at)) }
    }
    // Asleep between attempts for most of each minute, never woken sooner than the floor.
    #expect(sleeps.count >= 25)
    #expect(sleeps.allSatisfy { $0 >= 30 }, "\(sleeps)")
    #expect(Double(powered) / 1800 < 0.15, "powered \(powered) s of 1800")
    #expect(fixes == powered)
    // The visit was seen all the same: arrival 5 min after the first fix, give or take a cadence.
    let visits = h.pushed(to: Self.app).compactMap { n -> VisitEvent? in
      if case .visit(let v) = n { return v } else { return nil }
    }
    guard case .arrived(let visit)? = visits.first else { Issue.record("no arrival: \(visits)"); return }
    #expect(visit.arrival.seconds(since: Self.t0) <= 5)
    #expect(visits.count == 1)
    let report = try #require(h.engine.status(at: h.now).regions)
    #expect(report.visitApps == 1 && report.visiting)
    #expect(report.because?.contains("visits are monitored") == true, "\(String(describing: report.because))")
  }

  /// VisitDayTests' synthetic day (home, a drive, the office, a drive with a stop, home;
  /// seeded noise and multipath) through the engine, with the receiver giving fixes only
  /// while the engine powers it: the same three visits within two minutes of the truth, and
  /// the acquisition log shows the receiver asleep between the wake-ups the hint asks for.
  @Test func aSyntheticDayThroughTheEngineSleepsBetweenFixes() throws {
    let start = VisitDayTests.midnight
    var h = EngineHarness(at: start, watching: [.acquisition])
    h.handle(.appsLoaded(nil, problem: nil))
    h.plain(SessionID(50), uid: 0, access: .admin)
    h.app(Self.app, Self.id)
    h.send(SessionID(50), .changeApp(AppID(Self.id)!, uid: 1000, .grant(.always, .full)))
    h.send(Self.app, .monitorVisits(true))
    let day = VisitDayTests.Truth()
    var outdoor = GPSNoise(seed: 1, sigma: 3, tau: 60, white: 1)
    var indoor = GPSNoise(seed: 2, sigma: 10, tau: 120, white: 3)
    var bursts = SplitMix64(seed: 3)
    var on = false
    var seen = 0  // from the start: the receivers were powered for the start trigger
    var last = 0.0
    var powered = 0
    for second in 1..<86_400 {
      let t = Double(second)
      h.advance(to: start.adding(seconds: t))
      for e in h.log[seen...] { if case .receivers(let active) = e.effect { on = active } }
      seen = h.log.count
      guard on else { continue }
      powered += 1
      let (position, inside) = VisitDayTests.truth(day, t)
      var noise = inside ? indoor : outdoor
      var error = noise.step(max(t - last, 1))
      if Double.random(in: 0..<1, using: &bursts) < 0.005 {  // a reflection, 60 to 250 m off
        let size = Double.random(in: 60...250, using: &bursts)
        let angle = Double.random(in: 0..<(2 * .pi), using: &bursts)
        error = (error.0 + size * sin(angle), error.1 + size * cos(angle))
      }
      if inside { indoor = noise } else { outdoor = noise }
      last = t
      h.fix(GPSNoise.offset(position, error), at: start.adding(seconds: t), accuracy: noise.accuracy68)
      for e in h.log[seen...] { if case .receivers(let active) = e.effect { on = active } }
      seen = h.log.count
    }
    let visits = h.pushed(to: Self.app).compactMap { n -> VisitEvent? in
      if case .visit(let v) = n { return v } else { return nil }
    }
    let arrivals = visits.compactMap { if case .arrived(let v) = $0 { v } else { nil } }
    let departures = visits.compactMap { if case .departed(let v) = $0 { v } else { nil } }
    try #require(arrivals.count == 3, "\(visits)")
    try #require(departures.count == 2, "\(visits)")
    let truth: [(Double, Double?)] = [
      (0, day.leaveHome), (day.arriveOffice, day.leaveOffice), (day.arriveHome, nil),
    ]
    for (k, (arrival, departure)) in truth.enumerated() {
      #expect(abs(arrivals[k].arrival.seconds(since: start) - arrival) <= 120, "visit \(k) arrival")
      if let departure, let left = departures[k].departure {
        #expect(abs(left.seconds(since: start) - departure) <= 120, "visit \(k) departure")
      }
    }
    // The acquisition log: short attempts started by the hint, the receiver asleep between.
    let transitions = h.log.compactMap { e -> Acquisition.Transition? in
      if case .push(_, .acquisition(let c), _) = e.effect { return c.transition } else { return nil }
    }
    let starts = transitions.filter { $0.from == .idle && $0.to == .acquiring }
    let ends = transitions.filter { $0.to == .idle }
    #expect(starts.filter { $0.reason == .triggered(.regions) }.count >= 1300, "\(starts.count) attempts")
    var asleep = 0.0
    for end in ends {
      if let next = starts.first(where: { $0.at > end.at }) { asleep += next.at.seconds(since: end.at) }
    }
    #expect(asleep / 86_400 > 0.9, "asleep \(asleep) s of the day")
    #expect(Double(powered) / 86_400 < 0.1, "powered \(powered) s of the day")
  }
}
