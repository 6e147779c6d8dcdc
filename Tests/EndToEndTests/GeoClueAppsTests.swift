import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// GeoClue clients are apps (docs/GEOCLUE.md "How a client's Start is decided"): the real
/// where-am-i, the test agent and locctl on a private bus configured like the system bus, the
/// real locd fed the Oslo replay. The agent's answer is remembered in apps.json, `locctl apps`
/// decides for GeoClue clients too, a DesktopId the peer's cgroup contradicts is refused, and
/// the levels below street get the reduced grid's cell.
@Suite(.serialized) struct GeoClueAppsTests {
  static let policy = Binaries.packageRoot.path + "/dbus/org.freedesktop.GeoClue2.locd.conf"
  static let needs = GeoCluePrograms.busInstalled && GeoCluePrograms.demosInstalled

  func rig() throws -> (PrivateSystemBus, LocdProcess) {
    let bus = try PrivateSystemBus(policies: [Self.policy])
    return (bus, try startGeoClueLocd(on: bus))
  }

  func agent(_ answer: String, max: Int = 8, on bus: PrivateSystemBus, named name: String = "agent") throws
    -> LinePeer
  {
    let peer = try LinePeer(
      GeoCluePrograms.peer("geoclue-agent.py"), [String(max), answer], environment: bus.environment,
      output: bus.directory + "/\(name)-\(answer).out")
    guard peer.waitFor("ready") else { throw HarnessError("the agent did not register: \(peer.text)") }
    return peer
  }

  /// The apps locd knows, by "uid app".
  func apps(_ locd: LocdProcess) throws -> [String: AppListingView] {
    let r = try locd.locctl(["apps", "--json"])
    let list = try AppListResult(json: JSON.parse(Array(r.stdout.utf8)))
    return Dictionary(uniqueKeysWithValues: list.apps.map { ("\($0.uid) \($0.app)", $0) })
  }

  /// The centre of the reduced grid's cell of the replayed position (docs/APPS.md).
  static var cellCentre: Coordinate {
    ReducedGrid.centre(ReducedGrid.cell(of: Coordinate(lat: OsloReplay.latitude, lon: OsloReplay.longitude)!))
  }

  func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

  @Test(.enabled(if: needs, "needs dbus-daemon, python3-dbus, python3-gi and geoclue-2-demo"))
  func theAgentIsAskedOncePerAppAndTheAnswerIsKept() throws {
    let (bus, locd) = try rig()
    let agent = try agent("yes", on: bus)
    defer { agent.stop() }
    for _ in 0..<2 {
      let out = try runClient(GeoCluePrograms.whereAmI, ["-t", "5", "-a", "8"], on: bus)
      #expect(out.contains("Latitude:    59.913900°"), "\(out)\n\(locd.log)")
      #expect(out.contains("Longitude:   10.752200°"), "\(out)")
    }
    // The second Start was answered from the decision: the agent was asked once.
    #expect(count("authorize geoclue-where-am-i 8", in: agent.text) == 1, "\(agent.text)")
    let app = try #require(try apps(locd)["\(getuid()) geoclue-where-am-i"], "\(locd.log)")
    #expect(app.status == .known(.whenInUse))
    #expect(app.accuracy == .known(.full))
    #expect(app.decidedBy == "agent")
    #expect(app.verified == .known(.claimed))
    let stored = try String(contentsOfFile: locd.stateDirectory + "/apps/\(getuid()).json", encoding: .utf8)
    #expect(stored.contains("geoclue-where-am-i"), "\(stored)")
    #expect(!stored.contains("59.91") && !stored.contains("10.75"), "no position in the apps store")

    // A client holding its location is an app in use: status and `locctl apps` show it.
    let holder = try LinePeer(
      GeoCluePrograms.peer("geoclue-probe.py"), ["hold", "org.example.Holder", "8"],
      environment: bus.environment, output: bus.directory + "/hold.out")
    defer { holder.stop() }
    #expect(holder.waitFor("\"location\""), "\(holder.text)\n\(locd.log)")
    let using = try locd.status().apps?.using ?? []
    #expect(using.contains { $0.app == "org.example.Holder" && $0.uid == getuid() }, "\(using)")
    let held = try #require(try apps(locd)["\(getuid()) org.example.Holder"])
    #expect(held.inUse && held.using && held.sessions == 1)
    let human = try locd.locctl(["status"]).stdout
    #expect(human.contains("org.example.Holder"), "\(human)")
    holder.stop()
    #expect(locd.stop() == 0)
  }

