import LocCore
import Testing

/// The static file in the engine harness: the shell hands the engine the file's text each
/// time it changes (`staticFileRead`); the engine publishes the new position with provenance
/// `static`, re-plans the zone and the sun for it, and forgets it when the file goes. The
/// place is Oslo (TestZones' Norway box), so the zone follows it.
@Suite struct StaticFileEngineTests {
  static let t0 = at("2026-06-21T10:00:00Z")
  static let path = "/etc/geolocation"
  static let office = "59.9139\n10.7522\n23\n15\n"
  /// 0.05° north of the office, about 5.6 km.
  static let moved = "# moved\n59.9639\n10.7522\n23\n15\n"

  static func locations(_ h: EngineHarness) -> [ResolvedPosition] {
    h.notices.compactMap { if case .location(let r, _) = $0.notice { return r } else { return nil } }
  }

  @Test func theFileSetsMovesAndThenClearsThePosition() throws {
    var h = EngineHarness(at: Self.t0)
    #expect(h.engine.resolve(at: h.now).tier == .none)
    h.handle(.staticFileRead(path: Self.path, contents: Self.office, problem: nil))
    let first = try #require(Self.locations(h).last)
    #expect(first.provenance == .staticFile && first.tier == .manual)
    #expect(first.position?.coordinate == Coordinate(lat: 59.9139, lon: 10.7522))
    #expect(first.position?.accuracy == Meters(15) && first.position?.source == "static:/etc/geolocation")
    #expect(h.engine.status(at: h.now).timeZone.id == "Europe/Oslo")
    #expect(h.logLines.contains("static location set from /etc/geolocation"))

    // The same text again (another file in /etc changed): nothing is news.
    let before = h.notices.count
    h.advance(to: Self.t0.adding(seconds: 60))
    h.handle(.staticFileRead(path: Self.path, contents: Self.office, problem: nil))
    #expect(h.notices.count == before)

    h.handle(.staticFileRead(path: Self.path, contents: Self.moved, problem: nil))
    #expect(Self.locations(h).last?.position?.coordinate == Coordinate(lat: 59.9639, lon: 10.7522))
    #expect(h.logLines.contains("static location changed in /etc/geolocation"))
    let regenerated = h.notices.contains {
      if case .solarRegenerated(let s) = $0.notice {
        return s.reason == .staticLocation
      } else {
        return false
      }
    }
    #expect(regenerated)

    h.handle(.staticFileRead(path: Self.path, contents: nil, problem: nil))
    let cleared = try #require(Self.locations(h).last)
    #expect(cleared.tier == .none && cleared.provenance == nil)
    #expect(h.logLines.contains("static location cleared (/etc/geolocation is gone)"))
    // No coordinate in any line at the default level (info).
    #expect(!h.logLines.contains { $0.contains("59.9") || $0.contains("10.75") })
  }

  /// The default file (/etc/geolocation) absent, as on most machines, is no news in status;
  /// while it exists it is shown, and when it goes it is not any more.
  @Test func statusShowsTheDefaultFileOnlyWhileItExists() throws {
    var h = EngineHarness(at: Self.t0)
    h.handle(.staticFileRead(path: Self.path, contents: nil, problem: nil))
    #expect(h.engine.status(at: h.now).staticFile == nil)
    h.handle(.staticFileRead(path: Self.path, contents: Self.office, problem: nil))
    let present = try #require(h.engine.status(at: h.now).staticFile)
    #expect(present.path == Self.path && present.position != nil)
    h.handle(.staticFileRead(path: Self.path, contents: "59.9139\n", problem: nil))
    #expect(h.engine.status(at: h.now).staticFile?.problem != nil, "unusable is shown")
    h.handle(.staticFileRead(path: Self.path, contents: nil, problem: nil))
    #expect(h.engine.status(at: h.now).staticFile == nil)
  }

  @Test func anUnusableFileGivesNoPositionAndSaysWhyInStatus() throws {
    var h = EngineHarness(at: Self.t0)
    h.handle(.staticFileRead(path: Self.path, contents: Self.office, problem: nil))
    h.handle(.staticFileRead(path: Self.path, contents: "59.9139\n10.7522\n23\n", problem: nil))
    #expect(h.engine.resolve(at: h.now).tier == .none)
    let file = try #require(h.engine.status(at: h.now).staticFile)
    #expect(
      file.position == nil
        && file.problem == "the accuracy is missing (four lines: latitude, longitude, altitude, accuracy)")
    #expect(
      h.logLines.contains {
        $0.hasPrefix("static location file /etc/geolocation ignored: the accuracy is missing")
      })
    #expect(h.logLines.contains("static location cleared (/etc/geolocation is unusable)"))
  }

  /// GNSS arriving and leaving over the static position: a fresh fix 5.6 km away wins (the
  /// machine did move), and when fixes stop for FreshFor (10 s) the static file answers again.
  @Test func aFreshFixWinsAndTheStaticFileAnswersWhenItGoesStale() throws {
    var h = EngineHarness(at: Self.t0)
    h.handle(.staticFileRead(path: Self.path, contents: Self.office, problem: nil))
    let far = Coordinate(lat: 59.9639, lon: 10.7522)!
    h.fix(far, at: Self.t0.adding(seconds: 1))
    #expect(h.engine.resolve(at: h.now).provenance == .gnss)
    h.advance(to: Self.t0.adding(seconds: 30))
    let after = h.engine.resolve(at: h.now)
    #expect(after.provenance == .staticFile && after.reason?.hasSuffix("; static location") == true)
    #expect(Self.locations(h).last?.provenance == .staticFile)
  }

  /// A poor fix (±100 m) 20 m from the static position (±15 m) does not move it.
  @Test func aPoorFixNearTheStaticPositionDoesNotReplaceIt() {
    var h = EngineHarness(at: Self.t0)
    h.handle(.staticFileRead(path: Self.path, contents: Self.office, problem: nil))
    h.fix(Coordinate(lat: 59.91408, lon: 10.7522)!, at: Self.t0.adding(seconds: 1), accuracy: 100)
    #expect(h.engine.resolve(at: h.now).provenance == .staticFile)
  }
}
