import Foundation
import Glibc

// No modem exists on the build machine, so no real ModemManager can run (it probes devices
// and owns its name only with one). The ModemManager the tests use is a stand-in,
// Tests/Peers/modemmanager-stand-in.py (python3-dbus): it serves ModemManager 1.20's
// interfaces as the XML of Debian's modemmanager-dev declares them (checked member for
// member by `ModemSourceTests.standInServesTheShippedXMLMemberForMember`), Setup and
// GetLocation behaving as ModemManager's do, and it plays a real receiver's NMEA log (a
// Quectel L76K, Tests/Fixtures/nmea/PROVENANCE.md) one receiver cycle a second as Location
// updates. It is NOT ModemManager.

/// The ModemManager stand-in on a `PrivateSystemBus`, driven through its test interface.
final class ModemStandIn {
  static let policy = Binaries.packageRoot.path + "/Tests/Peers/modemmanager-stand-in.conf"
  static let xmlDirectory = "/usr/share/dbus-1/interfaces/"
  /// Whether the bus tools, python3-dbus and modemmanager-dev's XML are installed.
  static let installed: Bool =
    GeoCluePrograms.busInstalled
    && FileManager.default.fileExists(
      atPath: xmlDirectory + "org.freedesktop.ModemManager1.Modem.Location.xml")
  /// MMModemLocationSource bits (ModemManager-enums.h).
  static let cellID: UInt32 = 1
  static let gpsRaw: UInt32 = 2
  static let gpsNMEA: UInt32 = 4

  let bus: PrivateSystemBus
  let calls: String
  private var peer: LinePeer?

  init(bus: PrivateSystemBus) {
    self.bus = bus
    calls = bus.directory + "/modem-calls.log"
  }

  deinit { stop() }

  /// Starts it playing `log`: a fixture's path under Tests/Fixtures, or an absolute path.
  func start(log: String = "nmea/quectel-l76k-nmea.log") throws {
    let path = log.hasPrefix("/") ? log : Binaries.packageRoot.path + "/Tests/Fixtures/" + log
    let peer = try LinePeer(
      GeoCluePrograms.peer("modemmanager-stand-in.py"),
      [path, calls], environment: bus.environment,
      output: bus.directory + "/modem-stand-in.out")
    self.peer = peer
    guard peer.waitFor("ready") else {
      throw HarnessError("the ModemManager stand-in did not start: \(peer.text)")
    }
  }

  func stop() {
    peer?.stop()
    peer = nil
  }

  /// A call to the stand-in's test interface.
  func control(_ member: String, _ arguments: [String]) throws {
    let r = try bus.busctl(
      ["call", "--", "org.freedesktop.ModemManager1", "/org/locd/test", "org.locd.test.ModemStandIn", member]
        + arguments)
    guard r.status == 0 else { throw HarnessError("\(member): \(r.stderr)") }
  }

  /// Modem `number` with `equipment`, its Location Capabilities and Enabled, announced with
  /// InterfacesAdded.
  func addModem(_ number: Int, equipment: String, capabilities: UInt32, enabled: UInt32 = 0) throws {
    try control("AddModem", ["usuu", "\(number)", equipment, "\(capabilities)", "\(enabled)"])
  }

  /// `addModem`, the modem's Ports (name under /dev, MMModemPortType: 5 is GPS) given.
  func addModem(
    _ number: Int, equipment: String, capabilities: UInt32, enabled: UInt32 = 0, ports: [(String, UInt32)]
  ) throws {
    try control(
      "AddModemWithPorts",
      ["usuua(su)", "\(number)", equipment, "\(capabilities)", "\(enabled)", "\(ports.count)"]
        + ports.flatMap { [$0.0, "\($0.1)"] })
  }

  /// Modem `number` gone (InterfacesRemoved of Modem and Modem.Location).
  func removeModem(_ number: Int) throws { try control("RemoveModem", ["u", "\(number)"]) }

  /// Setup on modem `number` fails with org.freedesktop.ModemManager1.Error.Core.Failed and `text` ("" works).
  func failSetup(_ number: Int, _ text: String) throws {
    try control("SetSetupError", ["us", "\(number)", text])
  }

  /// Modem `number`'s traces are garbage (bad checksums, junk) instead of the log's.
  func garbage(_ number: Int, _ on: Bool) throws {
    try control("SetGarbage", ["ub", "\(number)", on ? "true" : "false"])
  }

  /// Modem `number` ignores signal_location: SignalsLocation stays false, nothing is signalled.
  func signals(_ number: Int, _ on: Bool) throws {
    try control("SetSignals", ["ub", "\(number)", on ? "true" : "false"])
  }

  /// Modem `number`'s serving cell, the 3GPP string ModemManager would give ("" unregistered).
  func setCell(_ number: Int, _ text: String) throws { try control("SetCell", ["us", "\(number)", text]) }

  /// Modems added from now on take XTRA data (`types` 1) from `servers`, and their receiver
  /// has its first fix `coldMs` after the GPS starts, or `warmMs` once assisted (a
  /// simulation of a receiver's start: the stand-in's traces carry no fix until then).
  func setNewModemAssistance(types: UInt32, servers: [String], coldMs: Int, warmMs: Int) throws {
    try control(
      "SetNewModemAssistance",
      ["uasuu", "\(types)", "\(servers.count)"] + servers + ["\(coldMs)", "\(warmMs)"])
  }

  /// The call log's lines that begin with `word`, split into words.
  func logged(_ word: String) -> [[String]] {
    let text = (try? String(contentsOfFile: calls, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }.filter {
      $0.first == word
    }
  }

  /// The InjectAssistanceData calls so far: (modem, size, SHA-256 in hex).
  var injections: [(modem: Int, size: Int, sha256: String)] {
    logged("InjectAssistanceData").compactMap { w in
      guard w.count == 4, let m = Int(w[1]), let n = Int(w[2]) else { return nil }
      return (m, n, w[3])
    }
  }

  /// The whole call log, one call a line, in order.
  var callLines: [String] {
    ((try? String(contentsOfFile: calls, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }

  /// The Setup calls so far, as (modem, sources, signal_location) in order.
  var setups: [(modem: Int, sources: UInt32, signal: Bool)] {
    let text = (try? String(contentsOfFile: calls, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
      let w = line.split(separator: " ")
      guard w.count == 4, w[0] == "Setup", let m = Int(w[1]), let s = UInt32(w[2]) else { return nil }
      return (m, s, w[3] == "true")
    }
  }

  /// The SetGpsRefreshRate calls so far, as rates in order.
  var refreshRates: [UInt32] {
    let text = (try? String(contentsOfFile: calls, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
      let w = line.split(separator: " ")
      return w.count == 3 && w[0] == "SetGpsRefreshRate" ? UInt32(w[2]) : nil
    }
  }

  /// How many GetLocation calls were made.
  var getLocations: Int {
    let text = (try? String(contentsOfFile: calls, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").filter { $0.hasPrefix("GetLocation ") }.count
  }
}