  @Test(.enabled(if: needs, "needs dbus-daemon, python3-dbus, python3-gi and geoclue-2-demo"))
  func locctlAppsDecidesForGeoClueClients() throws {
    let (bus, locd) = try rig()
    let agent = try agent("yes", on: bus)
    defer { agent.stop() }
    // Denied by hand before it ever asked: AccessDenied with the reason, the agent not asked.
    #expect(try locd.locctl(["apps", "deny", "geoclue-where-am-i"]).status == 0)
    var out = try runClient(GeoCluePrograms.whereAmI, ["-t", "5", "-a", "8"], on: bus)
    #expect(out.contains("org.freedesktop.DBus.Error.AccessDenied"), "\(out)")
    #expect(out.contains("'geoclue-where-am-i' was denied the location for UID \(getuid())"), "\(out)")
    #expect(!out.contains("Latitude:"), "\(out)")
    // Granted with reduced accuracy: where-am-i, asking for exact, prints the cell's centre.
    #expect(try locd.locctl(["apps", "grant", "geoclue-where-am-i", "--reduced"]).status == 0)
    out = try runClient(GeoCluePrograms.whereAmI, ["-t", "5", "-a", "8"], on: bus)
    let centre = Self.cellCentre
    #expect(out.contains(String(format: "Latitude:    %f°", centre.latitude.value)), "\(out)\n\(locd.log)")
    #expect(out.contains(String(format: "Longitude:   %f°", centre.longitude.value)), "\(out)")
    #expect(!out.contains("59.913900"), "\(out)")
    #expect(!agent.text.contains("authorize"), "\(agent.text)")

    // Denied while a client is active: the client stops (Active goes false).
    let watcher = try LinePeer(
      GeoCluePrograms.peer("geoclue-probe.py"), ["watch", "org.example.Watched", "6"],
      environment: bus.environment, output: bus.directory + "/watch.out")
    defer { watcher.stop() }
    #expect(watcher.waitFor("LocationUpdated"), "\(watcher.text)\n\(locd.log)")
    #expect(try locd.locctl(["apps", "deny", "org.example.Watched"]).status == 0)
    #expect(watcher.waitFor("\"Active\": false"), "\(watcher.text)\n\(locd.log)")
    #expect(locd.stop() == 0)
  }

  @Test(.enabled(if: needs, "needs dbus-daemon, python3-dbus, python3-gi and geoclue-2-demo"))
  func citySnapsToTheReducedGridAndIsKeptReduced() throws {
    let (bus, locd) = try rig()
    let agent = try agent("yes", on: bus)
    defer { agent.stop() }
    // CITY (4): the agent says yes at 4; the app is kept as when-in-use, reduced.
    let out = try runClient(GeoCluePrograms.whereAmI, ["-t", "5", "-a", "4"], on: bus)
    let centre = Self.cellCentre
    #expect(out.contains(String(format: "Latitude:    %f°", centre.latitude.value)), "\(out)\n\(locd.log)")
    #expect(out.contains(String(format: "Longitude:   %f°", centre.longitude.value)), "\(out)")
    #expect(!out.contains("59.913900"), "\(out)")
    #expect(agent.text.contains("authorize geoclue-where-am-i 4"), "\(agent.text)")
    let app = try #require(try apps(locd)["\(getuid()) geoclue-where-am-i"])
    #expect(app.status == .known(.whenInUse) && app.accuracy == .known(.reduced))
    #expect(locd.stop() == 0)
  }

  @Test(.enabled(if: needs, "needs dbus-daemon, python3-dbus, python3-gi and geoclue-2-demo"))
  func anAgentsMaxAccuracyLevelBelowStreetCapsClientsToReduced() throws {
    let (bus, locd) = try rig()
    // MaxAccuracyLevel CITY: where-am-i asks for EXACT, the agent is asked at CITY.
    let agent = try agent("yes", max: 4, on: bus)
    defer { agent.stop() }
    let out = try runClient(GeoCluePrograms.whereAmI, ["-t", "5", "-a", "8"], on: bus)
    #expect(agent.text.contains("authorize geoclue-where-am-i 4"), "\(agent.text)")
    let centre = Self.cellCentre
    #expect(out.contains(String(format: "Latitude:    %f°", centre.latitude.value)), "\(out)\n\(locd.log)")
    #expect(!out.contains("59.913900"), "\(out)")
    #expect(locd.stop() == 0)
  }

