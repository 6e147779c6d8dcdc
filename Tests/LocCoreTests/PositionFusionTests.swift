import LocCore
import Testing

/// The resolver's fusion of every kind of position (decision 0050). Each expectation follows
/// from the rules written there: the rank (fresh GNSS ▸ static ▸ fresh Wi-Fi ▸ cached ▸
/// manual ▸ fresh IP), and a worse position inside a better one's circle keeping the better.
@Suite struct PositionFusionTests {
  static let now = Instant(microsecondsSinceEpoch: 1_790_000_000_000_000)
  static let office = Coordinate(lat: 59.9139, lon: 10.7522)!
  /// About 5.6 km north of the office (0.05° of latitude ≈ 5.57 km).
  static let elsewhere = Coordinate(lat: 59.9639, lon: 10.7522)!
  static let freshness = PositionResolver.Freshness(fix: .seconds(10), network: .seconds(600))

  static func p(
    _ c: Coordinate, _ accuracy: Double?, _ origin: PositionProvenance, secondsAgo: Double = 1
  ) -> Position {
    let t = now.adding(seconds: -secondsAgo)
    return Position(
      coordinate: c, accuracy: accuracy.map { Meters($0) }, time: t, receivedAt: t, source: origin.rawValue,
      origin: origin)
  }

  static func resolve(_ c: PositionCandidates) -> ResolvedPosition {
    PositionResolver.resolve(c, freshness: freshness, now: now, sourceProblem: nil)
  }

  @Test func aRecentGNSSFixWinsOverEverythingElse() {
    let gnss = Self.p(Self.elsewhere, 5, .gnss)
    let r = Self.resolve(
      PositionCandidates(
        fix: gnss, network: Self.p(Self.office, 30, .wifi), staticFile: Self.p(Self.office, 10, .staticFile),
        manual: Self.p(Self.office, nil, .manual)))
    #expect(r.tier == .fix && r.provenance == .gnss && r.position == gnss && r.reason == nil)
  }

  @Test func wifiFillsInWhileGNSSIsStaleOrAbsent() {
    let wifi = Self.p(Self.elsewhere, 40, .wifi, secondsAgo: 30)
    let absent = Self.resolve(PositionCandidates(network: wifi))
    #expect(absent.tier == .fix && absent.provenance == .wifi && absent.position == wifi)
    // A GNSS fix from an hour ago, elsewhere: stale, older than the Wi-Fi answer.
    let stale = Self.p(Self.office, 5, .gnss, secondsAgo: 3600)
    let r = Self.resolve(PositionCandidates(fix: stale, network: wifi))
    #expect(r.provenance == .wifi && r.reason == "no fresh fix; Wi-Fi position")
  }

  @Test func theStaticFileOutranksWifiAndTheCachedPositionButNotAFreshFix() {
    let file = Self.p(Self.office, 100, .staticFile, secondsAgo: 86_400)
    let wifi = Self.p(Self.elsewhere, 40, .wifi)
    let cached = Self.p(Self.elsewhere, 5, .gnss, secondsAgo: 600)
    let r = Self.resolve(PositionCandidates(network: wifi, staticFile: file, lastKnown: cached))
    #expect(r.tier == .manual && r.provenance == .staticFile && r.position == file)
    let fresh = Self.p(Self.elsewhere, 5, .gnss)
    #expect(Self.resolve(PositionCandidates(fix: fresh, staticFile: file)).provenance == .gnss)
  }

  /// A poor GNSS fix (±100 m, indoors) 20 m from a static position known to ±30 m has the
  /// static position inside its circle and tells nothing new: the static position stays. The
  /// same fix 5.6 km away is news: it wins.
  @Test func aWorsePositionInsideTheCurrentOnesCircleDoesNotReplaceIt() {
    let file = Self.p(Self.office, 30, .staticFile)
    // 0.00018° of latitude ≈ 20 m.
    let near = Coordinate(lat: 59.91408, lon: 10.7522)!
    let poor = Self.p(near, 100, .gnss)
    let kept = Self.resolve(PositionCandidates(fix: poor, staticFile: file))
    #expect(kept.provenance == .staticFile && kept.position == file)
    let far = Self.p(Self.elsewhere, 100, .gnss)
    #expect(Self.resolve(PositionCandidates(fix: far, staticFile: file)).provenance == .gnss)
  }

