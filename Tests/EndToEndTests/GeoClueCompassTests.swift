import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// GeoClue's Heading from the compass (docs/GEOCLUE.md, decision 0054): the real locd with
/// `[GeoClue] Enable=yes`, a manual location (no course) and a `compass:` source, on a
/// private bus configured like the system bus with GeoClue's, iio-sensor-proxy's and locd's
/// policies; the iio-sensor-proxy stand-in (python3-dbusmock's iio-sensors-proxy template
/// with the compass object: no compass exists here, see SensorProxyStandIn.swift); the test
/// agent; and a GeoClue client written against GeoClue's documented interface
/// (geoclue-probe.py). The compass is claimed only while the client is started, and its
/// heading is the Location's Heading.
@Suite(.serialized) struct GeoClueCompassTests {
  static let needs = GeoCluePrograms.busInstalled && CompassSourceTests.enabled

  @Test(.enabled(if: needs, "needs root, dbus-daemon, python3-dbus, python3-gi and python3-dbusmock"))
  func aStartedClientClaimsTheCompassAndGetsItsHeading() throws {
    let bus = try PrivateSystemBus(policies: SensorProxyStandIn.policies + [GeoClueAppsTests.policy])
    let proxy = SensorProxyStandIn(bus: bus)
    try proxy.start()
    let locd = try LocdProcess(
      arguments: ["--source", "compass:"], environment: bus.environment, config: "[GeoClue]\nEnable=yes\n")
    defer { locd.stop() }
    #expect(bus.waitForOwner("org.freedesktop.GeoClue2"), "\(locd.log)")
    #expect(try locd.locctl(["set-location", "59.9139", "10.7522"]).status == 0)
    let agent = try LinePeer(
      GeoCluePrograms.peer("geoclue-agent.py"), ["8", "yes"], environment: bus.environment,
      output: bus.directory + "/agent.out")
    defer { agent.stop() }
    #expect(agent.waitFor("ready"), "\(agent.text)")
    usleep(300_000)
    #expect(try proxy.calls() == [], "no GeoClue client: nothing claimed")

    let watcher = try LinePeer(
      GeoCluePrograms.peer("geoclue-probe.py"), ["watch", "org.example.Compass", "4"],
      environment: bus.environment, output: bus.directory + "/watch.out")
    defer { watcher.stop() }
    #expect(watcher.waitFor("LocationUpdated"), "\(watcher.text)\n\(locd.log)")
    #expect(try CompassSourceTests.wait { try proxy.calls() == ["ClaimCompass"] }, "\(locd.log)")
    _ = try locd.waitForStatus { $0.counters()["claimed"] == 1 }
    // The manual location has no course: the compass's heading is the Location's Heading.
    try proxy.heading(123.5)
    #expect(watcher.waitFor("\"heading\": 123.5"), "\(watcher.text)")
    // The client's run ends (it leaves the bus): its session closes, the compass is released.
    #expect(watcher.waitFor("\"end\": true"), "\(watcher.text)")
    #expect(try CompassSourceTests.wait { try proxy.calls() == ["ClaimCompass", "ReleaseCompass"] })
  }
}
