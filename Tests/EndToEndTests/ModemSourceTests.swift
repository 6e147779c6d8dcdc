import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// The real locd with a `modem:` source on a private bus configured like the system bus,
/// against the ModemManager stand-in (ModemStandIn.swift: no modem, so no real ModemManager,
/// can run here), checked through `locctl status` and the calls the stand-in recorded.
@Suite(.serialized) struct ModemSourceTests {
  static let imei = "867698041234567"

  struct Rig {
    let bus: PrivateSystemBus
    let mm: ModemStandIn
    let locd: LocdProcess

    init(
      source: String = "modem:", config: String = "", policies: [String] = [], managerFirst: Bool = true,
      prepare: (ModemStandIn) throws -> Void
    ) throws {
      bus = try PrivateSystemBus(policies: [ModemStandIn.policy] + policies)
      mm = ModemStandIn(bus: bus)
      if managerFirst {
        try mm.start()
        try prepare(mm)
      }
      locd = try LocdProcess(arguments: ["--source", source], environment: bus.environment, config: config)
    }
  }

  /// The shipped XML's members of `interface` as "kind name in out" words, read from the
  /// XML file (methods with their in and out signatures, signals with theirs, properties
  /// with their type).
  static func xmlMembers(_ interface: String) throws -> Set<String> {
    let text = try String(contentsOfFile: ModemStandIn.xmlDirectory + interface + ".xml", encoding: .utf8)
    var members = Set<String>()
    var current: (kind: String, name: String, ins: String, outs: String)?
    func attribute(_ tag: Substring, _ name: String) -> String? {
      guard let r = tag.range(of: " \(name)=\"") else { return nil }
      let rest = tag[r.upperBound...]
      return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
    for piece in text.split(separator: "<").dropFirst() {
      let tag = piece.prefix { $0 != ">" }
      let word = tag.prefix { $0 != " " && $0 != "/" && $0 != "\n" }
      switch word {
      case "method", "signal":
        if let c = current { members.insert("\(c.kind) \(c.name) \(c.ins) \(c.outs)") }
        current = (String(word), attribute(tag, "name") ?? "?", "", "")
        if tag.hasSuffix("/") {
          members.insert("\(word) \(current!.name)  ")
          current = nil
        }
      case "arg":
        let type = attribute(tag, "type") ?? "?"
        if current?.kind == "signal" || attribute(tag, "direction") != "out" {
          current?.ins += type
        } else {
          current?.outs += type
        }
      case "property":
        members.insert("property \(attribute(tag, "name") ?? "?") \(attribute(tag, "type") ?? "?") ")
      default:
        if tag.hasPrefix("/method") || tag.hasPrefix("/signal"), let c = current {
          members.insert("\(c.kind) \(c.name) \(c.ins) \(c.outs)")
          current = nil
        }
      }
    }
    return members
  }

  /// What `busctl introspect` says the stand-in serves of `interface` at `path`, as the same words.
  static func servedMembers(_ bus: PrivateSystemBus, _ path: String, _ interface: String) throws -> Set<
    String
  > {
    let r = try bus.busctl(["introspect", "org.freedesktop.ModemManager1", path, interface])
    guard r.status == 0 else { throw HarnessError("introspect \(path): \(r.stderr)") }
    var members = Set<String>()
    for line in r.stdout.split(separator: "\n") where line.hasPrefix(".") {
      let w = line.split(separator: " ", omittingEmptySubsequences: true)
      guard w.count >= 4 else { continue }
      let name = w[0].dropFirst()
      let sig = w[2] == "-" ? "" : String(w[2])
      switch w[1] {
      case "method": members.insert("method \(name) \(sig) \(w[3] == "-" ? "" : String(w[3]))")
      case "signal": members.insert("signal \(name) \(sig) ")
      case "property": members.insert("property \(name) \(sig) ")
      default: continue
      }
    }
    return members
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"))
  func standInServesTheShippedXMLMemberForMember() throws {
    let bus = try PrivateSystemBus(policies: [ModemStandIn.policy])
    let mm = ModemStandIn(bus: bus)
    try mm.start()
    try mm.addModem(0, equipment: Self.imei, capabilities: 7)
    let objects: [(String, String)] = [
      ("/org/freedesktop/ModemManager1", "org.freedesktop.ModemManager1"),
      ("/org/freedesktop/ModemManager1/Modem/0", "org.freedesktop.ModemManager1.Modem"),
      ("/org/freedesktop/ModemManager1/Modem/0", "org.freedesktop.ModemManager1.Modem.Location"),
    ]
    for (path, interface) in objects {
      let shipped = try Self.xmlMembers(interface)
      #expect(shipped.count > 3, "\(interface): the XML was read")
      #expect(try Self.servedMembers(bus, path, interface) == shipped, "\(interface)")
    }
    let om = try Self.servedMembers(
      bus, "/org/freedesktop/ModemManager1", "org.freedesktop.DBus.ObjectManager")
    #expect(
      om.contains("method GetManagedObjects  a{oa{sa{sv}}}")
        && om.contains("signal InterfacesAdded oa{sa{sv}} "))
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"))
  func statusShowsTheModemsFixItSleepsWakesAndGivesTheGPSBackOnStop() throws {
    // The modem has the cell id and GPS raw sources on already (Enabled 3, as another
    // program may have left them): Setup keeps the cell id source, and clears raw with the
    // other GPS bits when the GPS goes off. Its Location then also carries the 3GPP string
    // (read, not used) and GPS raw's a{sv} (skipped, counted).
    let cellAndRaw = ModemStandIn.cellID | ModemStandIn.gpsRaw
    let rig = try Rig(config: "[Acquisition]\nRefreshInterval=1h\n") { mm in
      try mm.addModem(0, equipment: Self.imei, capabilities: 7, enabled: cellAndRaw)
    }
    // A good stable fix: acquisition idle, the GPS switched off with the cell source kept.
    var s = try rig.locd.waitForStatus(timeout: 30) {
      $0.sourceState() == .known(.idle) && ($0.counters()["fixes"] ?? 0) >= 1
    }
    let first = try #require(rig.mm.setups.first)
    #expect(first.modem == 0 && first.sources == cellAndRaw | ModemStandIn.gpsNMEA && first.signal)
    #expect(s.sources.first?.uri == "modem:")
    // The log's receiver is near Seattle (47.66 N, 122.33 W; PROVENANCE.md).
    let lat = try #require(s.position.position?.coordinate.latitude.value)
    #expect(abs(lat - 47.662) < 0.01 && s.position.position?.source == "modem:")
    #expect(s.fix?.accuracy != nil)
    let text = try rig.locd.locctl(["status"]).stdout
    #expect(text.contains("modem:") && text.contains("idle"), "\(text)")
    #expect(s.counters()["gpsRunning"] == 0 && (s.counters()["traces"] ?? 0) >= 1)
    #expect(s.counters()["setupErrors"] == 0 && s.counters()["badChecksums"] == 0)
    #expect((s.counters()["skippedLocations"] ?? 0) >= 1, "GPS raw's a{sv}")
    #expect(rig.mm.setups.last.map { $0.sources == ModemStandIn.cellID } == true, "\(rig.mm.setups)")
    // An app's request: on again.
    let refreshed = try rig.locd.locctl(["refresh"])
    #expect(refreshed.status == 0, "\(refreshed.stderr)")
    s = try rig.locd.waitForStatus(timeout: 20) { _ in rig.mm.setups.count >= 3 }
    #expect(rig.mm.setups[1].sources == ModemStandIn.cellID, "off with the cell source kept")
    #expect(rig.mm.setups[2].sources == ModemStandIn.cellID | ModemStandIn.gpsNMEA)
    // Stopped while acquiring (a subscriber holds acquisition open): the GPS given back,
    // the cell source kept.
    _ = try rig.locd.waitForStatus(timeout: 30) { $0.sourceState() == .known(.idle) }
    let before = rig.mm.setups.count
    let watcher = try FixWatcher(rig.locd)
    defer { watcher.stop() }
    s = try rig.locd.waitForStatus(timeout: 20) { $0.sourceState() == .known(.connected) }
    #expect(
      rig.mm.setups.count == before + 1
        && rig.mm.setups.last?.sources == ModemStandIn.cellID | ModemStandIn.gpsNMEA)
    // ModemManager publishes the GPS values once per 30 s by default: locd asked for each
    // (0) once, and gives the 30 back at stop.
    #expect(rig.mm.refreshRates == [0], "\(rig.mm.refreshRates)")
    #expect(rig.locd.stop() == 0)
    #expect(rig.mm.refreshRates == [0, 30], "\(rig.mm.refreshRates)")
    #expect(rig.mm.setups.count == before + 2, "\(rig.mm.setups)")
    #expect(rig.mm.setups.last.map { $0.sources == ModemStandIn.cellID } == true, "\(rig.mm.setups)")
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"))
  func aModemVanishingMidFixIsSaidAndResumedWhenItComesBack() throws {
    let rig = try Rig(source: "modem:\(Self.imei)") { mm in
      try mm.addModem(0, equipment: Self.imei, capabilities: 7)
    }
    let watcher = try FixWatcher(rig.locd)  // holds acquisition open
    defer { watcher.stop() }
    _ = try rig.locd.waitForStatus(timeout: 20) { ($0.counters()["fixes"] ?? 0) >= 2 }
    try rig.mm.removeModem(0)
    var s = try rig.locd.waitForStatus { $0.counters()["modemsVanished"] == 1 }
    #expect(s.sources.first?.lastError?.contains("no modem") == true, "\(s.sources.first?.lastError ?? "")")
    #expect(s.sourceState() == .known(.starting))
    #expect(rig.locd.log.contains("is gone; waiting for it to come back"))
    let fixes = s.counters()["fixes"] ?? 0
    try rig.mm.addModem(0, equipment: Self.imei, capabilities: 7)
    s = try rig.locd.waitForStatus(timeout: 20) { ($0.counters()["fixes"] ?? 0) >= fixes + 2 }
    #expect(s.sourceState() == .known(.connected) && s.sources.first?.lastError == nil)
    #expect(rig.mm.setups.filter { $0.sources & ModemStandIn.gpsNMEA != 0 }.count == 2)
    #expect(s.counters()["modemsAppeared"] == 2)
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"))
  func modemManagerLeavingAndComingBackIsFollowed() throws {
    let rig = try Rig { mm in try mm.addModem(0, equipment: Self.imei, capabilities: 7) }
    let watcher = try FixWatcher(rig.locd)  // holds acquisition open
    defer { watcher.stop() }
    _ = try rig.locd.waitForStatus(timeout: 20) { ($0.counters()["fixes"] ?? 0) >= 2 }
    rig.mm.stop()  // the name is released: NameOwnerChanged
    var s = try rig.locd.waitForStatus { $0.counters()["managerVanished"] == 1 }
    #expect(s.sources.first?.lastError?.contains("is not on the system bus") == true)
    #expect(s.counters()["modems"] == 0 && s.sourceState() == .known(.starting))
    let fixes = s.counters()["fixes"] ?? 0
    try rig.mm.start()
    try rig.mm.addModem(0, equipment: Self.imei, capabilities: 7)
    s = try rig.locd.waitForStatus(timeout: 20) { ($0.counters()["fixes"] ?? 0) >= fixes + 2 }
    #expect(s.counters()["managerAppeared"] == 2 && s.sourceState() == .known(.connected))
    #expect(s.counters()["busConnections"] == 1, "the bus connection stayed")
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"))
  func locdStartedBeforeModemManagerWaitsForItAndItsModem() throws {
    let rig = try Rig(managerFirst: false) { _ in }
    var s = try rig.locd.waitForStatus {
      $0.sources.first?.lastError?.contains(
        "ModemManager (org.freedesktop.ModemManager1) is not on the system bus")
        == true
    }
    #expect(s.sourceState() == .known(.starting))
    try rig.mm.start()
    s = try rig.locd.waitForStatus { $0.counters()["managerAppeared"] == 1 }
    #expect(s.sources.first?.lastError?.contains("ModemManager has no modem; waiting for one") == true)
    try rig.mm.addModem(0, equipment: Self.imei, capabilities: 7)
    s = try rig.locd.waitForStatus(timeout: 20) { ($0.counters()["fixes"] ?? 0) >= 1 }
    #expect(rig.mm.setups.first?.sources == ModemStandIn.gpsNMEA)
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"))
  func setupFailingIsAClearErrorAndLocdKeepsServing() throws {
    let rig = try Rig { mm in
      try mm.addModem(0, equipment: Self.imei, capabilities: 7)
      try mm.failSetup(0, "GNSS engine busy")
    }
    let s = try rig.locd.waitForStatus(timeout: 20) { $0.counters()["setupErrors"] == 1 }
    let error = s.sources.first?.lastError ?? ""
    #expect(error.contains("Setup failed") && error.contains("GNSS engine busy"), "\(error)")
    #expect(s.sources.first?.fault?.kind == .known(.error))
    #expect(s.counters()["fixes"] == 0)
    #expect(rig.locd.log.contains("Setup failed"))
    let text = try rig.locd.locctl(["status"]).stdout
    #expect(text.contains("modem:") && text.contains("GNSS engine busy"), "\(text)")
    // Still serving; Setup is tried again (every 5 s) and works once the modem lets it.
    #expect(try rig.locd.locctl(["status"]).status == 0)
    try rig.mm.failSetup(0, "")
    let again = try rig.locd.waitForStatus(timeout: 20) { ($0.counters()["fixes"] ?? 0) >= 1 }
    #expect(again.sources.first?.lastError == nil && again.sourceState() == .known(.connected))
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"))
  func aModemWithoutGPSIsReportedNotUsedAndAnotherEquipmentIdIsIgnored() throws {
    let rig = try Rig { mm in try mm.addModem(0, equipment: Self.imei, capabilities: ModemStandIn.cellID) }
    let s = try rig.locd.waitForStatus(timeout: 20) { $0.counters()["modemsWithoutGPS"] == 1 }
    #expect(s.sources.first?.lastError?.contains("has no GPS NMEA location source; not used") == true)
    #expect(rig.mm.setups.isEmpty)
    rig.locd.stop()

    let other = try Rig(source: "modem:000000000000000") { mm in
      try mm.addModem(0, equipment: Self.imei, capabilities: 7)
    }
    let o = try other.locd.waitForStatus(timeout: 20) { $0.counters()["otherModems"] == 1 }
    #expect(o.counters()["modems"] == 0 && other.mm.setups.isEmpty)
    #expect(o.sources.first?.lastError?.contains("no modem with the equipment id asked for") == true)
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"))
  func garbageTracesAreCountedAndNothingIsAccepted() throws {
    let rig = try Rig { mm in
      try mm.addModem(0, equipment: Self.imei, capabilities: 7)
      try mm.garbage(0, true)
    }
    let s = try rig.locd.waitForStatus(timeout: 20) { ($0.counters()["traces"] ?? 0) >= 3 }
    let c = s.counters()
    #expect(c["fixes"] == 0 && c["sentences"] == 0)
    #expect((c["badChecksums"] ?? 0) + (c["junkBytes"] ?? 0) + (c["errors"] ?? 0) >= 3, "\(c)")
    #expect(s.position.position?.source != "modem:")
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"))
  func aModemThatDoesNotSignalIsAskedWithGetLocation() throws {
    let rig = try Rig { mm in
      try mm.addModem(0, equipment: Self.imei, capabilities: 7)
      try mm.signals(0, false)
    }
    let s = try rig.locd.waitForStatus(timeout: 20) { ($0.counters()["fixes"] ?? 0) >= 2 }
    #expect((s.counters()["locationPolls"] ?? 0) >= 3 && rig.mm.getLocations >= 3)
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(
      if: ModemStandIn.installed && GeoCluePrograms.demosInstalled,
      "needs dbus-daemon, busctl, python3-dbus, modemmanager-dev and geoclue-2-demo"))
  func whereAmIThroughTheGeoClueFaceGetsTheModemsPosition() throws {
    let rig = try Rig(config: "[GeoClue]\nEnable=yes\n", policies: [GeoClueAppsTests.policy]) { mm in
      try mm.addModem(0, equipment: Self.imei, capabilities: 7)
    }
    guard rig.bus.waitForOwner("org.freedesktop.GeoClue2") else {
      throw HarnessError("locd did not take org.freedesktop.GeoClue2: \(rig.locd.log)")
    }
    let agent = try LinePeer(
      GeoCluePrograms.peer("geoclue-agent.py"), ["8", "yes"], environment: rig.bus.environment,
      output: rig.bus.directory + "/agent.out")
    defer { agent.stop() }
    #expect(agent.waitFor("ready"), "\(agent.text)")
    // The log's receiver: 4739.7189 N 12219.5836 W, 47.66198 N 122.32639 W (RMC and GGA of
    // quectel-l76k-nmea.log), still to the fifth decimal over the log.
    let out = try runClient(GeoCluePrograms.whereAmI, ["-t", "10", "-a", "8"], on: rig.bus)
    #expect(out.contains("Latitude:    47.6619"), "\(out)\n\(rig.locd.log)")
    #expect(out.contains("Longitude:   -122.3263"), "\(out)")
    #expect(rig.mm.setups.first.map { $0.sources & ModemStandIn.gpsNMEA != 0 } == true)
  }
}
