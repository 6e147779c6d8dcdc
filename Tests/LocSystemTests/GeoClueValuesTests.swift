import Glibc
import LocCore
import Testing

@testable import LocSystem

/// The pure parts of the GeoClue face: accuracy levels, a Location object's values and
/// the thresholds, each checked against GeoClue 2.6's rules as its sources state them.
@Suite struct GeoClueValuesTests {
  /// GeoClue's levels are the GClueAccuracyLevel values: 0, 1, 4, 5, 6, 8.
  @Test func theLevelsAreGeoCluesNumbers() {
    #expect(GeoClueAccuracyLevel.allCases.map(\.rawValue) == [0, 1, 4, 5, 6, 8])
    #expect(GeoClueAccuracyLevel.clientDefault == .city)
  }

  /// ensure_valid_accuracy_level in gclue-service-client.c: CLAMP(level, COUNTRY, max), then
  /// down to the nearest defined value.
  @Test(arguments: [
    (UInt32(0), GeoClueAccuracyLevel.exact, GeoClueAccuracyLevel.country),  // below country: country
    (2, .exact, .country), (3, .exact, .country),  // undefined 2 and 3 round down to country
    (4, .exact, .city), (5, .exact, .neighborhood), (6, .exact, .street),
    (7, .exact, .street),  // undefined 7: street
    (8, .exact, .exact), (1000, .exact, .exact),  // above exact: exact
    (8, .city, .city), (6, .neighborhood, .neighborhood),  // capped by the maximum
    (8, .none, .none),  // an agent's 0 gives nothing
  ])
  func startClampsLikeGeoClue(raw: UInt32, maximum: GeoClueAccuracyLevel, expected: GeoClueAccuracyLevel) {
    #expect(GeoClueAccuracyLevel.clamped(raw, to: maximum) == expected)
  }

  /// The issue's mapping: country, city and neighbourhood are reduced; street and exact full.
  @Test func reducedIsBelowStreet() {
    #expect(GeoClueAccuracyLevel.allCases.filter(\.isReduced) == [.none, .country, .city, .neighborhood])
    #expect(!GeoClueAccuracyLevel.street.isReduced && !GeoClueAccuracyLevel.exact.isReduced)
  }

  static let oslo = Coordinate(lat: 59.9139, lon: 10.7522)!
  static let t0 = Instant(iso8601: "2026-06-21T12:00:00Z")!

  static func resolved(fix: Position?, manual: Position? = nil, at now: Instant) -> ResolvedPosition {
    PositionResolver.resolve(
      fix: fix, lastKnown: nil, manual: manual, freshFor: .seconds(10), now: now, sourceProblem: nil)
  }

  @Test func aFreshFixGivesEveryValueItHas() throws {
    let time = Self.t0.adding(seconds: 0.25)
    let fix = Fix(
      time: time, coordinate: Self.oslo, mode: .threeD, altitudeMSL: 23.5, speed: 12.5, course: 270,
      horizontalAccuracy: 4)
    let position = Position(
      coordinate: Self.oslo, accuracy: 4, altitude: 23.5, time: time, receivedAt: time, source: "test")
    let values = try #require(GeoClueLocationValues(Self.resolved(fix: position, at: time), fix: fix))
    #expect(values.coordinate == Self.oslo)
    #expect(values.accuracy == 4 && values.altitude == 23.5 && values.speed == 12.5 && values.heading == 270)
    // No name: what the position came from (decision 0050), here a GNSS fix.
    #expect(values.description == "gnss")
    // Timestamp (tt): 1782043200 s is 2026-06-21T12:00:00Z; the quarter second is 250000 µs.
    #expect(values.timestamp.seconds == 1_782_043_200 && values.timestamp.microseconds == 250_000)
  }

