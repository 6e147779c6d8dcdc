import Foundation
import Glibc
import LocCore

// No Bluetooth controller exists on the build machine, so no real bluetoothd can run. The
// BlueZ the tests use is a stand-in that speaks BlueZ's D-Bus interface on a private bus
// configured like the system bus: python3-dbusmock's bluez5 template (Debian
// python3-dbusmock), which publishes org.bluez with its ObjectManager, adapters
// (org.bluez.Adapter1 with SetDiscoveryFilter, StartDiscovery, StopDiscovery, RemoveDevice)
// and devices, and records every method call (org.freedesktop.DBus.Mock.GetCalls).
//
// What the template does not do by itself is done through its mock interface, as BlueZ
// would do it: a device found during discovery is an object with Address, Adapter, RSSI and
// ManufacturerData (Mock.AddObject) announced by one InterfacesAdded; an advertisement is one
// PropertiesChanged carrying RSSI and ManufacturerData (Mock.EmitSignal), which is what
// BlueZ sends with DuplicateData (its properties are batched per main-loop iteration).

/// python3-dbusmock's bluez5 template on a `PrivateSystemBus`, driven with busctl.
final class BlueZStandIn {
  static let python = "/usr/bin/python3"
  /// Whether python3-dbusmock (with its bluez5 template) and the bus tools are installed.
  static let installed: Bool = {
    guard GeoCluePrograms.busInstalled else { return false }
    return (try? run(URL(fileURLWithPath: python), ["-c", "import dbusmock.templates.bluez5"]))?.status == 0
  }()
  /// The D-Bus policy the stand-in needs on a bus configured like the system bus: what
  /// Debian's bluez package installs in /etc/dbus-1/system.d/bluetooth.conf, as far as locd
  /// is concerned (root owns org.bluez; anyone may call it).
  static let policy = Binaries.packageRoot.path + "/Tests/Peers/bluez-stand-in.conf"

  let bus: PrivateSystemBus
  private var child: Child?

  init(bus: PrivateSystemBus) {
    self.bus = bus
  }

  deinit { stop(signal: SIGKILL) }

  /// Starts the template and waits for it to own org.bluez.
  func start() throws {
    let log = bus.directory + "/bluez-stand-in.log"
    let fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    defer { close(fd) }
    child = try Child(
      Self.python, ["-m", "dbusmock", "--system", "--template", "bluez5"], environment: bus.environment,
      stdoutFD: fd, stderrFD: fd)
    guard bus.waitForOwner("org.bluez") else { throw HarnessError("the BlueZ stand-in did not start") }
  }

  /// Ends the stand-in (`SIGKILL`: as bluetoothd crashing) and waits until org.bluez has no owner.
  func stop(signal: Int32 = SIGTERM) {
    guard let child else { return }
    if child.isRunning { kill(child.pid, signal) }
    child.wait(timeout: 5)
    self.child = nil
  }

  /// busctl call on org.bluez; fails the test's step when the call fails.
  @discardableResult func call(_ path: String, _ interface: String, _ member: String, _ arguments: [String])
    throws -> String
  {
    let r = try bus.busctl(["call", "--", "org.bluez", path, interface, member] + arguments)
    guard r.status == 0 else { throw HarnessError("\(member) on \(path): \(r.stderr)") }
    return r.stdout
  }

  /// Adds adapter `name` (Mock AddAdapter: powered, announced with InterfacesAdded).
  func addAdapter(_ name: String) throws {
    try call("/", "org.bluez.Mock", "AddAdapter", ["ss", name, "stand-in"])
  }

  /// Removes adapter `name` and its devices (InterfacesRemoved for each).
  func removeAdapter(_ name: String) throws {
    try call("/", "org.bluez.Mock", "RemoveAdapterWithDevices", ["s", name])
  }

  /// The object path BlueZ gives a device (`dev_AA_BB_...` under its adapter).
  static func path(_ adapter: String, _ address: String) -> String {
    "/org/bluez/\(adapter)/dev_" + address.uppercased().replacingOccurrences(of: ":", with: "_")
  }

  /// An iBeacon frame as BlueZ gives it in ManufacturerData: company 0x004C (76) and the
  /// bytes after it: type 0x02, length 0x15, UUID, major and minor big-endian, measured power.
  static func iBeacon(_ uuid: String, major: UInt16, minor: UInt16, power: Int8) -> (UInt16, [UInt8]) {
    let hex = Array(uuid.replacingOccurrences(of: "-", with: "").utf8)
    let uuidBytes = stride(from: 0, to: 32, by: 2).map {
      UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
    return (
      76,
      [0x02, 0x15] + uuidBytes + [
        UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF),
      ]
        + [UInt8(bitPattern: power)]
    )
  }

  /// An AltBeacon frame as BlueZ gives it (github.com/AltBeacon/spec v1.0): any company id
  /// (the key), then beacon code 0xBE 0xAC, a 20-byte id (read as UUID, major, minor), the
  /// reference RSSI and a manufacturer-reserved byte.
  static func altBeacon(_ uuid: String, company: UInt16, major: UInt16, minor: UInt16, power: Int8) -> (
    UInt16, [UInt8]
  ) {
    let id = iBeacon(uuid, major: major, minor: minor, power: 0).1[2..<22]
    return (company, [0xBE, 0xAC] + id + [UInt8(bitPattern: power), 0x00])
  }

