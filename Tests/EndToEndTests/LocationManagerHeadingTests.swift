import Foundation
import Glibc
import LocCore
import LocProtocol
import LocationManager
import Testing

/// Heading through the LocationManager library in this process, against the real locd with
/// a `compass:` source on a private system bus, the iio-sensor-proxy stand-in
/// (python3-dbusmock's iio-sensors-proxy template with the compass object where the real
/// iio-sensor-proxy has it; no compass exists here, see SensorProxyStandIn.swift) and a real
/// `locctl agent --policy`: an app authorized and in the foreground starts heading updates
/// with a 15° filter, locd claims the compass, the headings past the filter arrive as
/// `.heading` events, and stopping releases the compass.
@Suite(.serialized) struct LocationManagerHeadingTests {
  @Test(
    .enabled(
      if: CompassSourceTests.enabled,
      "needs root (the stand-in owns its name), dbus-daemon, busctl and python3-dbusmock"
    ))
  func anAppInUseGetsHeadingsPastItsFilterAndStoppingReleasesTheCompass() async throws {
    try await withTaskExecutorPreference(ThreadExecutor()) {
      let bus = try PrivateSystemBus(policies: SensorProxyStandIn.policies)
      let proxy = SensorProxyStandIn(bus: bus)
      try proxy.start()
      let owner = try DaemonThread(arguments: ["--source", "compass:"], environment: bus.environment)
      let daemon = owner.daemon
      let agent = try daemon.policyAgent("org.example.Compass allow-while-using\n")
      defer {
        kill(agent.pid, SIGTERM)
        agent.wait()
        owner.release()
      }
      let manager = try await LocationManager(app: "org.example.Compass", socketPath: daemon.socketPath)
      var events = manager.events.makeAsyncIterator()
      try await manager.requestWhenInUseAuthorization(purpose: "point the map")
      _ = try await LocationManagerTests.next(&events) { e -> AppStatusView? in
        if case .authorization(let a) = e, a.status != .known(.notDetermined) { return a } else { return nil }
      }
      #expect(manager.authorizationStatus == .whenInUse)
      try await manager.setActivity(.foreground)
      try await manager.startUpdatingHeading(filter: 15)
      #expect(try CompassSourceTests.wait { try proxy.calls() == ["ClaimCompass"] })
      _ = try daemon.waitForStatus { $0.counters()["claimed"] == 1 }
      // 20 is 10° from 10 (held back); 30 is 20°; 14 is 16° back.
      let turns: [Double] = [10, 20, 30, 14]
      for d in turns { try proxy.heading(d) }
      var got: [Heading] = []
      while got.count < 3 {
        got.append(
          try await LocationManagerTests.next(&events) { e -> Heading? in
            if case .heading(let h) = e { return h } else { return nil }
          })
      }
      #expect(got.map(\.magneticHeading) == [10, 30, 14])
      #expect(got.allSatisfy { $0.trueHeading == nil && $0.source == "compass:" })
      try await manager.stopUpdatingHeading()
      #expect(try CompassSourceTests.wait { try proxy.calls() == ["ClaimCompass", "ReleaseCompass"] })
      do {
        try await manager.stopUpdatingHeading()
        Issue.record("stopping heading updates that were not started must be not-found")
      } catch {
        guard case .daemon(let reply)? = error as? ControlClient.Failure else { throw error }
        #expect(reply.code == .known(.notFound), "\(reply)")
      }
      manager.close()
    }
  }
}