  /// gclue-location.h: unknown altitude is -G_MAXDOUBLE, unknown accuracy, speed and heading -1.
  @Test func whatIsNotKnownTakesGeoCluesUnknownValues() throws {
    let manual = Position(
      coordinate: Self.oslo, accuracy: nil, time: Self.t0, receivedAt: Self.t0, source: "manual", name: "Home"
    )
    let values = try #require(
      GeoClueLocationValues(Self.resolved(fix: nil, manual: manual, at: Self.t0), fix: nil))
    #expect(values.accuracy == -1 && values.speed == -1 && values.heading == -1)
    #expect(values.altitude == -Double.greatestFiniteMagnitude)
    #expect(values.description == "Home")
  }

  /// Speed and heading belong to one fix: a cached position does not borrow the latest fix's.
  @Test func aCachedPositionHasNoSpeedOrHeading() throws {
    let fix = Fix(time: Self.t0, coordinate: Self.oslo, mode: .threeD, speed: 3, course: 90)
    let position = Position(
      coordinate: Self.oslo, accuracy: 5, time: Self.t0, receivedAt: Self.t0, source: "test")
    let later = Self.t0.adding(seconds: 60)  // past FreshFor: the cached tier
    let values = try #require(GeoClueLocationValues(Self.resolved(fix: position, at: later), fix: fix))
    #expect(values.speed == -1 && values.heading == -1)
  }

  @Test func degradedModeGivesNoLocation() {
    #expect(GeoClueLocationValues(Self.resolved(fix: nil, at: Self.t0), fix: nil) == nil)
  }

  static func values(lat: Double, lon: Double, at seconds: Double) -> GeoClueLocationValues {
    let time = t0.adding(seconds: seconds)
    let position = Position(
      coordinate: Coordinate(lat: lat, lon: lon)!, accuracy: 5, time: time, receivedAt: time, source: "test")
    return GeoClueLocationValues(resolved(fix: position, at: time), fix: nil)!
  }

  /// below_threshold in gclue-service-client.c: distance or time under the threshold (to the
  /// location last signalled) keeps quiet; 0 turns a threshold off.
  @Test func thresholdsMeasureFromTheLastSignalledLocation() {
    let first = Self.values(lat: 59.9139, lon: 10.7522, at: 0)
    // 0.001° of latitude is 111.2 m on the mean sphere (2πR/360 000 with R = 6 371 008.8 m).
    let near = Self.values(lat: 59.9149, lon: 10.7522, at: 30)
    let far = Self.values(lat: 59.9159, lon: 10.7522, at: 60)  // 222 m from the first
    #expect(GeoClueThresholds().signals(first, after: nil))
    #expect(GeoClueThresholds().signals(near, after: first))
    #expect(!GeoClueThresholds().signals(first, after: first), "the same values twice: nothing new")
    let distance = GeoClueThresholds(distance: 150)
    #expect(!distance.signals(near, after: first))
    #expect(distance.signals(far, after: first))
    let time = GeoClueThresholds(time: 45)
    #expect(!time.signals(near, after: first))  // 30 s < 45 s
    #expect(time.signals(far, after: first))  // 60 s
    // Either threshold keeps quiet on its own (GeoClue ORs them).
    #expect(!GeoClueThresholds(distance: 150, time: 10).signals(near, after: first))
    #expect(!GeoClueThresholds(distance: 50, time: 45).signals(near, after: first))
  }
}

/// A DesktopId as an app id, weighed against a cgroup file laid out like /proc/PID/cgroup.
@Suite struct GeoClueIdentityTests {
  /// A fake /proc with process 42 in `cgroup`.
  func procRoot(_ cgroup: String) throws -> String {
    var template = Array("/tmp/locd-geoclue-id-XXXXXX".utf8CString)
    let dir = try #require(
      template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
    try #require(mkdir(dir + "/42", 0o755) == 0)
    let fd = open(dir + "/42/cgroup", O_WRONLY | O_CREAT, 0o644)
    _ = "0::\(cgroup)\n".withCString { write(fd, $0, strlen($0)) }
    close(fd)
    return dir
  }

  let peer = Peer(pid: 42, uid: 1000, gid: 1000)
  let flatpak =
    "/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.example.Maps-12.scope"

  @Test func aFlatpakScopeVerifiesTheDesktopIdOrRefusesIt() throws {
    let root = try procRoot(flatpak)
    let honest = Daemon.geoClueIdentity(peer, desktopID: "org.example.Maps.desktop", procRoot: root)
    let identity = try honest.get()
    #expect(identity.key == AppKey(uid: 1000, app: AppID("org.example.Maps")!))
    #expect(identity.verification == .flatpak)
    guard
      case .failure(let refusal) = Daemon.geoClueIdentity(
        peer, desktopID: "org.gnome.Weather", procRoot: root)
    else {
      Issue.record("a DesktopId the scope contradicts was accepted")
      return
    }
    #expect(refusal.code == .identityMismatch)
    #expect(refusal.message.contains("org.example.Maps") && refusal.message.contains("org.gnome.Weather"))
  }

  @Test func elsewhereTheDesktopIdIsClaimedAndMustBeAnAppID() throws {
    let root = try procRoot("/user.slice/user-1000.slice/session-2.scope")
    let claimed = try Daemon.geoClueIdentity(peer, desktopID: "gammastep", procRoot: root).get()
    #expect(claimed.key.app.rawValue == "gammastep" && claimed.verification == .claimed)
    guard case .failure(let bad) = Daemon.geoClueIdentity(peer, desktopID: "two words", procRoot: root) else {
      Issue.record("'two words' was taken as an app id")
      return
    }
    #expect(bad.code == .invalidParams)
  }
}
