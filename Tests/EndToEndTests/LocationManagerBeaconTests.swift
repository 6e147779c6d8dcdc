import Foundation
import Glibc
import LocCore
import LocProtocol
import LocationManager
import Testing

/// Beacons through the LocationManager library in this process, against the real locd
/// replaying a real capture (`replay:FILE.btsnoop`, `--clock replay`) and a real `locctl
/// agent --policy` deciding for three apps: Shop (in use) ranges and gets a list each
/// second, nearest first, as docs/BEACONS.md's rules give them from the capture's reference
/// CSV (written by an independent decoder; BeaconDaemonTests.expected); Pocket (when in
/// use, in the background) ranges the same constraint and gets none; Nosy (denied) is
/// refused. The hellos and decisions come before the replay starts (an app's subscription to
/// its authorization does not start it); Shop's request starts it, so its first list is due
/// 1 s after the capture's first advertisement, as for `locctl beacons range`. A second
/// test monitors a beacon region through the library, against the same reference.
@Suite(.serialized) struct LocationManagerBeaconTests {
  static let capture = "20240127-h5100-btsnoop_hci"

  @Test func anAppInUseRangesNearestFirstOneInTheBackgroundGetsNoneADeniedOneIsRefused() async throws {
    // On a thread of its own: under load the cooperative pool's threads can all be held by
    // blocking tests, and this one must act while the daemon is at a given point.
    try await withTaskExecutorPreference(ThreadExecutor()) {
      let path = Binaries.fixture("beacons/\(Self.capture).btsnoop").path
      // speed=20: the 386 s of the capture in about 19 s, while both apps range.
      let owner = try DaemonThread(arguments: ["--clock", "replay", "--source", "replay:\(path)?speed=20"])
      let daemon = owner.daemon
      let rules =
        "org.example.Shop allow-while-using\norg.example.Pocket allow-while-using\norg.example.Nosy deny\n"
      let agent = try daemon.policyAgent(rules)
      defer {
        kill(agent.pid, SIGTERM)
        agent.wait()
        owner.release()
      }

      /// An app connected and decided by the agent.
      func decided(_ app: String) async throws -> LocationManager {
        let m = try await LocationManager(app: app, socketPath: daemon.socketPath)
        var events = m.events.makeAsyncIterator()
        try await m.requestWhenInUseAuthorization(purpose: "find the shelf")
        _ = try await LocationManagerTests.next(&events) { e -> AppStatusView? in
          if case .authorization(let a) = e, a.status != .known(.notDetermined) {
            return a
          } else {
            return nil
          }
        }
        return m
      }
      let shop = try await decided("org.example.Shop")
      let pocket = try await decided("org.example.Pocket")
      let nosy = try await decided("org.example.Nosy")
      #expect(shop.authorizationStatus == .whenInUse && pocket.authorizationStatus == .whenInUse)
      #expect(nosy.authorizationStatus == .denied)
      try await shop.setActivity(.foreground)
      try await pocket.setActivity(.background)
      #expect(try daemon.status().simulation?.state == .known(.waiting), "hellos do not start the replay")

      let constraint = try #require(BeaconIdentityConstraint(BeaconDaemonTests.govee))
      try await shop.startRangingBeacons(satisfying: constraint)
      try await pocket.startRangingBeacons(satisfying: constraint)
      do {
        try await nosy.startRangingBeacons(satisfying: constraint)
        Issue.record("a denied app was let range beacons")
      } catch {
        guard case .daemon(let reply)? = error as? ControlClient.Failure else { throw error }
        #expect(reply.code == .known(.notAuthorized), "\(reply)")
      }
      do {
        try await nosy.startMonitoring(for: constraint)
        Issue.record("a denied app was let monitor beacons")
      } catch {
        guard case .daemon(let reply)? = error as? ControlClient.Failure else { throw error }
        #expect(reply.code == .known(.notAuthorized), "\(reply)")
      }

      // The replay plays to its end; then what each app was sent is read to the end.
      let end = try daemon.waitForStatus(timeout: 120) { $0.simulation?.state == .known(.finished) }
      let withheld = end.beacons?.counters.first { $0.name == "notDeliveredToApps" }?.value ?? 0
      shop.close()
      pocket.close()
      nosy.close()
      let got = await Self.beaconEvents(shop, constraint).lists
      #expect(
        await Self.beaconEvents(pocket, constraint).lists.isEmpty,
        "a when-in-use app in the background gets none")
      #expect(await Self.beaconEvents(nosy, constraint).lists.isEmpty)

      // Shop: a list at t0 + k s for every k up to the last advertisement, each as the rules
      // give it from the reference; Pocket's lists were made and withheld (counted).
      let all = try BeaconDaemonTests.rows(Self.capture)
      let rows = all.filter { $0.uuid == BeaconDaemonTests.govee }
      let t0 = try #require(all.first?.time)
      let last = try #require(all.last?.time)
      let count = Int(last.microsecondsSinceEpoch - t0.microsecondsSinceEpoch) / 1_000_000
      try #require(got.count == count, "\(daemon.log.suffix(2000))")
      // Pocket's request came one round trip after Shop's: its lists were made and withheld.
      #expect(withheld > 0, "Pocket's lists, withheld: \(withheld)")
      var ordered = 0
      for (k, list) in got.enumerated() {
        let tick = t0.adding(seconds: Double(k + 1))
        let want = BeaconDaemonTests.expected(rows, at: tick)
        #expect(list.map { "\($0.identity) \($0.address)" } == want.map(\.key), "at \(tick.iso8601())")
        #expect(list.map(\.proximity.rawValue) == want.map(\.proximity))
        for (g, w) in zip(list, want) {
          #expect(g.rssi?.value == w.rssi)
          #expect(abs((g.accuracy?.value ?? -1) - (w.meters ?? -1)) <= 0.0005 + 1e-9)
        }
        // Nearest first: proximity, then distance, unknown last.
        let keys = list.map { ($0.proximity, $0.accuracy?.value ?? .infinity) }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 <= $1 }, "at \(tick.iso8601())")
        if Set(list.map(\.proximity)).count > 1 { ordered += 1 }
      }
      #expect(ordered > 0, "some lists hold beacons of different proximities")
    }
  }

  /// What `m` was sent about `constraint`, read to the end (after `close()`): the ranging
  /// lists and the region changes (each with the state it implies).
  static func beaconEvents(_ m: LocationManager, _ constraint: BeaconIdentityConstraint) async -> (
    lists: [[Beacon]], changes: [BeaconRegionEvent]
  ) {
    var out: ([[Beacon]], [BeaconRegionEvent]) = ([], [])
    for await e in m.events {
      switch e {
      case .beaconsRanged(let c, let list):
        #expect(c == constraint)
        out.0.append(list)
      case .beaconRegion(let c, let event, let state):
        #expect(c == constraint && state == (event == .entered ? .inside : .outside))
        out.1.append(event)
      default: continue
      }
    }
    return out
  }

  /// Monitoring through the library: the app's request starts the replay (alone, so the
  /// monitor counts from the capture's start), and the entries and exits it is sent are those
  /// the rules give from the reference with the default ExitAfter (30 s; this capture has
  /// longer gaps).
  @Test func anAppInUseMonitorsABeaconRegion() async throws {
    // On a thread of its own: under load the cooperative pool's threads can all be held by
    // blocking tests, and this one must act while the daemon is at a given point.
    try await withTaskExecutorPreference(ThreadExecutor()) {
      let capture = "20230209-h5075-and-h5074-btsnoop_hci"
      let path = Binaries.fixture("beacons/\(capture).btsnoop").path
      let owner = try DaemonThread(arguments: ["--clock", "replay", "--source", "replay:\(path)?speed=max"])
      let daemon = owner.daemon
      let agent = try daemon.policyAgent("org.example.Shop allow-while-using\n")
      defer {
        kill(agent.pid, SIGTERM)
        agent.wait()
        owner.release()
      }
      let shop = try await LocationManager(app: "org.example.Shop", socketPath: daemon.socketPath)
      var events = shop.events.makeAsyncIterator()
      try await shop.setActivity(.foreground)
      try await shop.requestWhenInUseAuthorization(purpose: "find the shelf")
      _ = try await LocationManagerTests.next(&events) { e -> AppStatusView? in
        if case .authorization(let a) = e, a.status == .known(.whenInUse) { return a } else { return nil }
      }
      let constraint = try #require(BeaconIdentityConstraint(BeaconDaemonTests.govee))
      #expect(try await shop.startMonitoring(for: constraint) == .unknown)
      _ = try daemon.waitForStatus(timeout: 120) { $0.simulation?.state == .known(.finished) }
      shop.close()
      let changes = await Self.beaconEvents(shop, constraint).changes

      let all = try BeaconDaemonTests.rows(capture)
      let matching = all.filter { $0.uuid == BeaconDaemonTests.govee }.map(\.time)
      let t0 = try #require(all.first?.time)
      let want = BeaconDaemonTests.expectedRegion(matching, all: all.map(\.time), t0: t0).map(\.0)
      #expect(want.filter { $0 == "exited" }.count >= 1, "the capture has gaps over 30 s")
      #expect(changes.map(\.rawValue) == want.map { $0 == "determined-outside" ? "determinedOutside" : $0 })
    }
  }
}
