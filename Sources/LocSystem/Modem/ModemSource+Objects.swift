import LocCore

/// ModemManager's modems: GetManagedObjects, InterfacesAdded, InterfacesRemoved and
/// PropertiesChanged of Modem and Modem.Location.
extension ModemSource {
  typealias Properties = [String: BusMessage.PropertyValue]
  static var interfaces: Set<String> { [modemInterface, locationInterface] }

  /// GetManagedObjects on /org/freedesktop/ModemManager1.
  func readObjects() {
    guard let bus else { return }
    phase = .readingObjects
    let epoch = presence.epoch
    do {
      try bus.call(
        destination: Self.busName, path: Self.root, interface: "org.freedesktop.DBus.ObjectManager",
        member: "GetManagedObjects"
      ) { [weak self] reply in
        guard let self, self.presence.epoch == epoch, self.phase == .readingObjects else { return }
        self.objectsRead(reply)
      }
    } catch {
      lost("cannot ask ModemManager for its modems: \(error)")
    }
  }

  private func objectsRead(_ reply: BusMessage) {
    phase = .ready
    if let problem = reply.errorText {
      counters.badMessages += 1
      log(.warning, "ModemManager did not list its modems (\(problem)); waiting for one to appear")
      report()
      return
    }
    var found: [(String, [String: Properties])] = []
    do {
      try reply.readManagedObjects(Self.interfaces) { path, interfaces in found.append((path, interfaces)) }
    } catch {
      counters.badMessages += 1
      log(.warning, "cannot read ModemManager's modems: \(error)")
    }
    for (path, interfaces) in found.sorted(by: { $0.0 < $1.0 }) { added(path, interfaces) }
    if modems.isEmpty { log(.notice, "ModemManager has \(wantedModem); waiting for one") }
    report()
  }

  /// "no modem", or "no modem with that equipment id" when one was asked for.
  var wantedModem: String { equipment == nil ? "no modem" : "no modem with the equipment id asked for" }

  /// A modem's interfaces appeared (all at once from GetManagedObjects, or one by one as
  /// ModemManager exports them).
  private func added(_ path: String, _ interfaces: [String: Properties]) {
    let modem: ModemGNSS
    let isNew = modems[path] == nil
    if let known = modems[path] {
      modem = known
      if let m = interfaces[Self.modemInterface] { known.takeModem(m) }
    } else {
      guard let properties = interfaces[Self.modemInterface] else { return }
      modem = newModem(path)
      modem.takeModem(properties)
      if let equipment, modem.equipment != equipment {
        counters.otherModems += 1
        log(.debug, "\(modem.name) has equipment id \(modem.equipment), not \(equipment); not used")
        retire(modem)
        return
      }
      modems[path] = modem
      counters.modemsAppeared += 1
      log(.debug, "\(modem.name) has equipment id \(modem.equipment)")
    }
    let wasGPS = modem.hasGPS
    modem.takeLocation(interfaces[Self.locationInterface] ?? [:])
    if case .locations(let entries, _)? = interfaces[Self.locationInterface]?["Location"] {
      take(entries, of: modem)
    }
    if modem.hasGPS && !wasGPS {
      log(.info, "\(modem.name) appeared, with a GNSS giving NMEA")
    } else if !modem.hasGPS && isNew {
      log(.notice, "\(modem.name) has no GPS NMEA location source; not used")
    }
    reconcile()
    report()
  }

  private func newModem(_ path: String) -> ModemGNSS {
    counters.nextSerial += 1
    let live = LiveDecoder(
      loop: loop, gpsdJSON: false, onSky: { [unowned self] sky in self.sink.sky(sky, self.id) }
    ) { [unowned self] fix, start in self.sink.fix(fix, self.id, nil, start) }
    live.relay = { [unowned self] line in self.sink.sentence(line, self.id) }
    live.assemblesSkies = sink.now.skiesWanted()
    let modem = ModemGNSS(path: path, serial: counters.nextSerial, live: live)
    live.logSilences(of: "source \(uri) \(modem.name)", to: sink.log) { [unowned self] in self.report() }
    return modem
  }

