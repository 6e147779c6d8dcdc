import Testing

@testable import LocCore

/// Reduced accuracy's grid, apps.json, and policy files.
@Suite struct AppStorageTests {
  /// Cells are about 5 km on a side everywhere: the distance between the centres of
  /// neighbouring cells, north-south and east-west, at several latitudes.
  @Test(arguments: [0.0, 30.0, 59.9, 70.0, -45.0])
  func cellsAreAboutFiveKilometresSquare(_ lat: Double) throws {
    let c = try #require(Coordinate(lat: lat, lon: 10))
    let here = ReducedGrid.cell(of: c)
    // 6 km is more than one cell (at least 5 km) and less than two: the point lands in the
    // next cell, or the one after when it started within the last kilometre of its own.
    let east = ReducedGrid.cell(of: c.destination(distance: 6000, bearing: 90))
    let north = ReducedGrid.cell(of: c.destination(distance: 6000, bearing: 0))
    #expect(east != here && north != here)
    let width = ReducedGrid.centre(here).distance(to: ReducedGrid.centre(east)).value
    // Rows have their own column counts, so the cell to the north is offset east or west:
    // its height is the difference of the centres' latitudes (1° = 111,195 m on the mean
    // sphere), one or two rows.
    let dLat = ReducedGrid.centre(north).latitude.value - ReducedGrid.centre(here).latitude.value
    let height = dLat * 6_371_008.8 * Double.pi / 180
    #expect(abs(height - 5000) < 1 || abs(height - 10000) < 1, "\(height)")
    #expect((4900...5200).contains(width) || (9800...10400).contains(width), "\(width)")
    // The radius is the half diagonal of a 5 km square, 3,536 m (a little more where a row
    // is rounded to whole cells).
    #expect((3536...3700).contains(ReducedGrid.radius(here).value))
  }

  /// The snapped position stays the same while the device moves inside its cell and for
  /// up to 1 km beyond it; it changes once the device is well inside another cell.
  @Test func snappedPositionIsStableWithinACellAndItsMargin() throws {
    var grid = ReducedGrid()
    let start = ReducedGrid.centre(ReducedGrid.cell(of: Coordinate(lat: 59.9139, lon: 10.7522)!))
    _ = grid.observe(start)
    let p = { (c: Coordinate) in
      Position(
        coordinate: c, accuracy: 5, time: AppsDeliveryTests.t0, receivedAt: AppsDeliveryTests.t0, source: "t")
    }
    let first = grid.snapped(p(start))
    // 2.5 km north is the edge; 3.3 km is 0.8 km past it, inside the margin.
    for km in [0.5, 1.5, 2.4, 2.6, 3.3, 2.4, 3.3] {
      let moved = grid.observe(start.destination(distance: Meters(km * 1000), bearing: 0))
      #expect(!moved, "\(km) km")
      #expect(grid.snapped(p(start)).coordinate == first.coordinate)
    }
    let crossed = grid.observe(start.destination(distance: 3800, bearing: 0))
    #expect(crossed)
    let next = grid.snapped(p(start))
    #expect(next.coordinate != first.coordinate)
    // One row north (the rows' columns differ, so compare latitudes: 5 km is 0.04497°).
    #expect(abs(next.coordinate.latitude.value - first.coordinate.latitude.value - 0.044966) < 0.00001)
    // Coming back, the new cell holds until 1 km past its southern edge.
    let held = grid.observe(start.destination(distance: 1800, bearing: 0))
    #expect(!held)
    let back = grid.observe(start.destination(distance: 1000, bearing: 0))
    #expect(back)
    // What an app with reduced accuracy gets: the centre, the cell's radius, no altitude.
    #expect(first.accuracy == ReducedGrid.radius(ReducedGrid.cell(of: start)))
    #expect(first.altitude == nil && first.name == nil)
  }

  /// Near the antimeridian and the poles the grid still holds every coordinate.
  @Test func gridCoversTheEarth() throws {
    for (lat, lon) in [(0.0, 180.0), (0.0, -180.0), (89.99, 0.0), (-90.0, 0.0), (90.0, 179.9)] {
      let c = try #require(Coordinate(lat: lat, lon: lon))
      let cell = ReducedGrid.cell(of: c)
      #expect(ReducedGrid.centre(cell).distance(to: c).value <= ReducedGrid.radius(cell).value + 1)
    }
  }

