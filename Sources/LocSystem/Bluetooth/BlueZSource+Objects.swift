import LocCore

/// BlueZ's objects: the adapter locd uses and its devices, from GetManagedObjects and the
/// ObjectManager and Properties signals.
extension BlueZSource {
  typealias Properties = [String: BusMessage.PropertyValue]

  /// GetManagedObjects on BlueZ's root: picks the adapter and reads every device under it.
  func readObjects() {
    guard let bus else { return }
    phase = .readingObjects
    let epoch = self.epoch
    do {
      try bus.call(
        destination: Self.busName, path: "/", interface: "org.freedesktop.DBus.ObjectManager",
        member: "GetManagedObjects"
      ) { [weak self] reply in
        guard let self, self.epoch == epoch, self.phase == .readingObjects else { return }
        self.objectsRead(reply)
      }
    } catch {
      lost("cannot ask BlueZ for its objects: \(error)")
    }
  }

  private func objectsRead(_ reply: BusMessage) {
    if let problem = reply.errorText {
      // BlueZ leaving between the two is seen through NameOwnerChanged; anything else is
      // a BlueZ this source cannot use.
      counters.badMessages += 1
      log(.warning, "BlueZ did not list its objects (\(problem)); waiting for an adapter to appear")
      phase = .noAdapter
      report()
      return
    }
    var adapters: [String: Properties] = [:]
    var found: [(String, Properties)] = []
    do {
      try reply.readManagedObjects([Self.adapterInterface, Self.deviceInterface]) { path, interfaces in
        if let a = interfaces[Self.adapterInterface] { adapters[path] = a }
        if let d = interfaces[Self.deviceInterface] { found.append((path, d)) }
      }
    } catch {
      counters.badMessages += 1
      log(.warning, "cannot read BlueZ's objects: \(error)")
    }
    guard let path = presence.chooseAdapter(Array(adapters.keys)) else {
      phase = .noAdapter
      log(
        .notice, "BlueZ has no \(adapterName.map { "adapter \($0)" } ?? "Bluetooth adapter"); waiting for one"
      )
      report()
      return
    }
    adopt(path, adapters[path] ?? [:])
    for (device, properties) in found.sorted(by: { $0.0 < $1.0 }) where isOurs(device) {
      deviceAdded(device, properties)
    }
    report()
  }

  private func adopt(_ path: String, _ properties: Properties) {
    presence.adopt(path, powered: properties["Powered"] == .bool(true))
    phase = .ready
    log(.info, "using adapter \(path.dropFirst(11))\(presence.adapterPowered ? "" : " (powered off)")")
    reconcileDiscovery()
  }

  /// Whether `path` is a device of the adapter in use.
  func isOurs(_ path: String) -> Bool { presence.isOurs(path) }

  private func deviceAdded(_ path: String, _ properties: Properties) {
    if let sighting = devices.added(path, changes(properties, invalidated: [])) {
      sink.sighting(sighting, id)
    }
  }

  /// Device1 properties as the table takes them; values of the wrong type are counted.
  func changes(_ properties: Properties, invalidated: [String]) -> [BlueZDeviceTable.Change] {
    var out: [BlueZDeviceTable.Change] = []
    for (name, value) in properties {
      switch (name, value) {
      case ("Address", .string(let text)):
        if let address = BluetoothAddress(text) {
          out.append(.address(address))
        } else {
          counters.badMessages += 1
        }
      case ("RSSI", .int16(let n)): out.append(.rssi(DecibelMilliwatts(Int(n))))
      case ("ManufacturerData", .manufacturerData(let entries, let skipped)):
        // An entry of the wrong type (or past a limit) is counted; the others are read.
        if skipped > 0 { counters.badMessages += 1 }
        out.append(.manufacturerData(entries))
      case ("Address", _), ("RSSI", _), ("ManufacturerData", _): counters.badMessages += 1
      default: continue
      }
    }
    for name in invalidated {
      if name == "RSSI" { out.append(.rssiGone) }
      if name == "ManufacturerData" { out.append(.manufacturerDataGone) }
    }
    return out
  }

  /// Whether `m` comes from BlueZ as it is now.
  private func fromBlueZ(_ m: BusMessage) -> Bool {
    guard let owner else { return false }
    return m.isFrom(owner)
  }

  /// InterfacesAdded(o, a{sa{sv}}): a device of the adapter, or the adapter awaited.
  func interfacesAdded(_ m: BusMessage) {
    guard fromBlueZ(m) else { return }
    let path: String
    let interfaces: [String: Properties]
    do {
      path = try m.readText(BusMessage.Code.objectPath)
      interfaces = try m.readInterfaces([Self.adapterInterface, Self.deviceInterface])
    } catch {
      counters.badMessages += 1
      return
    }
    if phase == .noAdapter, let adapter = interfaces[Self.adapterInterface],
      presence.chooseAdapter([path]) != nil
    {
      adopt(path, adapter)
      report()
    } else if phase == .ready, let device = interfaces[Self.deviceInterface], isOurs(path) {
      deviceAdded(path, device)
    }
  }

  /// InterfacesRemoved(o, as): a device gone, or the adapter.
  func interfacesRemoved(_ m: BusMessage) {
    guard fromBlueZ(m), phase == .ready else { return }
    let path: String
    let interfaces: [String]
    do {
      path = try m.readText(BusMessage.Code.objectPath)
      interfaces = try m.readStrings()
    } catch {
      counters.badMessages += 1
      return
    }
    if path == adapterPath && interfaces.contains(Self.adapterInterface) {
      counters.adapterLost += 1
      log(.warning, "adapter \(path.dropFirst(11)) is gone; waiting for it to come back")
      forgetAdapter()
      // Another adapter may serve as the default one: read the objects again.
      readObjects()
      report()
    } else if interfaces.contains(Self.deviceInterface) && isOurs(path) {
      devices.removed(path)
    }
  }

  /// PropertiesChanged(s, a{sv}, as) of a device of the adapter, or of the adapter. With
  /// DuplicateData this comes for every advertisement: a device's are read straight into
  /// table changes, skipping the properties that do not matter here.
  func propertiesChanged(_ m: BusMessage) {
    guard fromBlueZ(m), phase == .ready, let path = m.path else { return }
    do {
      let interface = try m.readText()
      if interface == Self.deviceInterface, isOurs(path) {
        var found: Properties = [:]
        try m.forEachProperty { name throws(Errno) in
          if name == "RSSI" || name == "ManufacturerData" || name == "Address" {
            found[name] = try m.readPropertyValue()
          } else {
            try m.skipVariant()
          }
        }
        if let sighting = devices.changed(path, changes(found, invalidated: try m.readStrings())) {
          sink.sighting(sighting, id)
        }
      } else if interface == Self.adapterInterface, path == adapterPath {
        adapterChanged(path, try m.readProperties())
      }
    } catch {
      counters.badMessages += 1
    }
  }

  /// PropertiesChanged of the adapter: Powered.
  private func adapterChanged(_ path: String, _ changed: Properties) {
    guard case .bool(let on) = changed["Powered"] else { return }
    let was = presence.adapterPowered
    presence.adapterPowered = on
    if on && !was {
      log(.info, "adapter \(path.dropFirst(11)) powered on")
      discoveryRetry?.cancel()
      discoveryRetry = nil
      reconcileDiscovery()
    } else if !on && was {
      // BlueZ ends every discovery session when the adapter powers off.
      log(.notice, "adapter \(path.dropFirst(11)) powered off")
      presence.newEpoch()
      discovery.ended()
    }
    report()
  }
}
