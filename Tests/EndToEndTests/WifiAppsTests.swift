import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Apps that get a Wi-Fi position from locd on a machine with no GNSS source and no cached
/// position: an app through the real xdg-desktop-portal (Debian's 1.16) on a private session
/// bus, and the real redshift through the GeoClue face. STAND-INS, each said so:
/// wpa_supplicant is Tests/Peers/wpa-supplicant-stand-in.py (python3-dbus; no Wi-Fi here),
/// the geolocation service Tests/Peers/geolocate-stand-in.py (records every request), and
/// the desktop's portal backend Tests/Peers/portal-access-stand-in.py: it implements only
/// org.freedesktop.impl.portal.Access, without which xdg-desktop-portal 1.16 offers no
/// Location portal, as xdg-desktop-portal's own tests use a test backend.
@Suite(.serialized) struct WifiAppsTests {
  static let portal = "/usr/libexec/xdg-desktop-portal"
  static let permissionStore =
    "/usr/share/dbus-1/services/org.freedesktop.impl.portal.PermissionStore.service"
  static let portalInstalled =
    GeoCluePrograms.busInstalled && FileManager.default.isExecutableFile(atPath: portal)
    && FileManager.default.fileExists(atPath: permissionStore)

  /// locd with network positioning on and no GNSS source, on a private system bus with the
  /// wpa_supplicant stand-in and the GeoClue face, and the geolocation stand-in in `mode`.
  struct Rig {
    let bus: PrivateSystemBus
    let supplicant: SupplicantStandIn
    let standIn: GeolocateDaemonTests.StandIn
    let locd: LocdProcess

    init(mode: String) throws {
      bus = try PrivateSystemBus(policies: [GeoClueAppsTests.policy, SupplicantStandIn.policy])
      supplicant = try SupplicantStandIn(
        on: bus,
        bss: """
          [{"bssid": "00:11:22:33:44:01", "ssid": "home", "signal": -48, "frequency": 2437, "age": 3},
           {"bssid": "00:11:22:33:44:02", "ssid": "office", "signal": -71, "frequency": 5180, "age": 1}]
          """)
      standIn = try GeolocateDaemonTests.StandIn(mode: mode)
      locd = try LocdProcess.withoutReceiver(
        config: "[GeoClue]\nEnable=yes\n[Network]\nEnable=yes\nURL=\(standIn.url)\nMinInterval=1s\n",
        environment: bus.environment)
      guard bus.waitForOwner("org.freedesktop.GeoClue2") else {
        throw HarnessError("locd did not take org.freedesktop.GeoClue2: \(locd.log)")
      }
    }

    func agent() throws -> LinePeer {
      let agent = try LinePeer(
        GeoCluePrograms.peer("geoclue-agent.py"), ["8", "yes"], environment: bus.environment,
        output: bus.directory + "/agent.out")
      guard agent.waitFor("ready") else { throw HarnessError("the agent did not register: \(agent.text)") }
      return agent
    }
  }

  /// The issue xdg-desktop-portal#1615 describes: with no fix and no cached position, the
  /// portal's Start answers Response 0 and the app then waits for a LocationUpdated. Here the
  /// lookup first fails (the stand-in answers 500), so the app starts while locd has no
  /// position at all; once the service answers, the app's wait ends at that answer.
  @Test(.enabled(if: portalInstalled, "needs xdg-desktop-portal, dbus-daemon, python3-dbus and python3-gi"))
  func aPortalAppThatStartsWithNoPositionGetsTheWifiAnswer() throws {
    let rig = try Rig(mode: "error")
    let agent = try rig.agent()
    defer { agent.stop() }
    let before = try rig.locd.waitForStatus(timeout: 20) { ($0.network?.count("http-status") ?? 0) >= 1 }
    #expect(before.position.tier == .none && before.position.provenance == nil)
    let session = try PrivateSessionBus(directory: rig.bus.directory + "/session")
    let environment = session.environment.merging(rig.bus.environment) { a, _ in a }
    let access = try LinePeer(
      GeoCluePrograms.peer("portal-access-stand-in.py"), [PrivateSessionBus.backendName, "grant"],
      environment: environment, output: session.directory + "/access.out")
    defer { access.stop() }
    guard access.waitFor("ready") else {
      throw HarnessError("the Access stand-in did not start: \(access.text)")
    }
    let portal = try LinePeer(
      Self.portal, ["--verbose"], environment: environment, output: session.directory + "/portal.out")
    defer { portal.stop() }
    guard portal.waitFor("providing portal org.freedesktop.portal.Location") else {
      throw HarnessError("xdg-desktop-portal offers no Location portal: \(portal.text)")
    }
    let app = try LinePeer(
      GeoCluePrograms.peer("portal-location-client.py"), ["60"], environment: environment,
      output: session.directory + "/app.out")
    defer { app.stop() }
    #expect(app.waitFor("\"response\": 0", timeout: 20), "\(app.text)\n\(portal.text)")
    // Start is answered, and nothing is known yet: no LocationUpdated can have come.
    #expect(!app.text.contains("\"location\""), "\(app.text)")
    #expect(try rig.locd.status().position.tier == .none)
    // The portal's GeoClue client is the app xdg-desktop-portal, at EXACT (8).
    #expect(agent.text.contains("authorize xdg-desktop-portal 8"), "\(agent.text)")
    // The service answers now: the next lookup's answer reaches the app.
    try "ok".write(toFile: rig.standIn.directory + "/MODE", atomically: true, encoding: .utf8)
    #expect(app.waitFor("\"location\"", timeout: 40), "\(app.text)\n\(rig.locd.log)")
    let line = try #require(app.text.split(separator: "\n").first { $0.contains("\"location\"") })
    let location = try #require(try JSON.parse(String(line))["location"])
    #expect(location["Latitude"]?.number == 59.9139 && location["Longitude"]?.number == 10.7522, "\(line)")
    #expect(location["Accuracy"]?.number == 5000 && location["Description"]?.string == "wifi", "\(line)")
    let after = try rig.locd.status()
    #expect(after.position.provenance == .known(.wifi) && (after.network?.count("requests") ?? 0) >= 2)
    #expect(rig.locd.stop() == 0)
  }