  /// The agent lowers MaxAccuracyLevel from EXACT to CITY while a client runs, then raises it
  /// again (python3-dbus stand-in agent emitting PropertiesChanged, the probe as the client).
  /// The client asked for EXACT with a TimeThreshold of an hour, so after its first location
  /// nothing new is signalled by the thresholds: every further LocationUpdated it sees comes
  /// from a change of the cap, and must carry the coordinates the new cap allows.
  @Test(.enabled(if: needs, "needs dbus-daemon, python3-dbus, python3-gi and geoclue-2-demo"))
  func aChangedMaxAccuracyLevelAppliesAtOnceToRunningClients() throws {
    let (bus, locd) = try rig()
    let agent = try agent("yes", max: 8, on: bus)
    defer { agent.stop() }
    // watch DESKTOPID SECONDS DIST TIME LEVEL; it ends by itself, listing the objects alive.
    let watcher = try LinePeer(
      GeoCluePrograms.peer("geoclue-probe.py"), ["watch", "org.example.Capped", "20", "0", "3600", "8"],
      environment: bus.environment, output: bus.directory + "/capped.out")
    defer { watcher.stop() }
    let probe = ProbeWatch(peer: watcher)
    func messages() -> [JSON] { probe.messages }
    func updates() -> [JSON] { probe.updates }
    func waitForUpdates(_ n: Int) -> Bool { probe.waitUntil { probe.updates.count >= n } }
    func agentSaid(_ line: String) -> Bool { agent.waitFor(line) }
    let (full, cell) = (ProbeWatch.full, ProbeWatch.cell(Self.cellCentre))
    let at = ProbeWatch.at
    let same = ProbeWatch.same
    // The cell's centre is not the replayed position (else the test could not tell them apart).
    try #require(!same(cell, full))

    try #require(waitForUpdates(1), "\(watcher.text)\n\(locd.log)")
    #expect(same(at(updates()[0]), full), "\(watcher.text)")

    agent.send("max 4")
    try #require(agentSaid("max 4"))
    try #require(
      waitForUpdates(2), "nothing signalled after MaxAccuracyLevel 4: \(watcher.text)\n\(locd.log)")
    #expect(same(at(updates()[1]), cell), "\(watcher.text)")

