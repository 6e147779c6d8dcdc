import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Wi-Fi positioning against the real locd. Two STAND-INS, both said so: NetworkManager is
/// python3-dbusmock's networkmanager template (Debian python3-dbusmock) on a private bus
/// configured like the system bus (no Wi-Fi hardware here), given a device and access points
/// through its mock interface (AddWiFiDevice, AddAccessPoint) and recording the calls it
/// gets; the geolocation service is Tests/Peers/geolocate-stand-in.py, a python3 http.server
/// speaking the geolocate API that records every request.
@Suite(.serialized) struct WifiDaemonTests {
  static let policy = Binaries.packageRoot.path + "/Tests/Peers/networkmanager-stand-in.conf"
  static let installed: Bool = {
    guard GeoCluePrograms.busInstalled else { return false }
    let probe = try? run(
      URL(fileURLWithPath: "/usr/bin/python3"), ["-c", "import dbusmock.templates.networkmanager"])
    return probe?.status == 0
  }()
  static let nm = "org.freedesktop.NetworkManager"

  /// python3-dbusmock's networkmanager template on `bus`, the stand-in for NetworkManager
  /// (no Wi-Fi here), once it owns its name; its output, which records the calls made of it,
  /// goes to `log`.
  struct NetworkManagerStandIn {
    let child: Child
    let log: String

    func stop() {
      kill(child.pid, SIGTERM)
      child.wait(timeout: 5)
    }
  }

  static func networkManagerStandIn(on bus: PrivateSystemBus) throws -> NetworkManagerStandIn {
    let log = bus.directory + "/nm-stand-in.log"
    let fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    let nm = try Child(
      "/usr/bin/python3", ["-m", "dbusmock", "--system", "--template", "networkmanager"],
      environment: bus.environment, stdoutFD: fd, stderrFD: fd)
    close(fd)
    let standIn = NetworkManagerStandIn(child: nm, log: log)
    guard bus.waitForOwner(Self.nm) else {
      standIn.stop()
      throw HarnessError("the NetworkManager stand-in did not start")
    }
    return standIn
  }