  /// redshift (the real program) asks the GeoClue face for CITY and gets the reduced
  /// location of the Wi-Fi answer (docs/APPS.md), as gammastep does (WifiDaemonTests).
  @Test(
    .enabled(if: GeoCluePrograms.busInstalled, "needs dbus-daemon, busctl, python3-dbus and python3-gi"),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/redshift"), "needs redshift"))
  func redshiftGetsTheWifiPositionThroughTheGeoClueFace() throws {
    let rig = try Rig(mode: "ok")
    let s = try rig.locd.waitForStatus(timeout: 20) { $0.position.provenance == .known(.wifi) }
    #expect(s.fix == nil, "no GNSS source")
    let agent = try rig.agent()
    defer { agent.stop() }
    let centre = ReducedGrid.centre(ReducedGrid.cell(of: Coordinate(lat: 59.9139, lon: 10.7522)!))
    let expected = String(format: "Location: %.2f N, %.2f E", centre.latitude.value, centre.longitude.value)
    // -p prints the location, the period and the colour temperature, then exits.
    let out = try runClient("/usr/bin/redshift", ["-l", "geoclue2", "-p"], on: rig.bus, timeout: 30)
    #expect(out.contains(expected), "\(out)\n\(rig.locd.log)")
    #expect(out.contains("Period: "), "\(out)")
    #expect(agent.text.contains("authorize redshift 4"), "\(agent.text)")
    #expect(rig.standIn.requests.count == 1, "\(rig.standIn.requests)")
    #expect(rig.locd.stop() == 0)
  }
}

/// A private dbus-daemon configured as a session bus for the portal test, open to its
/// clients, whose only activatable service is xdg-permission-store (Debian's activation
/// file, which xdg-desktop-portal 1.16 needs); the environment points HOME, the XDG
/// directories and XDG_DESKTOP_PORTAL_DIR (where the stand-in backend's .portal file is)
/// into `directory`.
final class PrivateSessionBus {
  static let backendName = "org.freedesktop.impl.portal.LocdTest"
  static let desktop = "locdtest"
  let directory: String
  let environment: [String: String]
  private var child: Child!

  init(directory: String) throws {
    self.directory = directory
    let services = directory + "/services"
    let portals = directory + "/portals"
    for d in [services, portals, directory + "/home", directory + "/run"] {
      try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
    }
    chmod(directory + "/run", 0o700)
    try FileManager.default.copyItem(
      atPath: WifiAppsTests.permissionStore,
      toPath: services + "/org.freedesktop.impl.portal.PermissionStore.service")
    try """
    [portal]
    DBusName=\(Self.backendName)
    Interfaces=org.freedesktop.impl.portal.Access;
    UseIn=\(Self.desktop)
    """.write(toFile: portals + "/locdtest.portal", atomically: true, encoding: .utf8)
    let socket = directory + "/bus"
    try """
    <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
    <busconfig>
      <type>session</type>
      <listen>unix:path=\(socket)</listen>
      <auth>EXTERNAL</auth>
      <servicedir>\(services)</servicedir>
      <policy context="default">
        <allow send_destination="*" eavesdrop="true"/>
        <allow eavesdrop="true"/>
        <allow own="*"/>
      </policy>
    </busconfig>
    """.write(toFile: directory + "/session.conf", atomically: true, encoding: .utf8)
    environment = [
      "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(socket)", "HOME": directory + "/home",
      "XDG_DATA_HOME": directory + "/home/.local/share", "XDG_CONFIG_HOME": directory + "/home/.config",
      "XDG_RUNTIME_DIR": directory + "/run", "XDG_CURRENT_DESKTOP": Self.desktop,
      "XDG_DESKTOP_PORTAL_DIR": portals,
    ]
    child = try Child(
      "/usr/bin/dbus-daemon", ["--config-file=\(directory)/session.conf", "--nofork"],
      environment: environment,
      stderrFD: nil)
    for _ in 0..<250 where access(socket, F_OK) != 0 { usleep(20_000) }
    guard access(socket, F_OK) == 0 else { throw HarnessError("dbus-daemon did not listen on \(socket)") }
  }

  deinit {
    kill(child.pid, SIGTERM)
    child.wait(timeout: 5)
  }
}