  /// Whether `m` comes from ModemManager as it is now.
  private func fromManager(_ m: BusMessage) -> Bool {
    guard let owner else { return false }
    return m.isFrom(owner)
  }

  /// InterfacesAdded(o, a{sa{sv}}).
  func interfacesAdded(_ m: BusMessage) {
    guard fromManager(m), phase == .ready else { return }
    do {
      let path = try m.readText(BusMessage.Code.objectPath)
      added(path, try m.readInterfaces(Self.interfaces))
    } catch {
      counters.badMessages += 1
    }
  }

  /// InterfacesRemoved(o, as): the modem gone, or its Location interface.
  func interfacesRemoved(_ m: BusMessage) {
    guard fromManager(m), phase == .ready else { return }
    let path: String
    let interfaces: [String]
    do {
      path = try m.readText(BusMessage.Code.objectPath)
      interfaces = try m.readStrings()
    } catch {
      counters.badMessages += 1
      return
    }
    guard let modem = modems[path] else { return }
    if interfaces.contains(Self.modemInterface) {
      counters.modemsVanished += 1
      log(.warning, "\(modem.name) is gone; waiting for it to come back")
      modems[path] = nil
      retire(modem)
      if modem.cells.tower != nil { sendCells() }
    } else if interfaces.contains(Self.locationInterface) {
      log(.notice, "\(modem.name) no longer has a location interface")
      modem.live.end()
      modem.takeLocation(["Capabilities": .uint32(0), "Enabled": .uint32(0)])
    }
    reconcile()
    report()
  }

  /// PropertiesChanged(s, a{sv}, as) of a modem's Modem or Modem.Location.
  func propertiesChanged(_ m: BusMessage) {
    guard fromManager(m), phase == .ready, let path = m.path, let modem = modems[path] else { return }
    do {
      let interface = try m.readText()
      let changed = try m.readProperties()
      if interface == Self.modemInterface {
        // A modem enabled after a failed Setup (ModemManager refuses one before): try again.
        if modem.takeModem(changed), case .failed = modem.phase { modem.phase = .off }
      } else if interface == Self.locationInterface {
        if case .locations(let entries, let skipped)? = changed["Location"], changed.count == 1 {
          // A receiver cycle's trace, once a second: decoded, nothing else changed, no
          // report (status reads the counters when it is asked).
          counters.locations.skipped += skipped
          take(entries, of: modem)
          return
        }
        let hadGPS = modem.hasGPS
        modem.takeLocation(changed)
        if hadGPS != modem.hasGPS {
          log(.notice, "\(modem.name) \(modem.hasGPS ? "gained" : "lost") GPS NMEA")
        }
        if case .locations(let entries, let skipped)? = changed["Location"] {
          counters.locations.skipped += skipped
          take(entries, of: modem)
        }
      } else {
        return
      }
    } catch {
      counters.badMessages += 1
      return
    }
    reconcile()
    report()
  }

  /// A Location value: its 3GPP string read (`takeCell`), and its NMEA trace (sentences
  /// separated by CR LF) decoded while the GPS runs for locd; the same trace again is skipped.
  func take(_ entries: [UInt32: String], of modem: ModemGNSS) {
    takeCell(entries[ModemLocationSources.cellID.rawValue], of: modem)
    guard modem.phase == .running, let trace = entries[ModemLocationSources.gpsNMEA.rawValue] else { return }
    guard trace != modem.lastTrace else {
      counters.locations.repeatedTraces += 1
      return
    }
    modem.lastTrace = trace
    counters.locations.traces += 1
    var bytes = Array(trace.utf8)
    // The last sentence ends like the others, so the framer delivers it now.
    if !trace.hasSuffix("\n") { bytes += [0x0D, 0x0A] }
    bytes.withUnsafeBytes { modem.live.feed($0) }
  }
}