    agent.send("max 8")
    try #require(agentSaid("max 8"))
    try #require(
      waitForUpdates(3), "nothing signalled after MaxAccuracyLevel 8: \(watcher.text)\n\(locd.log)")
    #expect(same(at(updates()[2]), full), "\(watcher.text)")
    // The watch goes on (replayed fixes, none signalled: TimeThreshold) and ends by itself.
    #expect(watcher.waitFor("\"end\"", timeout: 30), "\(watcher.text)")
    watcher.stop()

    // Full, the cell's centre, full: nothing else was signalled, the client stayed active,
    // each new object was readable when its LocationUpdated came and was followed by the
    // Location property change (GeoClue's order).
    let all = messages()
    #expect(updates().count == 3, "\(watcher.text)")
    // The objects of the accuracy the client no longer had went a few seconds after each
    // change (the watch ran on well past that): only the last one is left.
    let end = try #require(all.last { $0["end"] != nil }, "\(watcher.text)")
    #expect(end["alive"] == .array([updates()[2]["new"] ?? .null]), "\(end.serialized)")
    #expect(!all.contains { $0["changed"]?["Active"] == .bool(false) }, "\(watcher.text)")
    for (i, m) in all.enumerated() where m["signal"]?.string == "LocationUpdated" {
      #expect(m["newReadable"] == .bool(true), "\(m.serialized)")
      let next = all[(i + 1)...].first { $0["changed"]?["Location"] != nil }
      #expect(next?["changed"]?["Location"]?.string == m["new"]?.string, "\(watcher.text)")
    }
    // The app's own decision is untouched: the agent's cap is not a decision.
    let app = try #require(try apps(locd)["\(getuid()) org.example.Capped"])
    #expect(app.status == .known(.whenInUse) && app.accuracy == .known(.full))
    #expect(locd.log.contains("'org.example.Capped' of uid \(getuid()) now at level 4"), "\(locd.log)")
    #expect(locd.stop() == 0)
  }

  /// The agent process is replaced while a client runs, as when a desktop shell restarts
  /// and registers again with another MaxAccuracyLevel (python3-dbus stand-in agents, each
  /// its own connection of the same uid; the probe as the client, at EXACT with an hour's
  /// TimeThreshold, so only the cap can cause a signal). The new agent's level applies at
  /// once, as its PropertiesChanged would: 4 gives the cell's centre, 0 stops the client,
  /// 8 starts it again. The first replacement registers before the old agent leaves, the
  /// others after the previous one left (a shell that exits first); an agent leaving with
  /// no replacement changes nothing for the client.
  @Test(.enabled(if: needs, "needs dbus-daemon, python3-dbus, python3-gi and geoclue-2-demo"))
  func aReplacingAgentsMaxAccuracyLevelAppliesAtOnceToRunningClients() throws {
    let (bus, locd) = try rig()
    let first = try agent("yes", max: 8, on: bus)
    defer { first.stop() }
    let watcher = try LinePeer(
      GeoCluePrograms.peer("geoclue-probe.py"), ["watch", "org.example.Replaced", "60", "0", "3600", "8"],
      environment: bus.environment, output: bus.directory + "/replaced.out")
    defer { watcher.stop() }
    let probe = ProbeWatch(peer: watcher)
    func updates() -> [JSON] { probe.updates }
    func actives() -> [Bool] { probe.actives }
    func waitUntil(_ condition: () -> Bool) -> Bool { probe.waitUntil(condition) }
    let (full, cell) = (ProbeWatch.full, ProbeWatch.cell(Self.cellCentre))
    let at = ProbeWatch.at
    let same = ProbeWatch.same
    try #require(!same(cell, full))
    try #require(waitUntil { updates().count >= 1 }, "\(watcher.text)\n\(locd.log)")
    #expect(same(at(updates()[0]), full), "\(watcher.text)")

    // A new agent at CITY replaces the first (same uid), which then leaves.
    let second = try agent("yes", max: 4, on: bus, named: "second")
    defer { second.stop() }
    try #require(
      waitUntil { updates().count >= 2 },
      "nothing signalled after the agent at 4: \(watcher.text)\n\(locd.log)")
    #expect(same(at(updates()[1]), cell), "\(watcher.text)")
    // The replaced agent leaves, then the second leaves with no replacement (locd logs it,
    // after the first's departure): neither changes anything, the client runs on at the cell.
    first.stop()
    second.stop()
    let left = "GeoClue: the agent of uid \(getuid()) (locd-test-agent) left"
    #expect(waitUntil { locd.log.contains(left) }, "\(locd.log)")
    #expect(actives() == [true], "\(watcher.text)")
    #expect(updates().count == 2, "\(watcher.text)")

    // A third registers at 0: the client stops.
    let third = try agent("yes", max: 0, on: bus, named: "third")
    defer { third.stop() }
    try #require(
      waitUntil { actives() == [true, false] },
      "still active after the agent at 0: \(watcher.text)\n\(locd.log)")

    // It leaves, and a fourth registers at EXACT: the client the agent stopped starts again.
    third.stop()
    let fourth = try agent("yes", max: 8, on: bus, named: "fourth")
    defer { fourth.stop() }
    try #require(
      waitUntil { actives() == [true, false, true] },
      "not restarted by the agent at 8: \(watcher.text)\n\(locd.log)")
    watcher.stop()
    // Every new object was readable when its LocationUpdated came.
    #expect(updates().allSatisfy { $0["newReadable"] == .bool(true) }, "\(watcher.text)")
    // The agents were never asked: the app was decided at the first Start.
    #expect(count("authorize", in: first.text + second.text + third.text + fourth.text) == 1)
    #expect(locd.stop() == 0)
  }

  /// The user's agent is replaced by one at 0 while the old agent's answer to AuthorizeApp is
  /// on its way (the stand-in holds it until told): the yes is kept as the app's decision,
  /// but the Start is denied as any Start at 0 is, not started at no level at all.
  @Test(.enabled(if: needs, "needs dbus-daemon, python3-dbus, python3-gi and geoclue-2-demo"))
  func aStartAuthorizedAfterTheAgentTurnedGeolocationOffIsDenied() throws {
    let (bus, locd) = try rig()
    let first = try agent("hold", max: 8, on: bus)
    defer { first.stop() }
    let starter = try LinePeer(
      GeoCluePrograms.peer("geoclue-probe.py"), ["start", "org.example.Late", "8"],
      environment: bus.environment, output: bus.directory + "/late.out")
    defer { starter.stop() }
    try #require(first.waitFor("authorize org.example.Late 8"), "\(first.text)\n\(locd.log)")
    let second = try agent("yes", max: 0, on: bus, named: "second")
    defer { second.stop() }
    first.send("answer yes")
    try #require(first.waitFor("answered yes"), "\(first.text)")
    try #require(starter.waitFor("\"started\""), "\(starter.text)\n\(locd.log)")
    #expect(starter.text.contains("\"started\": false"), "\(starter.text)\n\(locd.log)")
    #expect(starter.text.contains("org.freedesktop.DBus.Error.AccessDenied"), "\(starter.text)")
    #expect(starter.text.contains("Geolocation disabled for UID \(getuid())"), "\(starter.text)")
    #expect(!second.text.contains("authorize"), "\(second.text)")
    let app = try #require(try apps(locd)["\(getuid()) org.example.Late"], "\(locd.log)")
    #expect(app.status == .known(.whenInUse) && app.decidedBy == "agent")
    #expect(!app.inUse)
    #expect(locd.stop() == 0)
  }

  /// A process in a cgroup named like a Flatpak scope is that app: a DesktopId that says
  /// otherwise is refused; the true one is asked about and started, verified.
  @Test(
    .enabled(if: getuid() == 0, "needs root to make a cgroup"),
    .enabled(if: needs, "needs dbus-daemon, python3-dbus, python3-gi and geoclue-2-demo"))
  func aDesktopIdTheCgroupContradictsIsRefused() throws {
    let unified = "/sys/fs/cgroup/unified"
    let root = FileManager.default.fileExists(atPath: unified + "/cgroup.procs") ? unified : "/sys/fs/cgroup"
    let scope = root + "/app-flatpak-org.example.Maps-\(getpid()).scope"
    try #require(mkdir(scope, 0o755) == 0 || errno == EEXIST, "cannot make \(scope): errno \(errno)")
    defer { rmdir(scope) }
    let (bus, locd) = try rig()
    let agent = try agent("yes", on: bus)
    defer { agent.stop() }
    func inScope(_ program: String, _ arguments: [String]) throws -> String {
      // The shell moves itself into the scope, then becomes the client (same pid).
      let r = try run(
        URL(fileURLWithPath: "/bin/sh"),
        ["-c", "echo $$ > \(scope)/cgroup.procs && exec \"$@\"", "sh", program] + arguments,
        environment: bus.environment, timeout: 30)
      return r.stdout + r.stderr
    }
    // where-am-i says it is geoclue-where-am-i; its cgroup says org.example.Maps.
    let liar = try inScope(GeoCluePrograms.whereAmI, ["-t", "5", "-a", "8"])
    #expect(liar.contains("org.freedesktop.DBus.Error.AccessDenied"), "\(liar)\n\(locd.log)")
    #expect(liar.contains("DesktopId refused") && liar.contains("org.example.Maps"), "\(liar)")
    #expect(!liar.contains("Latitude:"), "\(liar)")
    #expect(!agent.text.contains("authorize"), "\(agent.text)")
    // The honest one is asked about and runs, its id verified by its scope.
    let honest = try inScope(GeoCluePrograms.peer("geoclue-probe.py"), ["start", "org.example.Maps", "8"])
    #expect(honest.contains("\"started\": true"), "\(honest)\n\(locd.log)")
    #expect(agent.text.contains("authorize org.example.Maps 8"), "\(agent.text)")
    let app = try #require(try apps(locd)["\(getuid()) org.example.Maps"])
    #expect(app.verified == .known(.flatpak))
    #expect(locd.stop() == 0)
  }
}
