import Foundation
import Glibc
import LocCore

/// What the Wi-Fi tests start again and again: locd with no receiver, the NetworkManager
/// stand-in's access points, the wpa_supplicant stand-in. STAND-INS: NetworkManager is
/// python3-dbusmock's networkmanager template (`WifiDaemonTests.networkManagerStandIn`),
/// wpa_supplicant is Tests/Peers/wpa-supplicant-stand-in.py (python3-dbus); no Wi-Fi here.
extension LocdProcess {
  /// locd on a machine with no receiver (its one source an empty replay log), no static
  /// file, and `config` (network positioning and the rest), with `environment` (a bus).
  static func withoutReceiver(config: String, environment: [String: String]) throws -> LocdProcess {
    let dir = LocdProcess.makeDirectory()
    FileManager.default.createFile(atPath: dir + "/empty.nmea", contents: Data())
    return try LocdProcess(
      arguments: ["--source", "replay:\(dir)/empty.nmea"], environment: environment, directory: dir,
      config: "[Position]\nStaticFile=\n" + config)
  }
}

extension WifiDaemonTests {
  /// The NetworkManager stand-in's manager object and Wi-Fi device (dbusmock's template's names).
  static let manager = "/org/freedesktop/NetworkManager"
  static let device = "/org/freedesktop/NetworkManager/Devices/wlan0"

  /// Calls `member` of dbusmock's control interface on `path` of the NetworkManager stand-in.
  @discardableResult
  static func mock(
    _ bus: PrivateSystemBus, _ path: String, _ member: String,
    _ arguments: [String]
  ) throws -> String {
    let r = try bus.busctl(["call", "--", Self.nm, path, "org.freedesktop.DBus.Mock", member] + arguments)
    guard r.status == 0 else { throw HarnessError("\(member): \(r.stderr)") }
    return r.stdout
  }

  /// An activated Wi-Fi device wlan0 on the stand-in seeing `points` (name, SSID, BSSID,
  /// NetworkManager's 0-100 strength), each in infrastructure mode on 2437 MHz.
  static func addWifi(_ bus: PrivateSystemBus, _ points: [(String, String, String, Int)]) throws {
    // State 100: NM_DEVICE_STATE_ACTIVATED.
    try mock(bus, manager, "AddWiFiDevice", ["ssi", "wlan0", "wlan0", "100"])
    for (name, ssid, bssid, strength) in points {
      // name, SSID, BSSID, mode 2 (infrastructure), frequency, rate, strength, security.
      try mock(
        bus, manager, "AddAccessPoint",
        ["ssssuuuyu", device, name, ssid, bssid, "2", "2437", "54000", String(strength), "0"])
    }
  }
}

/// The wpa_supplicant stand-in (Tests/Peers/wpa-supplicant-stand-in.py, python3-dbus: NOT
/// wpa_supplicant) on `bus`: one interface whose BSS objects are `bss` (JSON, as the stand-in
/// reads them); the calls made of it are recorded in `calls`.
struct SupplicantStandIn {
  static let policy = Binaries.packageRoot.path + "/Tests/Peers/wpa-supplicant-stand-in.conf"
  let peer: LinePeer
  let calls: String

  init(on bus: PrivateSystemBus, bss: String, startTimeout: Double = 10) throws {
    let bssFile = bus.directory + "/bss.json"
    try bss.write(toFile: bssFile, atomically: true, encoding: .utf8)
    calls = bus.directory + "/wpa-calls.log"
    peer = try LinePeer(
      GeoCluePrograms.peer("wpa-supplicant-stand-in.py"), [bssFile, calls], environment: bus.environment,
      output: bus.directory + "/wpa.out")
    guard peer.waitFor("ready", timeout: startTimeout) else {
      peer.stop()
      throw HarnessError("the wpa_supplicant stand-in did not start: \(peer.text)")
    }
  }

  /// The calls recorded so far.
  var recorded: String { (try? String(contentsOfFile: calls, encoding: .utf8)) ?? "" }

  func stop() { peer.stop() }
}

extension SupplicantStandIn {
  /// The radio now sees `bss` (JSON, as the stand-in reads it); published `delay` seconds
  /// later as wpa_supplicant does after a scan of its own (BSSRemoved, BSSAdded, the
  /// interface's BSSs and CurrentBSS, ScanDone), or with -1 only at the next Scan call.
  func setScene(_ bss: String, on bus: PrivateSystemBus, delay: Int = 0) throws {
    let r = try bus.busctl([
      "call", "--", "fi.w1.wpa_supplicant1", "/", "org.locd.test.Supplicant", "SetScene", "si", bss,
      String(delay),
    ])
    guard r.status == 0 else { throw HarnessError("SetScene: \(r.stderr)") }
  }

  /// How many scans were asked of it so far.
  var scans: Int { recorded.split(separator: "\n").filter { $0.hasPrefix("Scan") }.count }
}