  /// Updates capped at reduced (a GeoClue client asking for a city) get the cell even when
  /// the app may have full accuracy; another session of the same app still gets the fix.
  @Test func updatesCappedAtReducedGetTheCellWhateverTheDecision() throws {
    var h = AppsDeliveryTests.started()
    h.send(
      AppsDeliveryTests.admin, .changeApp(AppID(AppsDeliveryTests.id)!, uid: 1000, .grant(.whenInUse, .full)))
    let full = SessionID(2)
    h.app(full, AppsDeliveryTests.id)
    for (id, accuracy) in [(AppsDeliveryTests.app, AccuracyAuthorization.reduced), (full, .full)] {
      h.send(id, .setActivity(.foreground))
      h.send(id, .startUpdates(AppSession.Updates(accuracy: accuracy)))
    }
    let oslo = AppsDeliveryTests.oslo
    h.fix(oslo, at: h.now.adding(seconds: 1))
    let capped = try #require(h.locations(AppsDeliveryTests.app).last?.position)
    #expect(capped.coordinate == ReducedGrid.centre(ReducedGrid.cell(of: oslo)))
    #expect(h.locations(full).last?.position?.coordinate == oslo)
  }

  /// Another face's agent deciding (GeoClue's AuthorizeApp) is kept like `locctl apps`,
  /// by "agent", and stored.
  @Test func anAgentsDecisionFromAnotherFaceIsKept() throws {
    var h = AppsDeliveryTests.started()
    h.handle(.appDecided(AppsDeliveryTests.key, .grant(.whenInUse, .reduced)))
    let (a, by) = h.engine.appAuthorization(AppsDeliveryTests.key)
    #expect(a.status == .whenInUse && a.accuracy == .reduced)
    #expect(by == "agent")
    h.handle(.stopping)
    let record = try #require(h.lastStore?.records.first { $0.key == AppsDeliveryTests.key })
    #expect(record.decidedBy == .agent && record.status == .whenInUse)
  }

  /// Reduced apps get the snapped position through the engine: the same while the device
  /// stays in its cell, never the fix.
  @Test func reducedAppGetsTheCellNotTheFix() throws {
    var h = AppsDeliveryTests.started()
    h.send(
      AppsDeliveryTests.admin,
      .changeApp(AppID(AppsDeliveryTests.id)!, uid: 1000, .grant(.whenInUse, .reduced)))
    h.send(AppsDeliveryTests.app, .setActivity(.foreground))
    h.send(AppsDeliveryTests.app, .startUpdates(AppSession.Updates()))
    let oslo = AppsDeliveryTests.oslo
    for s in 1...5 {
      h.fix(oslo.destination(distance: Meters(Double(s) * 100), bearing: 45), at: h.now.adding(seconds: 1))
    }
    let got = h.pushed(to: AppsDeliveryTests.app).compactMap { n -> (ResolvedPosition, Fix?)? in
      if case .location(let r, let f) = n { return (r, f) } else { return nil }
    }
    // Starting updates answers at once with what there is (no position yet), as a plain
    // subscriber is answered; then one location: the cell does not change over 500 m.
    #expect(got.count == 2)
    #expect(got.first?.0.position == nil)
    let p = try #require(got.last?.0.position)
    #expect(got.last?.1 == nil, "never the fix")
    #expect(p.accuracy.map { $0.value >= 3536 } == true)
    #expect(p.coordinate.distance(to: oslo).value < 3700)
    #expect(p.coordinate != oslo)
    h.fix(oslo.destination(distance: 9000, bearing: 0), at: h.now.adding(seconds: 60))
    // Over those 60 s the fix went stale (FreshFor=10s): the tier change to `cached` is news
    // (same cell); then the cell 9 km north is.
    let after = h.locations(AppsDeliveryTests.app)
    #expect(after.count == 4)
    #expect(after[2].tier == .cached && after[2].position?.coordinate == p.coordinate)
    #expect(after[3].tier == .fix && after[3].position?.coordinate != p.coordinate)
  }

