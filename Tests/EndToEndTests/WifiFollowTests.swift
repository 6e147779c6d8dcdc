import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Following the laptop (issue 43, item 1; decision 0066): while a client follows the
/// position, locd reads what NetworkManager or wpa_supplicant publish anyway and looks up
/// again when the scene moved, without scanning itself. STAND-INS, said so: wpa_supplicant
/// is Tests/Peers/wpa-supplicant-stand-in.py (python3-dbus), which publishes a scene change
/// as wpa_supplicant does after a scan of its own (BSSRemoved, BSSAdded, the interface's BSSs
/// and CurrentBSS, ScanDone); NetworkManager is python3-dbusmock's networkmanager template,
/// whose AddAccessPoint and RemoveAccessPoint emit AccessPointAdded and AccessPointRemoved as
/// NetworkManager does; the geolocation service is Tests/Peers/geolocate-stand-in.py.
/// Before: a client's Start held acquisition, but locd looked up again only when the answer
/// was MaxAge= (10 min) old: the second lookup below never came.
@Suite(.serialized) struct WifiFollowTests {
  static let home = """
    [{"bssid": "00:11:22:33:44:01", "ssid": "home", "signal": -48, "frequency": 2437, "age": 1},
     {"bssid": "00:11:22:33:44:02", "ssid": "next", "signal": -60, "frequency": 2437, "age": 1},
     {"bssid": "00:11:22:33:44:03", "ssid": "street", "signal": -75, "frequency": 5180, "age": 1}]
    """
  static let office = """
    [{"bssid": "00:11:22:33:55:01", "ssid": "office", "signal": -45, "frequency": 2437, "age": 1},
     {"bssid": "00:11:22:33:55:02", "ssid": "lab", "signal": -58, "frequency": 5180, "age": 1},
     {"bssid": "00:11:22:33:55:03", "ssid": "canteen", "signal": -70, "frequency": 2412, "age": 1}]
    """
  /// The office with every signal 6 dBm weaker: the same networks.
  static let officeWeaker = office.replacingOccurrences(of: "-45", with: "-51")
    .replacingOccurrences(of: "-58", with: "-64").replacingOccurrences(of: "-70", with: "-76")

  /// `locctl watch` on `locd`: a client that follows the position (as a GeoClue client's
  /// Start does), killed with the test.
  static func watch(_ locd: LocdProcess) throws -> Child {
    let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
    defer { close(null) }
    return try Child(
      "/usr/bin/setpriv",
      ["--pdeathsig", "KILL", "--", Binaries.locctl.path, "--socket", locd.socketPath, "watch"],
      stdoutFD: null)
  }

  static func stop(_ child: Child) {
    kill(child.pid, SIGTERM)
    child.wait(timeout: 5)
  }

  static func macs(_ request: [String: Any]?) -> Set<String> {
    let body = (request?["body"] as? String).flatMap { try? JSON.parse($0) }
    return Set(body?["wifiAccessPoints"]?.array?.compactMap { $0["macAddress"]?.string } ?? [])
  }

