import Foundation
import Glibc
import LocCore
import LocProtocol
import LocationManager
import Testing

/// Temporary full accuracy against the built locd (issue 43, item 6; decision 0067): an app
/// granted reduced accuracy asks for exact positions with a purpose, the real `locctl agent
/// --policy` is asked and allows it once, the app gets the exact position while it stays in
/// use, and reduced again once it disconnected and came back; the apps file keeps reduced.
/// And a GeoClue client (the real where-am-i on a private bus) asking exact for an app
/// decided reduced triggers the same prompt.
@Suite(.serialized) struct TemporaryFullAccuracyDaemonTests {
  /// Where the manual location is set: 59.9139 N 10.7522 E.
  static let oslo = Coordinate(lat: 59.9139, lon: 10.7522)!
  /// The centre of its cell of the reduced grid (docs/APPS.md): what a reduced app gets.
  static let cell = ReducedGrid.centre(ReducedGrid.cell(of: oslo))

  /// The real `locctl agent --policy` for this uid, answering by `rules`, its output in a
  /// file; registered with locd before this returns.
  static func agent(_ daemon: LocdProcess, _ rules: String) throws -> LinePeer {
    let path = daemon.directory + "/agent.rules"
    try rules.write(toFile: path, atomically: true, encoding: .utf8)
    let agent = try LinePeer(
      Binaries.locctl.path, ["--socket", daemon.socketPath, "agent", "--policy", path], environment: [:],
      output: daemon.directory + "/agent.out")
    _ = try daemon.waitForStatus { $0.apps?.agents.contains(getuid()) == true }
    return agent
  }

  @Test func anAppAsksOnceForExactPositionsAndIsReducedAgainWhenItComesBack() async throws {
    try await withTaskExecutorPreference(ThreadExecutor()) {
      let owner = try DaemonThread()
      let daemon = owner.daemon
      // The rule allows the app (Precise on): a temporary-full-accuracy prompt is allowed once.
      let agent = try Self.agent(daemon, "org.example.Maps allow-while-using\n")
      defer {
        agent.stop()
        owner.release()
      }
      #expect(try daemon.locctl(["set-location", "59.9139", "10.7522"]).status == 0)
      #expect(try daemon.locctl(["apps", "grant", "org.example.Maps", "--reduced"]).status == 0)

      // Reduced: the cell's centre, a radius of at least the cell's half diagonal (3,536 m).
      var manager = try await LocationManager(app: "org.example.Maps", socketPath: daemon.socketPath)
      var events = manager.events.makeAsyncIterator()
      try await manager.setActivity(.foreground)
      #expect(manager.authorizationStatus == .whenInUse && manager.accuracyAuthorization == .reduced)
      let coarse = try #require(try await manager.requestLocation(timeout: .zero))
      // The wire carries 7 decimals (about 1 cm).
      #expect(coarse.coordinate.distance(to: Self.cell).value < 0.1, "\(coarse)")
      #expect((coarse.horizontalAccuracy?.value ?? 0) >= 3536, "\(coarse)")

      // Asked with a purpose: the agent is asked, the answer comes as an event.
      let asked = try await manager.requestTemporaryFullAccuracyAuthorization(
        purpose: "turn-by-turn directions")
      #expect(asked.accuracy == .known(.reduced) && asked.prompt == .known(.asking), "\(asked)")
      let granted = try await LocationManagerTests.next(&events) { e -> AppStatusView? in
        if case .authorization(let a) = e, a.temporaryFullAccuracy { return a }
        return nil
      }
      #expect(granted.accuracy == .known(.full) && granted.status == .known(.whenInUse))
      #expect(manager.accuracyAuthorization == .full)
      #expect(agent.waitFor("(org.example.Maps, temporary full accuracy): allow-once"), "\(agent.text)")
      let exact = try #require(try await manager.requestLocation(timeout: .zero))
      #expect(exact.coordinate.distance(to: Self.oslo).value < 0.1, "\(exact)")
      let listed = try AppListResult(
        json: JSON.parse(Array(try daemon.locctl(["apps", "--json"]).stdout.utf8)))
      let maps = try #require(listed.apps.first { $0.app == "org.example.Maps" })
      #expect(maps.accuracy == .known(.full) && maps.temporaryFullAccuracy)
      #expect(try daemon.locctl(["apps"]).stdout.contains("full accuracy (temporary, while in use)"))

      // Disconnected and back: reduced again, the cell again; the decision on disk is reduced.
      manager.close()
      manager = try await LocationManager(app: "org.example.Maps", socketPath: daemon.socketPath)
      try await manager.setActivity(.foreground)
      #expect(manager.accuracyAuthorization == .reduced && !manager.authorization.temporaryFullAccuracy)
      let again = try #require(try await manager.requestLocation(timeout: .zero))
      #expect(again.coordinate.distance(to: Self.cell).value < 0.1, "\(again)")
      manager.close()
      let stored = try String(
        contentsOfFile: daemon.stateDirectory + "/apps/\(getuid()).json", encoding: .utf8)
      #expect(stored.contains("\"accuracy\":\"reduced\"") && !stored.contains("temporary"), "\(stored)")
    }
  }

  @Test(
    .enabled(
      if: GeoCluePrograms.busInstalled && GeoCluePrograms.demosInstalled,
      "needs dbus-daemon, python3-dbus, python3-gi and geoclue-2-demo"))
  func aGeoClueClientAskingExactForAReducedAppTriggersThePrompt() throws {
    let bus = try PrivateSystemBus(policies: [GeoClueAppsTests.policy])
    let locd = try startGeoClueLocd(on: bus)
    let agent = try Self.agent(locd, "geoclue-where-am-i allow-while-using\n")
    defer { agent.stop() }
    // Decided reduced (as a Start at city level would have it): exact is asked for again.
    #expect(try locd.locctl(["apps", "grant", "geoclue-where-am-i", "--reduced"]).status == 0)
    let out = try runClient(GeoCluePrograms.whereAmI, ["-t", "5", "-a", "8"], on: bus)
    #expect(agent.text.contains("(geoclue-where-am-i, temporary full accuracy): allow-once"), "\(agent.text)")
    // The replay's position (OsloReplay: 59.9139 N 10.7522 E), exact once allowed.
    #expect(out.contains("Latitude:    59.913900°"), "\(out)\n\(locd.log)")
    // The client is gone: the app is reduced again, as apps.json always had it.
    let listed = try AppListResult(json: JSON.parse(Array(try locd.locctl(["apps", "--json"]).stdout.utf8)))
    let app = try #require(listed.apps.first { $0.app == "geoclue-where-am-i" })
    #expect(app.accuracy == .known(.reduced) && !app.temporaryFullAccuracy, "\(app)")
    let counters = try locd.status().geoclue?.counters ?? []
    #expect(counters.first { $0.name == "fullAccuracyAsked" }?.value == 1, "\(counters)")
    #expect(locd.stop() == 0)
  }
}
