import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// GNSS assistance for a modem, end to end: the real locd with a `modem:` source against the
/// ModemManager STAND-IN (ModemStandIn.swift; not ModemManager, which needs a modem), whose
/// modem takes XTRA data from the server it names and simulates a receiver's start (no fix
/// for a while: long cold, short once assisted), and the geolocate STAND-IN's local HTTP
/// server (GeolocateDaemonTests.StandIn) standing in for the assistance server: it serves
/// files/xtra2.bin and records every GET.
@Suite(.serialized) struct ModemAssistanceTests {
  static let imei = ModemSourceTests.imei

  /// The stand-in server with an assistance file of `size` made-up bytes.
  static func server(size: Int = 48_000) throws -> (GeolocateDaemonTests.StandIn, Data) {
    let standIn = try GeolocateDaemonTests.StandIn(mode: "ok")
    try FileManager.default.createDirectory(
      atPath: standIn.directory + "/files", withIntermediateDirectories: true)
    var generator = SystemRandomNumberGenerator()
    let file = Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
    try file.write(to: URL(fileURLWithPath: standIn.directory + "/files/xtra2.bin"))
    return (standIn, file)
  }

  static func sha256(_ data: Data, in directory: String) throws -> String {
    let path = directory + "/check.bin"
    try data.write(to: URL(fileURLWithPath: path))
    let r = try run(URL(fileURLWithPath: "/usr/bin/sha256sum"), [path])
    return String(r.stdout.prefix { $0 != " " })
  }

  static func config(enable: Bool, extra: String = "") -> String {
    "[Position]\nStaticFile=\n[Network]\nEnable=\(enable ? "yes" : "no")\nURL=http://127.0.0.1:9/v1/geolocate\n\(extra)"
  }