  /// busctl's words for a ManufacturerData value (`a{qv}` with one `ay`).
  static func manufacturerWords(_ data: (UInt16, [UInt8])) -> [String] {
    ["a{qv}", "1", "\(data.0)", "ay", "\(data.1.count)"] + data.1.map { "\($0)" }
  }

  /// A device found during discovery: an object with Address, Adapter, RSSI and
  /// ManufacturerData, announced by one InterfacesAdded as BlueZ does. Returns its path.
  @discardableResult func addDevice(
    _ adapter: String, _ address: String, rssi: Int16, data: (UInt16, [UInt8])
  )
    throws -> String
  {
    let path = Self.path(adapter, address)
    let properties =
      [
        "4", "Address", "s", address, "Adapter", "o", "/org/bluez/\(adapter)", "RSSI", "n", "\(rssi)",
        "ManufacturerData",
      ]
      + Self.manufacturerWords(data)
    try call(
      "/", "org.freedesktop.DBus.Mock", "AddObject",
      ["ssa{sv}a(ssss)", path, "org.bluez.Device1"] + properties + ["0"])
    try call(
      "/", "org.freedesktop.DBus.Mock", "EmitSignal",
      [
        "sssav", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded", "oa{sa{sv}}", "2", "o", path,
        "a{sa{sv}}", "1", "org.bluez.Device1",
      ]
        + properties)
    return path
  }

  /// One advertisement of the device at `path` whose property words are given as busctl
  /// takes them (`count` properties): for values of types BlueZ never sends.
  func advertise(_ path: String, properties count: Int, words: [String]) throws {
    try call(
      path, "org.freedesktop.DBus.Mock", "EmitSignal",
      [
        "sssav", "org.freedesktop.DBus.Properties", "PropertiesChanged", "sa{sv}as", "3", "s",
        "org.bluez.Device1", "a{sv}", "\(count)",
      ] + words + ["as", "0"])
  }

  /// One advertisement of the device at `path`: PropertiesChanged with RSSI and
  /// ManufacturerData.
  func advertise(_ path: String, rssi: Int16, data: (UInt16, [UInt8])) throws {
    try call(
      path, "org.freedesktop.DBus.Mock", "EmitSignal",
      [
        "sssav", "org.freedesktop.DBus.Properties", "PropertiesChanged", "sa{sv}as", "3", "s",
        "org.bluez.Device1",
        "a{sv}", "2", "RSSI", "n", "\(rssi)", "ManufacturerData",
      ] + Self.manufacturerWords(data) + ["as", "0"])
  }

  /// Powers adapter `name` on or off (Properties.Set of Powered: the stand-in stores it and
  /// signals PropertiesChanged, as BlueZ does).
  func setPowered(_ adapter: String, _ on: Bool) throws {
    try call(
      "/org/bluez/\(adapter)", "org.freedesktop.DBus.Properties", "Set",
      ["ssv", "org.bluez.Adapter1", "Powered", "b", on ? "true" : "false"])
  }

  /// Makes adapter `name`'s StartDiscovery answer as BlueZ does when the controller is not
  /// ready (org.bluez.Error.NotReady), or work again.
  func failStartDiscovery(_ adapter: String, _ fail: Bool) throws {
    let code =
      fail
      ? "raise dbus.exceptions.DBusException('Resource Not Ready', name='org.bluez.Error.NotReady')"
      : "self.props['org.bluez.Adapter1']['Discovering'] = True"
    try call(
      "/org/bluez/\(adapter)", "org.freedesktop.DBus.Mock", "AddMethod",
      ["sssss", "org.bluez.Adapter1", "StartDiscovery", "", "", code])
  }

  /// Adapter1.RemoveDevice: the device object goes, with InterfacesRemoved.
  func removeDevice(_ adapter: String, _ path: String) throws {
    try call("/org/bluez/\(adapter)", "org.bluez.Adapter1", "RemoveDevice", ["o", path])
  }

  /// The methods called on adapter `name` so far, in order, each with its arguments as
  /// busctl prints them in JSON (Mock.GetCalls).
  func calls(_ adapter: String) throws -> [(method: String, arguments: Any)] {
    let r = try bus.busctl([
      "--json=short", "call", "org.bluez", "/org/bluez/\(adapter)", "org.freedesktop.DBus.Mock", "GetCalls",
    ])
    guard r.status == 0 else { throw HarnessError("GetCalls: \(r.stderr)") }
    let top = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
    guard let data = (top?["data"] as? [Any])?.first as? [[Any]] else {
      throw HarnessError("GetCalls: \(r.stdout)")
    }
    return data.compactMap { row in
      guard row.count == 3, let method = row[1] as? String else { return nil }
      return (method, row[2])
    }
  }

  /// The names of the discovery calls made on adapter `name`.
  func discoveryCalls(_ adapter: String) throws -> [String] {
    try calls(adapter).map(\.method).filter {
      ["SetDiscoveryFilter", "StartDiscovery", "StopDiscovery"].contains($0)
    }
  }

  /// The filters SetDiscoveryFilter was given on adapter `name`, as `key=value` words.
  func filters(_ adapter: String) throws -> [[String]] {
    try calls(adapter).filter { $0.method == "SetDiscoveryFilter" }.map { call in
      guard let argument = (call.arguments as? [Any])?.first as? [String: Any],
        let entries = argument["data"] as? [String: Any]
      else { return [] }
      return entries.keys.sorted().map { key in
        let value = (entries[key] as? [String: Any])?["data"]
        return "\(key)=\(value.map { "\($0)" } ?? "?")"
      }
    }
  }
}