  @Test(.enabled(if: installed, "needs dbus-daemon, busctl and python3-dbusmock"))
  func theStrongestMappableNetworksAreSentOnceAndTheAnswerIsAWifiPosition() throws {
    let bus = try PrivateSystemBus(policies: [Self.policy])
    let nm = try Self.networkManagerStandIn(on: bus)
    defer { nm.stop() }
    try Self.addWifi(
      bus,
      [
        ("home", "home", "00:11:22:33:44:01", 80), ("office", "office", "00:11:22:33:44:02", 60),
        ("cafe", "cafe_nomap", "00:11:22:33:44:03", 90), ("phone", "phone", "02:AA:BB:CC:DD:EE", 95),
        ("hidden", "", "00:11:22:33:44:05", 70),
      ])
    let standIn = try GeolocateDaemonTests.StandIn(mode: "ok")
    let locd = try LocdProcess.withoutReceiver(
      config: "[Network]\nEnable=yes\nURL=\(standIn.url)\nMinInterval=1s\nMaxAge=1s\n",
      environment: bus.environment)
    let s = try locd.waitForStatus(timeout: 20) { $0.position.provenance == .known(.wifi) }
    #expect(s.position.tier == .fix && s.position.position?.accuracy == Meters(5000))
    let first = try #require(standIn.requests.first)
    let body = try #require((first["body"] as? String).flatMap { try? JSON.parse($0) })
    #expect(body["considerIp"] == .bool(false))
    let aps = try #require(body["wifiAccessPoints"]?.array)
    // Strongest first; the _nomap, the locally administered (02:...) and the hidden one left out.
    #expect(
      aps.compactMap { $0["macAddress"]?.string } == ["00:11:22:33:44:01", "00:11:22:33:44:02"], "\(body)")
    // NetworkManager's strength 80 and 60 as dBm: -100 + 0.6 × strength.
    #expect(aps.compactMap { $0["signalStrength"]?.number } == [-52, -64])
    #expect(aps.allSatisfy { $0["age"]?.number != nil } && aps.allSatisfy { $0["ssid"] == nil })
    // The scan was asked of the device.
    let calls = try Self.mock(bus, Self.device, "GetCalls", [])
    #expect(calls.contains("RequestScan"), "\(calls)")
    // MaxAge=1s: the next scan finds the same networks and is answered from memory.
    let later = try locd.waitForStatus(timeout: 20) { ($0.network?.count("cacheHits") ?? 0) >= 1 }
    #expect(later.network?.count("scans") ?? 0 >= 2)
    #expect(standIn.requests.count == 1, "\(standIn.requests)")
    #expect(locd.stop() == 0)
  }

  /// Issue 40, item 4: a Wi-Fi answer of 1e-300 m. Before: taken as it came (status and
  /// locctl showed 0 m) and `locate --accuracy 5m` was met at once. A Wi-Fi answer is no better
  /// than 10 m (the access points' places come from phones' GNSS fixes, and the machine is
  /// anywhere within their range; ichnaea's own floor; docs/SOURCES.md, "Bounds").
  @Test(.enabled(if: installed, "needs dbus-daemon, busctl and python3-dbusmock"))
  func aWifiAnswerOf1eMinus300MetresIsTenMetresAndDoesNotMeetLocateFor5m() throws {
    let bus = try PrivateSystemBus(policies: [Self.policy])
    let nm = try Self.networkManagerStandIn(on: bus)
    defer { nm.stop() }
    try Self.addWifi(
      bus, [("home", "home", "00:11:22:33:44:01", 80), ("office", "office", "00:11:22:33:44:02", 60)])
    let standIn = try GeolocateDaemonTests.StandIn(mode: "tiny")
    let locd = try LocdProcess.withoutReceiver(
      config: "[Network]\nEnable=yes\nURL=\(standIn.url)\nMinInterval=1s\n", environment: bus.environment)
    let s = try locd.waitForStatus(timeout: 20) { $0.position.provenance == .known(.wifi) }
    #expect(s.position.tier == .fix && s.position.position?.accuracy == Meters(10))
    let located = try locd.locctl(["locate", "--accuracy", "5m", "--timeout", "2s", "--json"])
    let answer = try decodeOutput(located.stdout, as: LocateView.self)
    #expect(!answer.accuracyMet && answer.position.position?.accuracy == Meters(10), "\(located.stdout)")
    let entry = try #require(try locd.status().outOfBounds?.recent.last)
    #expect(entry.provenance == .known(.wifi) && entry.source == standIn.url)
    #expect(entry.value == 1e-300 && entry.bound == 10 && entry.action == .known(.raised))
    let text = try locd.locctl(["locate", "--accuracy", "5m", "--timeout", "0"]).stdout
    #expect(text.contains("±10 m"), "\(text)")
    #expect(locd.stop() == 0)
  }

  /// Without NetworkManager on the bus, wpa_supplicant's API. The stand-in
  /// (Tests/Peers/wpa-supplicant-stand-in.py, python3-dbus) is NOT wpa_supplicant: one
  /// interface whose BSS objects the test lists, Interface.Scan recorded.
  @Test(.enabled(if: GeoCluePrograms.busInstalled, "needs dbus-daemon, busctl, python3-dbus and python3-gi"))
  func withoutNetworkManagerWpaSupplicantsNetworksAreSent() throws {
    let bus = try PrivateSystemBus(policies: [SupplicantStandIn.policy])
    let supplicant = try SupplicantStandIn(
      on: bus,
      bss: """
        [{"bssid": "00:11:22:33:44:01", "ssid": "home", "signal": -48, "frequency": 2437, "age": 3},
         {"bssid": "00:11:22:33:44:02", "ssid": "office", "signal": -71, "frequency": 5180, "age": 1},
         {"bssid": "00:11:22:33:44:03", "ssid": "cafe_nomap", "signal": -40, "frequency": 2412, "age": 0},
         {"bssid": "06:11:22:33:44:04", "ssid": "hotspot", "signal": -30, "frequency": 2412, "age": 0},
         {"bssid": "00:11:22:33:44:05", "ssid": "", "signal": -45, "frequency": 2412, "age": 0}]
        """)
    defer { supplicant.stop() }
    let standIn = try GeolocateDaemonTests.StandIn(mode: "ok")
    let locd = try LocdProcess.withoutReceiver(
      config: "[Network]\nEnable=yes\nURL=\(standIn.url)\n", environment: bus.environment)
    let s = try locd.waitForStatus(timeout: 20) { $0.position.provenance == .known(.wifi) }
    #expect(s.network?.count("requests") == 1)
    let body = try #require((standIn.requests.first?["body"] as? String).flatMap { try? JSON.parse($0) })
    let aps = try #require(body["wifiAccessPoints"]?.array)
    #expect(
      aps.compactMap { $0["macAddress"]?.string } == ["00:11:22:33:44:01", "00:11:22:33:44:02"], "\(body)")
    // wpa_supplicant's Signal is dBm already; Age in seconds, sent in ms.
    #expect(aps.compactMap { $0["signalStrength"]?.number } == [-48, -71])
    #expect(aps.compactMap { $0["age"]?.number } == [3000, 1000])
    #expect(supplicant.recorded.contains("Scan passive"), "\(supplicant.recorded)")
    #expect(locd.stop() == 0)
  }

  /// Issue 40, finding 6: only the first 256 access points a scan published were read, so
  /// with 10,000 in view the 20 sent were the strongest of the first 256. Now every one is
  /// read (up to WifiAccessPoint.scanLimit, 16,384), 32 calls at a time, and the strongest 20
  /// of all are sent. The stand-in (NOT wpa_supplicant) publishes 10,000 BSSs at -90 dBm but
  /// for 20 at indices 5,000 to 5,019, at -30 to -49 dBm: those 20 are sent, strongest first.
  @Test(.enabled(if: GeoCluePrograms.busInstalled, "needs dbus-daemon, busctl, python3-dbus and python3-gi"))
  func theStrongestOfTenThousandAccessPointsAreSent() throws {
    let mac = Self.manyBSSMAC
    let strong = 5000..<5020
    let bus = try PrivateSystemBus(policies: [SupplicantStandIn.policy])
    let supplicant = try SupplicantStandIn(
      on: bus, bss: Self.manyBSS(10_000, strong: [Array(strong)]), startTimeout: 120)
    defer { supplicant.stop() }
    let standIn = try GeolocateDaemonTests.StandIn(mode: "ok")
    let locd = try LocdProcess.withoutReceiver(
      config: "[Network]\nEnable=yes\nURL=\(standIn.url)\n", environment: bus.environment)
    let s = try locd.waitForStatus(timeout: 120) { $0.position.provenance == .known(.wifi) }
    #expect(s.network?.count("requests") == 1 && s.network?.count("unreadAccessPoints") == 0)
    let body = try #require((standIn.requests.first?["body"] as? String).flatMap { try? JSON.parse($0) })
    let aps = try #require(body["wifiAccessPoints"]?.array)
    #expect(aps.compactMap { $0["macAddress"]?.string } == strong.map(mac), "\(body)")
    #expect(aps.compactMap { $0["signalStrength"]?.number } == strong.map { Double(-30 - ($0 - 5000)) })
    #expect(locd.stop() == 0)
  }

  /// `00:11:22:XX:XX:XX` for index `i` of `manyBSS`.
  static func manyBSSMAC(_ i: Int) -> String {
    [0x00, 0x11, 0x22, i >> 16, (i >> 8) & 0xff, i & 0xff].map { String(format: "%02x", $0) }.joined(
      separator: ":")
  }

  /// The wpa_supplicant stand-in's file for `count` BSSs at -90 dBm but for each run of
  /// `strong`, at -30, -31, ... dBm in its order.
  static func manyBSS(_ count: Int, strong: [[Int]]) -> String {
    var signals = [Int](repeating: -90, count: count)
    for run in strong { for (k, i) in run.enumerated() { signals[i] = -30 - k } }
    let bss = (0..<count).map { i in
      #"{"bssid": "\#(manyBSSMAC(i))", "ssid": "n\#(i)", "signal": \#(signals[i]), "frequency": 2437, "age": 1}"#
    }
    return "[" + bss.joined(separator: ",\n") + "]"
  }

  /// The bound: 17,000 published, 16,384 (`WifiAccessPoint.scanLimit`) read, the 616 past it
  /// counted and not read. The stand-in publishes them in order, so the last 616 are the ones
  /// left: the 20 strong ones among them (indices 16,900 to 16,919, -30 to -49 dBm) are not
  /// sent, the 20 as strong at indices 16,000 to 16,019 are.
  @Test(.enabled(if: GeoCluePrograms.busInstalled, "needs dbus-daemon, busctl, python3-dbus and python3-gi"))
  func accessPointsPastTheLimitAreCountedAndNotRead() throws {
    let read = Array(16_000..<16_020)
    let past = Array(16_900..<16_920)
    let bus = try PrivateSystemBus(policies: [SupplicantStandIn.policy])
    let supplicant = try SupplicantStandIn(
      on: bus, bss: Self.manyBSS(17_000, strong: [read, past]), startTimeout: 120)
    defer { supplicant.stop() }
    let standIn = try GeolocateDaemonTests.StandIn(mode: "ok")
    let locd = try LocdProcess.withoutReceiver(
      config: "[Network]\nEnable=yes\nURL=\(standIn.url)\n", environment: bus.environment)
    let s = try locd.waitForStatus(timeout: 120) { $0.position.provenance == .known(.wifi) }
    #expect(s.network?.count("unreadAccessPoints") == 17_000 - 16_384)
    let body = try #require((standIn.requests.first?["body"] as? String).flatMap { try? JSON.parse($0) })
    let aps = try #require(body["wifiAccessPoints"]?.array)
    #expect(aps.compactMap { $0["macAddress"]?.string } == read.map(Self.manyBSSMAC), "\(body)")
    #expect(locd.log.contains("Wi-Fi scan: 616 access points not read (at most 16384 are"))
    #expect(locd.stop() == 0)
  }

  /// The same through NetworkManager (the dbusmock stand-in, NOT NetworkManager): 1,000
  /// access points at strength 10, but for 20 at indices 900 to 919 at 90 to 71, past the
  /// 256 read before. Those 20 are sent, strongest first.
  @Test(.enabled(if: installed, "needs dbus-daemon, busctl and python3-dbusmock"))
  func theStrongestOfAThousandNetworkManagerAccessPointsAreSent() throws {
    let bus = try PrivateSystemBus(policies: [Self.policy])
    let nm = try Self.networkManagerStandIn(on: bus)
    defer { nm.stop() }
    try Self.mock(bus, Self.manager, "AddWiFiDevice", ["ssi", "wlan0", "wlan0", "100"])
    // dbusmock's AddAccessPoint, a thousand times from one program (busctl would take minutes).
    let add = """
      import dbus
      mock = dbus.Interface(
          dbus.SystemBus().get_object("\(Self.nm)", "\(Self.manager)"), "org.freedesktop.DBus.Mock")
      for i in range(1000):
          strength = 90 - (i - 900) if 900 <= i < 920 else 10
          mock.AddAccessPoint(
              "\(Self.device)", "ap%d" % i, "n%d" % i, "00:11:22:33:%02X:%02X" % (i >> 8, i & 255),
              dbus.UInt32(2), dbus.UInt32(2437), dbus.UInt32(54000), dbus.Byte(strength), dbus.UInt32(0))
      """
    let added = try run(
      URL(fileURLWithPath: "/usr/bin/python3"), ["-c", add], environment: bus.environment, timeout: 120)
    #expect(added.status == 0, "\(added.stderr)")
    let standIn = try GeolocateDaemonTests.StandIn(mode: "ok")
    let locd = try LocdProcess.withoutReceiver(
      config: "[Network]\nEnable=yes\nURL=\(standIn.url)\n", environment: bus.environment)
    let s = try locd.waitForStatus(timeout: 60) { $0.position.provenance == .known(.wifi) }
    #expect(s.network?.count("requests") == 1 && s.network?.count("unreadAccessPoints") == 0)
    let body = try #require((standIn.requests.first?["body"] as? String).flatMap { try? JSON.parse($0) })
    let aps = try #require(body["wifiAccessPoints"]?.array)
    let strong = (900..<920).map { String(format: "00:11:22:33:%02x:%02x", $0 >> 8, $0 & 255) }
    #expect(Set(aps.compactMap { $0["macAddress"]?.string }) == Set(strong), "\(body)")
    // Strongest first: strength 90 is -100 + 0.6 × 90 = -46 dBm, 71 is -57.4, sent as -58.
    let signals = aps.compactMap { $0["signalStrength"]?.number }
    #expect(signals.first == -46 && signals.last == -58 && signals == signals.sorted(by: >), "\(signals)")
    #expect(locd.stop() == 0)
  }

  /// NetworkManager 1.12 and later announce a scan's end: the device's LastScan changes
  /// (PropertiesChanged). The template's RequestScan does nothing and its device has no
  /// LastScan, so the test gives it one (dbusmock's AddProperty) and replaces RequestScan
  /// (AddMethod) by one that changes LastScan, as NetworkManager does when the scan ends.
  /// With ScanWait=1h only that change can end locd's wait within the test's patience.
  @Test(.enabled(if: installed, "needs dbus-daemon, busctl and python3-dbusmock"))
  func aScanIsReadWhenNetworkManagersLastScanChanges() throws {
    let bus = try PrivateSystemBus(policies: [Self.policy])
    let nm = try Self.networkManagerStandIn(on: bus)
    defer { nm.stop() }
    try Self.addWifi(
      bus, [("home", "home", "00:11:22:33:44:01", 80), ("next", "next", "00:11:22:33:44:02", 50)])
    let device = Self.device
    let wireless = "org.freedesktop.NetworkManager.Device.Wireless"
    try Self.mock(bus, device, "AddProperty", ["ssv", wireless, "LastScan", "x", "1000"])
    try Self.mock(
      bus, device, "AddMethod",
      [
        "sssss", wireless, "RequestScan", "a{sv}", "",
        "self.UpdateProperties('\(wireless)', {'LastScan': dbus.Int64(2000)})",
      ])
    let standIn = try GeolocateDaemonTests.StandIn(mode: "ok")
    let locd = try LocdProcess.withoutReceiver(
      config: "[Network]\nEnable=yes\nURL=\(standIn.url)\nScanWait=1h\n", environment: bus.environment)
    let s = try locd.waitForStatus(timeout: 20) { $0.position.provenance == .known(.wifi) }
    #expect(s.network?.count("requests") == 1 && s.network?.count("scans") == 1)
    let lastScan = try bus.busctl(["get-property", Self.nm, device, wireless, "LastScan"])
    #expect(lastScan.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "x 2000", "\(lastScan.stdout)")
    #expect(standIn.requests.count == 1)
    #expect(locd.stop() == 0)
  }

  /// wpa_supplicant signals ScanDone on the interface when a scan ends (the stand-in at once
  /// when asked to Scan): with ScanWait=1h only that signal can end locd's wait in time.
  @Test(.enabled(if: GeoCluePrograms.busInstalled, "needs dbus-daemon, busctl, python3-dbus and python3-gi"))
  func aSupplicantScanIsReadAtItsScanDone() throws {
    let bus = try PrivateSystemBus(policies: [SupplicantStandIn.policy])
    let supplicant = try SupplicantStandIn(
      on: bus,
      bss: """
        [{"bssid": "00:11:22:33:44:01", "ssid": "home", "signal": -48, "frequency": 2437, "age": 3},
         {"bssid": "00:11:22:33:44:02", "ssid": "office", "signal": -71, "frequency": 5180, "age": 1}]
        """)
    defer { supplicant.stop() }
    let standIn = try GeolocateDaemonTests.StandIn(mode: "ok")
    let locd = try LocdProcess.withoutReceiver(
      config: "[Network]\nEnable=yes\nURL=\(standIn.url)\nScanWait=1h\n", environment: bus.environment)
    let s = try locd.waitForStatus(timeout: 20) { $0.position.provenance == .known(.wifi) }
    #expect(s.network?.count("requests") == 1)
    #expect(supplicant.recorded.contains("Scan passive"))
    #expect(locd.stop() == 0)
  }

  /// where-am-i (geoclue's demo) and gammastep, the real programs, through locd's GeoClue2
  /// face get the Wi-Fi position, and the Manager offers STREET (6): no GNSS source at all.
  @Test(
    .enabled(if: installed, "needs dbus-daemon, busctl and python3-dbusmock"),
    .enabled(if: GeoCluePrograms.demosInstalled, "needs geoclue-2-demo"),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gammastep"), "needs gammastep"))
  func whereAmIAndGammastepGetTheWifiPositionThroughTheGeoClueFace() throws {
    let bus = try PrivateSystemBus(policies: [Self.policy, GeoClueBusTests.policy])
    let nm = try Self.networkManagerStandIn(on: bus)
    defer { nm.stop() }
    try Self.addWifi(
      bus, [("home", "home", "00:11:22:33:44:01", 80), ("next", "next", "00:11:22:33:44:02", 50)])
    let standIn = try GeolocateDaemonTests.StandIn(mode: "ok")
    let locd = try LocdProcess.withoutReceiver(
      config: "[GeoClue]\nEnable=yes\n[Network]\nEnable=yes\nURL=\(standIn.url)\n",
      environment: bus.environment)
    guard bus.waitForOwner("org.freedesktop.GeoClue2") else {
      throw HarnessError("locd did not take org.freedesktop.GeoClue2: \(locd.log)")
    }
    _ = try locd.waitForStatus(timeout: 20) { $0.position.provenance == .known(.wifi) }
    let level = try bus.busctl([
      "get-property", "org.freedesktop.GeoClue2", "/org/freedesktop/GeoClue2/Manager",
      "org.freedesktop.GeoClue2.Manager", "AvailableAccuracyLevel",
    ])
    #expect(level.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "u 6", "\(level.stdout)")
    let agent = try LinePeer(
      GeoCluePrograms.peer("geoclue-agent.py"), ["8", "yes"], environment: bus.environment,
      output: bus.directory + "/agent.out")
    defer { agent.stop() }
    guard agent.waitFor("ready") else { throw HarnessError("the agent did not register: \(agent.text)") }
    let out = try runClient(GeoCluePrograms.whereAmI, ["-t", "5", "-a", "8"], on: bus)
    // The stand-in's answer, printed with %f.
    #expect(out.contains("Latitude:    59.913900°"), "\(out)\n\(locd.log)")
    #expect(out.contains("Longitude:   10.752200°"), "\(out)")
    #expect(out.contains("Accuracy:    5000.000000 meters"), "\(out)")
    #expect(out.contains("Description: wifi"), "\(out)")
    // gammastep (the real program) asks for CITY: reduced accuracy, the centre of the
    // reduced grid's cell of the Wi-Fi position (docs/APPS.md), printed to two decimals.
    let centre = ReducedGrid.centre(ReducedGrid.cell(of: Coordinate(lat: 59.9139, lon: 10.7522)!))
    let expected = String(format: "Location: %.2f N, %.2f E", centre.latitude.value, centre.longitude.value)
    let colour = try runClient("/usr/bin/gammastep", ["-l", "geoclue2", "-p"], on: bus, timeout: 30)
    #expect(colour.contains(expected), "\(colour)\n\(locd.log)")
    #expect(locd.stop() == 0)
  }

  /// With the switch off nothing is asked of NetworkManager: no GetDevices, no RequestScan,
  /// however much a fix is wanted (a refresh, a locate).
  @Test(.enabled(if: installed, "needs dbus-daemon, busctl and python3-dbusmock"))
  func nothingIsScannedWhileTheSwitchIsOff() throws {
    let bus = try PrivateSystemBus(policies: [Self.policy])
    let nm = try Self.networkManagerStandIn(on: bus)
    defer { nm.stop() }
    let log = nm.log
    try Self.addWifi(bus, [])
    let locd = try LocdProcess.withoutReceiver(
      config: "[Network]\nEnable=no\nIPLookup=yes\n", environment: bus.environment)
    _ = try locd.locctl(["refresh"])
    _ = try locd.locctl(["locate", "--timeout", "1"])
    let s = try locd.status()
    #expect(s.network?.count("scans") == 0 && s.network?.count("requests") == 0)
    #expect(locd.stop() == 0)
    let calls = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    #expect(!calls.contains("GetDevices") && !calls.contains("RequestScan"), "\(calls)")
  }
}