  static func gets(_ standIn: GeolocateDaemonTests.StandIn) -> [[String: Any]] {
    standIn.requests.filter { $0["method"] as? String == "GET" }
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"))
  func withTheSwitchOffNothingIsDownloadedOrInjected() throws {
    let (standIn, _) = try Self.server()
    let url = "http://127.0.0.1:\(standIn.port)/files/xtra2.bin"
    let rig = try ModemSourceTests.Rig(config: Self.config(enable: false)) { mm in
      try mm.setNewModemAssistance(types: 1, servers: [url], coldMs: 0, warmMs: 0)
      try mm.addModem(0, equipment: Self.imei, capabilities: ModemStandIn.gpsNMEA)
    }
    let s = try rig.locd.waitForStatus(timeout: 30) { ($0.counters()["fixes"] ?? 0) >= 1 }
    #expect(s.counters()["assistanceDownloads"] == 0 && s.counters()["assistanceGiven"] == 0)
    #expect(rig.mm.injections.isEmpty && rig.mm.logged("SetSuplServer").isEmpty)
    #expect(
      rig.mm.logged("GPSStart").first == ["GPSStart", "0", "COLD"], "the stand-in's receiver started cold")
    #expect(rig.locd.stop() == 0)
    #expect(standIn.requests.isEmpty, "\(standIn.requests)")
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"))
  func withTheSwitchOnTheFileIsFetchedAndInjectedBeforeTheGPSStarts() throws {
    let (standIn, file) = try Self.server()
    let url = "http://127.0.0.1:\(standIn.port)/files/xtra2.bin"
    let rig = try ModemSourceTests.Rig(config: Self.config(enable: true)) { mm in
      try mm.setNewModemAssistance(
        types: 1, servers: [url, "http://127.0.0.1:9/other.bin"], coldMs: 0, warmMs: 0)
      try mm.addModem(0, equipment: Self.imei, capabilities: ModemStandIn.gpsNMEA)
    }
    let s = try rig.locd.waitForStatus(timeout: 30) { ($0.counters()["fixes"] ?? 0) >= 1 }
    let get = try #require(Self.gets(standIn).first)
    #expect(Self.gets(standIn).count == 1 && get["path"] as? String == "/files/xtra2.bin")
    #expect((get["userAgent"] as? String)?.hasPrefix("locd/") == true)
    // Nothing but the GET: no cookie, no body, no header of the machine.
    let headers = Set((get["headers"] as? [String] ?? []).map { $0.lowercased() })
    #expect(headers.isSubset(of: ["host", "user-agent", "accept"]), "\(headers)")
    let injected = try #require(rig.mm.injections.first)
    #expect(rig.mm.injections.count == 1 && injected.modem == 0 && injected.size == file.count)
    #expect(injected.sha256 == (try Self.sha256(file, in: standIn.directory)))
    // The file went in before the GPS started.
    let lines = rig.mm.callLines
    let inject = try #require(lines.firstIndex { $0.hasPrefix("InjectAssistanceData ") })
    let gpsOn = try #require(lines.firstIndex { $0.hasPrefix("Setup 0 ") && $0.contains(" 4 ") })
    #expect(inject < gpsOn, "\(lines)")
    #expect(
      rig.mm.logged("GPSStart").first == ["GPSStart", "0", "WARM"], "the stand-in's receiver started assisted"
    )
    #expect(s.counters()["assistanceDownloads"] == 1 && s.counters()["assistanceGiven"] == 1)
    #expect(s.counters()["assistanceErrors"] == 0 && s.sources.first?.lastError == nil)
    #expect(rig.locd.stop() == 0)
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"))
  func aFailingDownloadIsCountedAndShownAndTheGPSStartsAllTheSame() throws {
    let (standIn, _) = try Self.server()
    // The server has no such file: 404.
    let url = "http://127.0.0.1:\(standIn.port)/files/missing.bin"
    let rig = try ModemSourceTests.Rig(config: Self.config(enable: true)) { mm in
      try mm.setNewModemAssistance(types: 1, servers: [url], coldMs: 0, warmMs: 0)
      try mm.addModem(0, equipment: Self.imei, capabilities: ModemStandIn.gpsNMEA)
    }
    let s = try rig.locd.waitForStatus(timeout: 30) { ($0.counters()["fixes"] ?? 0) >= 1 }
    #expect(s.counters()["assistanceErrors"] == 1 && s.counters()["assistanceGiven"] == 0)
    let error = try #require(s.sources.first?.lastError)
    #expect(error.contains("no GNSS assistance") && error.contains("HTTP status 404"), "\(error)")
    #expect(error.contains("the GPS started without it"))
    #expect(rig.mm.injections.isEmpty && Self.gets(standIn).count == 1)
    #expect(rig.mm.setups.contains { $0.sources & ModemStandIn.gpsNMEA != 0 })
    let text = try rig.locd.locctl(["status"]).stdout
    #expect(text.contains("no GNSS assistance"), "\(text)")
    #expect(rig.locd.stop() == 0)
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"))
  func aConfiguredSuplServerIsSetInsteadOfAnyDownload() throws {
    let (standIn, _) = try Self.server()
    let url = "http://127.0.0.1:\(standIn.port)/files/xtra2.bin"
    let agps: UInt32 = 1 << 6  // MM_MODEM_LOCATION_SOURCE_AGPS_MSB
    let rig = try ModemSourceTests.Rig(
      config: Self.config(enable: true, extra: "[Modem]\nSuplServer=supl.example.net:7275\n")
    ) { mm in
      try mm.setNewModemAssistance(types: 1, servers: [url], coldMs: 0, warmMs: 0)
      try mm.addModem(0, equipment: Self.imei, capabilities: ModemStandIn.gpsNMEA | agps)
    }
    let s = try rig.locd.waitForStatus(timeout: 30) { ($0.counters()["fixes"] ?? 0) >= 1 }
    #expect(
      rig.mm.logged("SetSuplServer").map { $0.dropFirst().joined(separator: " ") } == [
        "0 supl.example.net:7275"
      ])
    #expect(rig.mm.injections.isEmpty && Self.gets(standIn).isEmpty)
    #expect(rig.mm.setups.first?.sources == ModemStandIn.gpsNMEA | agps, "\(rig.mm.setups)")
    #expect(s.counters()["assistanceGiven"] == 1)
    #expect(rig.locd.stop() == 0)
  }
}