  @Test func storeRoundTripsWithoutPositions() throws {
    var r = AppRecord(
      key: AppKey(uid: 1000, app: AppID("org.example.Weather")!), firstSeen: AppsDeliveryTests.t0)
    r.status = .always
    r.provisional = true
    r.accuracy = .reduced
    r.decidedBy = .agent
    r.decidedAt = AppsDeliveryTests.t0
    r.purpose = "rain \"alerts\""
    r.registrations = [.significantChange]
    r.lastUsed = AppsDeliveryTests.t0.adding(seconds: 60)
    let store = AppStore([r])
    let bytes = store.encoded()
    #expect(try AppStore(decoding: bytes) == store)
    let text = String(decoding: bytes, as: UTF8.self)
    for word in ["lat", "lon", "latitude", "longitude", "coordinate", "position"] {
      #expect(!text.contains("\"\(word)\""))
    }
  }

  @Test(arguments: [
    ("", "not valid JSON"), ("{}", "no format version"),
    (#"{"version":2,"apps":[]}"#, "unsupported format version"),
    (#"{"version":1}"#, "no \"apps\" array"),
    (#"{"version":1,"apps":[{"uid":-1}]}"#, "uid"),
    (#"{"version":1,"apps":[{"uid":1,"app":"x y"}]}"#, "app id"),
    (#"{"version":1,"apps":[{"uid":1,"app":"a","status":"restricted"}]}"#, "status"),
  ])
  func corruptStoresAreRefusedWithAReason(_ text: String, _ reason: String) {
    #expect(throws: AppStore.DecodeError.self) { try AppStore(decoding: Array(text.utf8)) }
    do { _ = try AppStore(decoding: Array(text.utf8)) } catch {
      #expect(error.description.contains(reason), "\(error.description)")
    }
  }

  /// Once-grants are never stored: after a restart the app is not determined.
  @Test func onceIsNotStored() {
    var r = AppRecord(key: AppKey(uid: 1, app: AppID("a")!), firstSeen: AppsDeliveryTests.t0)
    (r.status, r.once, r.registrations) = (.whenInUse, true, [.significantChange])
    #expect(AppAuthorizationMachine.stored(r).status == .notDetermined)
    var m = AppAuthorizationMachine(settings: AppsSettings())
    m.load(AppStore([r]), problem: nil)
    #expect(m.store().records.first?.status == .notDetermined)
  }

  @Test func policyFilesAreReadThroughTheKeyTable() throws {
    let text = "[App]\nID=org.example.Fleet\nUser=alice\nUser=1001\nAuthorization=always\nAccuracy=reduced\n"
    let (rule, problems) = AppRule.parse(fileText: text, fileName: "/etc/locd/apps.d/fleet.conf")
    #expect(problems.isEmpty)
    let r = try #require(rule)
    #expect(r.app == AppID("org.example.Fleet") && r.users == ["alice", "1001"])
    #expect(r.preset == .always && r.maxAccuracy == .reduced)
    let (_, bad) = AppRule.parse(fileText: "[App]\nAuthorization=sometimes\nColour=red\n", fileName: "x.conf")
    #expect(bad.map(\.line) == [2, 3])
    #expect(bad.first?.description.hasPrefix("x.conf:2: Authorization= must be ask, when-in-use") == true)
    let (_, noID) = AppRule.parse(fileText: "[App]\nAuthorization=denied\n", fileName: "y.conf")
    #expect(noID.first?.message.contains("ID= is missing") == true)
  }

  /// The most specific rule answers: the app's own for the user, the app's own, `*` for the
  /// user, then `*`.
  @Test func policyPrecedence() {
    func rule(_ app: String?, _ preset: AppRule.Preset) -> AppRule {
      var r = AppRule()
      r.app = app.flatMap(AppID.init)
      r.preset = preset
      return r
    }
    let policy = AppPolicy([
      .init(rule: rule(nil, .restricted), uids: nil, file: "all"),
      .init(rule: rule(nil, .denied), uids: [1000], file: "all-1000"),
      .init(rule: rule("org.a", .whenInUse), uids: nil, file: "a"),
      .init(rule: rule("org.a", .always), uids: [1000], file: "a-1000"),
    ])
    let a = AppID("org.a")!
    let b = AppID("org.b")!
    #expect(policy.rule(for: AppKey(uid: 1000, app: a))?.file == "a-1000")
    #expect(policy.rule(for: AppKey(uid: 1001, app: a))?.file == "a")
    #expect(policy.rule(for: AppKey(uid: 1000, app: b))?.file == "all-1000")
    #expect(policy.rule(for: AppKey(uid: 1001, app: b))?.file == "all")
    #expect(AppPolicy().rule(for: AppKey(uid: 1, app: a)) == nil)
  }
}