  /// GNSS leaving under Wi-Fi: the last fix (±5 m, 20 s old, so stale) lies 20 m from the
  /// Wi-Fi answer's centre, inside its circle (±40 m, 60 s old), and is newer: it stays as the
  /// cached position instead of the position jumping back to the Wi-Fi centre.
  @Test func gnssLeavingUnderWifiDoesNotJumpBack() {
    let near = Coordinate(lat: 59.91408, lon: 10.7522)!
    let lastFix = Self.p(near, 5, .gnss, secondsAgo: 20)
    let wifi = Self.p(Self.office, 40, .wifi, secondsAgo: 60)
    let r = Self.resolve(PositionCandidates(fix: lastFix, network: wifi))
    #expect(r.tier == .cached && r.position == lastFix)
    // A Wi-Fi answer that came after the fix is the later word: it answers.
    let later = Self.p(Self.office, 40, .wifi, secondsAgo: 5)
    #expect(Self.resolve(PositionCandidates(fix: lastFix, network: later)).provenance == .wifi)
  }

  /// GNSS leaving far from the Wi-Fi answer: the last fix (±5 m, 20 s old, stale) lies 5.6 km
  /// outside the circle of a Wi-Fi answer (±40 m) received 60 s ago, before it. The fix is the
  /// later measurement: the machine moved since the answer, or the answer was wrong. The fix
  /// answers as the cached position; the older answer is not served as a fresh position (it
  /// once was: a phone's run jumped back to the Wi-Fi centre when its GNSS fix aged out).
  @Test func anAnswerOlderThanTheLastFixIsNotFreshWhereverItLies() {
    let lastFix = Self.p(Self.elsewhere, 5, .gnss, secondsAgo: 20)
    for origin in [PositionProvenance.wifi, .cell, .ip] {
      let answer = Self.p(Self.office, 40, origin, secondsAgo: 60)
      let r = Self.resolve(PositionCandidates(fix: lastFix, network: answer))
      #expect(r.tier == .cached && r.position == lastFix, "\(origin)")
      #expect(r.reason == "no fresh fix; last known position", "\(origin)")
      // The same when the last fix is known only from the state file.
      let restored = Self.resolve(PositionCandidates(network: answer, lastKnown: lastFix))
      #expect(restored.tier == .cached && restored.position == lastFix, "\(origin)")
    }
    // An answer received after the fix is the later word, outside its circle or not.
    let later = Self.p(Self.office, 40, .wifi, secondsAgo: 5)
    let r = Self.resolve(PositionCandidates(fix: lastFix, network: later))
    #expect(r.tier == .fix && r.provenance == .wifi && r.position == later)
    // A last known position that came from Wi-Fi itself overtakes nothing.
    let cachedWifi = Self.p(Self.elsewhere, 40, .wifi, secondsAgo: 30)
    let older = Self.p(Self.office, 40, .wifi, secondsAgo: 60)
    #expect(Self.resolve(PositionCandidates(network: older, lastKnown: cachedWifi)).provenance == .wifi)
  }

  @Test func ipNeverBeatsTheManualLocationNorAnyOtherKind() {
    let ip = Self.p(Self.elsewhere, 5000, .ip)
    let manual = Self.p(Self.office, nil, .manual, secondsAgo: 86_400)
    #expect(Self.resolve(PositionCandidates(network: ip, manual: manual)).provenance == .manual)
    // Even a manual location far less precise, with the IP answer inside its circle.
    let rough = Self.p(Self.elsewhere, 50_000, .manual, secondsAgo: 86_400)
    #expect(Self.resolve(PositionCandidates(network: ip, manual: rough)).provenance == .manual)
    let cached = Self.p(Self.office, 5, .gnss, secondsAgo: 86_400)
    #expect(Self.resolve(PositionCandidates(network: ip, lastKnown: cached)).provenance == .cached)
    // With nothing else it answers, at its city level.
    let alone = Self.resolve(PositionCandidates(network: ip))
    #expect(alone.tier == .fix && alone.provenance == .ip && alone.reason == "no fresh fix; IP position")
  }

  /// A stale IP answer is never the cached position: it would outrank the manual location.
  @Test func aStaleIPAnswerIsNotKeptAsTheCachedPosition() {
    let ip = Self.p(Self.elsewhere, 5000, .ip, secondsAgo: 3600)
    let manual = Self.p(Self.office, nil, .manual, secondsAgo: 86_400)
    #expect(Self.resolve(PositionCandidates(network: ip, manual: manual)).provenance == .manual)
    #expect(Self.resolve(PositionCandidates(network: ip)).tier == .none)
  }

  /// The same candidates at the same instant give the same answer, whatever came before: a
  /// switch of source follows its candidates only.
  @Test func theAnswerDependsOnlyOnTheCandidates() {
    let wifi = Self.p(Self.office, 40, .wifi)
    let file = Self.p(Self.elsewhere, 10, .staticFile)
    let c = PositionCandidates(network: wifi, staticFile: file)
    #expect(Self.resolve(c) == Self.resolve(c))
    #expect(Self.resolve(c).provenance == .staticFile)
  }
}
