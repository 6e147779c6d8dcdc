import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// The modems' serving cells in network positioning, end to end: the real locd with a
/// `modem:` source against the ModemManager STAND-IN (ModemStandIn.swift; it is not
/// ModemManager, which needs a modem) on a private bus configured like the system bus, and
/// the geolocate STAND-IN (GeolocateDaemonTests.StandIn: a local HTTP server speaking the
/// geolocate API, not a real service), which records every request. No NetworkManager is on
/// the private bus, so the Wi-Fi scan finds nothing: the cells are the lookup's networks.
@Suite(.serialized) struct ModemCellTests {
  static let imei = ModemSourceTests.imei

  static func config(_ standIn: GeolocateDaemonTests.StandIn, enable: Bool) -> String {
    """
    [Position]
    StaticFile=
    [Network]
    Enable=\(enable ? "yes" : "no")
    URL=\(standIn.url)
    MinInterval=1s
    Timeout=2s
    MaxAge=1s
    """
  }

  static func cells(_ request: [String: Any]) -> [[String: Any]]? {
    guard let body = request["body"] as? String,
      let json = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
    else { return nil }
    return json["cellTowers"] as? [[String: Any]]
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"))
  func withTheSwitchOnAModemsCellIsLookedUpAloneAndANewCellIsANewLookup() throws {
    let standIn = try GeolocateDaemonTests.StandIn(mode: "ok")
    // A modem without GNSS (Capabilities: 3GPP LAC/CI only): used for its cell alone.
    let rig = try ModemSourceTests.Rig(config: Self.config(standIn, enable: true)) { mm in
      try mm.addModem(0, equipment: Self.imei, capabilities: ModemStandIn.cellID)
    }
    let s = try rig.locd.waitForStatus(timeout: 30) { $0.position.provenance == .known(.cell) }
    #expect(s.position.tier == .fix && s.position.position?.accuracy == Meters(5000))
    // Its cell in use is the source's work: connected, nothing wrong.
    let cellSource = try rig.locd.waitForStatus(timeout: 10) { $0.sourceState() == .known(.connected) }
    #expect(cellSource.sources.first?.lastError == nil && cellSource.sources.first?.fault == nil)
    let setup = try #require(rig.mm.setups.first)
    #expect(setup.modem == 0 && setup.sources == ModemStandIn.cellID && setup.signal, "\(rig.mm.setups)")
    // Before the modem's cell is read there is nothing to send but the address: the IP
    // lookup (the last network tier under the one switch, decision 0068) may come first.
    let bodies = standIn.requests.compactMap { ($0["body"] as? String).flatMap { try? JSON.parse($0) } }
    let firstCell = try #require(bodies.firstIndex { $0["cellTowers"] != nil }, "\(standIn.requests)")
    #expect(bodies[..<firstCell].allSatisfy { $0.object?.keys == ["considerIp"] }, "\(bodies)")
    let body = bodies[firstCell]
    #expect(body.object?.keys.sorted() == ["cellTowers", "considerIp"], "\(body)")
    #expect(body["considerIp"] == .bool(false))
    // The stand-in's cell: "242,01,FFFE,1A2B3C4,A1" on LTE, so the area is the TAC.
    let cell = try #require(body["cellTowers"]?.array?.first)
    #expect(body["cellTowers"]?.array?.count == 1)
    #expect(cell["radioType"] == .string("lte") && cell["mobileCountryCode"] == .number(242))
    #expect(cell["mobileNetworkCode"] == .number(1) && cell["locationAreaCode"] == .number(0xA1))
    #expect(cell["cellId"] == .number(0x1A2B3C4))
    #expect(cell.object?.keys.count == 5, "\(cell)")
    #expect(s.counters()["cellsRead"] == 1 && s.counters()["badCells"] == 0)
    // The modem moves to another cell: MaxAge= (1 s) past, a new lookup with it.
    try rig.mm.setCell(0, "242,01,FFFE,1A2B3C5,A1")
    _ = try rig.locd.waitForStatus(timeout: 20) { _ in
      standIn.requests.contains { Self.cells($0)?.first?["cellId"] as? Int == 0x1A2B3C5 }
    }
    // Garbage from the modem: counted, no cell, locd goes on serving.
    try rig.mm.setCell(0, "242,01,XYZ,1A2B3C6")
    let bad = try rig.locd.waitForStatus(timeout: 10) { $0.counters()["badCells"] == 1 }
    #expect(bad.sourceState() == .known(.starting) && bad.counters()["cellsRead"] == 3)
    #expect(bad.sources.first?.lastError?.contains("no serving cell to use now") == true)
    #expect(!standIn.requests.contains { Self.cells($0)?.first?["cellId"] as? Int == 0x1A2B3C6 })
    #expect(rig.locd.stop() == 0)
    // Stopped: locd turned the 3GPP source on, so it turns it off. locd sends that Setup
    // before it exits; the stand-in writes a call down when it handles it, which on a loaded
    // machine can be after locd is gone (the run of 2026-12-07 read the list too early).
    let deadline = Date().addingTimeInterval(10)
    while rig.mm.setups.last?.sources != 0 && Date() < deadline { usleep(20_000) }
    #expect(rig.mm.setups.last.map { $0.sources == 0 } == true, "\(rig.mm.setups)")
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"))
  func withTheSwitchOnAGNSSModemIsSetUpWithItsCellToo() throws {
    let standIn = try GeolocateDaemonTests.StandIn(mode: "ok")
    let rig = try ModemSourceTests.Rig(config: Self.config(standIn, enable: true)) { mm in
      try mm.addModem(0, equipment: Self.imei, capabilities: ModemStandIn.cellID | ModemStandIn.gpsNMEA)
    }
    _ = try rig.locd.waitForStatus(timeout: 30) { ($0.counters()["fixes"] ?? 0) >= 1 }
    let first = try #require(rig.mm.setups.first)
    #expect(first.sources == ModemStandIn.cellID | ModemStandIn.gpsNMEA, "\(rig.mm.setups)")
    #expect(rig.locd.stop() == 0)
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"))
  func withTheSwitchOffNoCellIsReadOrSent() throws {
    let standIn = try GeolocateDaemonTests.StandIn(mode: "ok")
    let rig = try ModemSourceTests.Rig(config: Self.config(standIn, enable: false)) { mm in
      try mm.addModem(0, equipment: Self.imei, capabilities: ModemStandIn.cellID | ModemStandIn.gpsNMEA)
      try mm.addModem(1, equipment: "867698049999999", capabilities: ModemStandIn.cellID)
    }
    let s = try rig.locd.waitForStatus(timeout: 30) { ($0.counters()["fixes"] ?? 0) >= 1 }
    _ = try rig.locd.locctl(["refresh"])
    // The GNSS modem's Setup has GPS NMEA alone; the cell-only modem is not set up at all.
    #expect(!rig.mm.setups.isEmpty && rig.mm.setups.allSatisfy { $0.modem == 0 && $0.sources & 1 == 0 })
    #expect(s.counters()["cellsRead"] == 0 && s.network?.count("requests") == 0)
    #expect(rig.locd.stop() == 0)
    #expect(standIn.requests.isEmpty, "\(standIn.requests)")
  }
}