  @Test(.enabled(if: GeoCluePrograms.busInstalled, "needs dbus-daemon, busctl, python3-dbus and python3-gi"))
  func aSceneWpaSupplicantPublishesIsLookedUpAgainWithoutAScanOfLocds() throws {
    let bus = try PrivateSystemBus(policies: [SupplicantStandIn.policy])
    let supplicant = try SupplicantStandIn(on: bus, bss: Self.home)
    defer { supplicant.stop() }
    let standIn = try GeolocateDaemonTests.StandIn(mode: "ok")
    // RescanAfter=1d: only what the stand-in publishes can bring the change in time.
    let locd = try LocdProcess.withoutReceiver(
      config: "[Network]\nEnable=yes\nURL=\(standIn.url)\nMinInterval=1s\nRescanAfter=1d\n",
      environment: bus.environment)
    _ = try locd.waitForStatus(timeout: 20) { $0.position.provenance == .known(.wifi) }
    #expect(standIn.requests.count == 1)
    let watcher = try Self.watch(locd)
    defer { Self.stop(watcher) }
    let following = try locd.waitForStatus(timeout: 20) { $0.network?.following == true }
    let scansBefore = following.network?.count("scans") ?? 0
    // The laptop is carried to the office: the supplicant publishes what it sees now.
    try supplicant.setScene(Self.office, on: bus)
    let moved = try locd.waitForStatus(timeout: 20) { $0.network?.count("requests") == 2 }
    #expect(
      Self.macs(standIn.requests.last) == ["00:11:22:33:55:01", "00:11:22:33:55:02", "00:11:22:33:55:03"])
    #expect(moved.network?.count("moves") == 1 && (moved.network?.count("published") ?? 0) >= 1)
    // No scan of locd's own: the change came from what was published.
    #expect(moved.network?.count("scans") == scansBefore)
    #expect(supplicant.scans == scansBefore, "\(supplicant.recorded)")
    // The same networks, weaker: read, and nothing sent.
    let published = moved.network?.count("published") ?? 0
    try supplicant.setScene(Self.officeWeaker, on: bus)
    let same = try locd.waitForStatus(timeout: 20) { ($0.network?.count("published") ?? 0) > published }
    #expect(same.network?.count("requests") == 2 && same.network?.count("moves") == 1)
    #expect(standIn.requests.count == 2)
    // The client leaves: the follow stops.
    Self.stop(watcher)
    _ = try locd.waitForStatus(timeout: 20) { $0.network?.following == false }
    #expect(locd.stop() == 0)
  }

  /// The same through NetworkManager (the dbusmock stand-in, NOT NetworkManager): the
  /// access points of the home removed and the office's added (AccessPointRemoved,
  /// AccessPointAdded), as NetworkManager publishes after its own periodic scan.
  @Test(.enabled(if: WifiDaemonTests.installed, "needs dbus-daemon, busctl and python3-dbusmock"))
  func accessPointsNetworkManagerAddsAndRemovesAreLookedUpAgain() throws {
    let bus = try PrivateSystemBus(policies: [WifiDaemonTests.policy])
    let nm = try WifiDaemonTests.networkManagerStandIn(on: bus)
    defer { nm.stop() }
    let home = [("h1", "home", "00:11:22:33:44:01", 80), ("h2", "next", "00:11:22:33:44:02", 60)]
    try WifiDaemonTests.addWifi(bus, home + [("h3", "street", "00:11:22:33:44:03", 40)])
    let standIn = try GeolocateDaemonTests.StandIn(mode: "ok")
    let locd = try LocdProcess.withoutReceiver(
      config: "[Network]\nEnable=yes\nURL=\(standIn.url)\nMinInterval=1s\nRescanAfter=1d\n",
      environment: bus.environment)
    _ = try locd.waitForStatus(timeout: 20) { $0.position.provenance == .known(.wifi) }
    let watcher = try Self.watch(locd)
    defer { Self.stop(watcher) }
    _ = try locd.waitForStatus(timeout: 20) { $0.network?.following == true }
    let device = WifiDaemonTests.device
    for name in ["h1", "h2", "h3"] {
      try WifiDaemonTests.mock(
        bus, WifiDaemonTests.manager, "RemoveAccessPoint",
        ["ss", device, "/org/freedesktop/NetworkManager/AccessPoint/\(name)"])
    }
    for (name, ssid, bssid, strength) in [
      ("o1", "office", "00:11:22:33:55:01", 85), ("o2", "lab", "00:11:22:33:55:02", 70),
    ] {
      try WifiDaemonTests.mock(
        bus, WifiDaemonTests.manager, "AddAccessPoint",
        ["ssssuuuyu", device, name, ssid, bssid, "2", "2437", "54000", String(strength), "0"])
    }
    let moved = try locd.waitForStatus(timeout: 20) { $0.network?.count("requests") == 2 }
    #expect(Self.macs(standIn.requests.last) == ["00:11:22:33:55:01", "00:11:22:33:55:02"])
    #expect(moved.network?.count("scans") == 1)
    let calls = try WifiDaemonTests.mock(bus, device, "GetCalls", [])
    #expect(calls.components(separatedBy: "RequestScan").count - 1 == 1, "\(calls)")
    #expect(locd.stop() == 0)
  }
}
