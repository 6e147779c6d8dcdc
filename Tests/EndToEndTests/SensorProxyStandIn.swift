import Foundation
import Glibc
import LocCore

// No compass (nor any IIO sensor) exists on the build machine, so no real iio-sensor-proxy
// can run: it would find no sensor and export HasCompass false only. The iio-sensor-proxy
// the tests use is a stand-in on a private bus configured like the system bus, with
// iio-sensor-proxy's own bus policy (its package's system.d file when installed) and locd's:
// python3-dbusmock's iio-sensors-proxy template, which owns net.hadess.SensorProxy and
// exports its main object. That template puts the compass's members on the main object
// (/net/hadess/SensorProxy), where iio-sensor-proxy 3.x does not have them: the real one
// (the introspection XML in its binary, and its gtk-doc) exports
// net.hadess.SensorProxy.Compass at /net/hadess/SensorProxy/Compass. So the stand-in adds
// that object through the mock interface, with the real interface's members (HasCompass b,
// CompassHeading d, ClaimCompass, ReleaseCompass), and every call to it is recorded
// (Mock.GetCalls). A reading is CompassHeading set and one PropertiesChanged, as
// iio-sensor-proxy sends (through a test-only method on the object: the template answers
// GetAll from attributes of its own); the real one sends it to the claiming clients only,
// the stand-in to everyone, so locd must itself drop readings while it holds no claim.

/// python3-dbusmock's iio-sensors-proxy template with the compass object, on a
/// `PrivateSystemBus`, driven with busctl.
final class SensorProxyStandIn {
  static let python = "/usr/bin/python3"
  static let name = "net.hadess.SensorProxy"
  static let path = "/net/hadess/SensorProxy/Compass"
  static let interface = "net.hadess.SensorProxy.Compass"
  /// The real service's binary, whose introspection XML the tests compare with.
  static let binary = "/usr/sbin/iio-sensor-proxy"
  /// Whether python3-dbusmock (with its iio-sensors-proxy template) and the bus tools are
  /// installed.
  static let installed: Bool = {
    guard GeoCluePrograms.busInstalled else { return false }
    let check = "import importlib; importlib.import_module('dbusmock.templates.iio-sensors-proxy')"
    return (try? run(URL(fileURLWithPath: python), ["-c", check]))?.status == 0
  }()
  /// The bus policies: iio-sensor-proxy's own when its package is installed, locd's, and
  /// the stand-in's mock interface for the test.
  static let ownPolicy = "/etc/dbus-1/system.d/net.hadess.SensorProxy.conf"
  static var policies: [String] {
    let own = ownPolicy
    let root = Binaries.packageRoot.path
    return (FileManager.default.fileExists(atPath: own) ? [own] : [])
      + [
        root + "/dbus/net.hadess.SensorProxy.locd.conf", root + "/Tests/Peers/iio-sensor-proxy-stand-in.conf",
      ]
  }

  let bus: PrivateSystemBus
  private var child: Child?

  init(bus: PrivateSystemBus) {
    self.bus = bus
  }

  deinit { stop(signal: SIGKILL) }

  /// Starts the template, waits for it to own the name, and adds the compass object.
  func start(hasCompass: Bool = true) throws {
    let log = bus.directory + "/iio-stand-in.log"
    let fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    defer { close(fd) }
    child = try Child(
      Self.python, ["-m", "dbusmock", "--system", "--template", "iio-sensors-proxy"],
      environment: bus.environment, stdoutFD: fd, stderrFD: fd)
    guard bus.waitForOwner(Self.name) else {
      throw HarnessError("the iio-sensor-proxy stand-in did not start")
    }
    try call(
      "/net/hadess/SensorProxy", "org.freedesktop.DBus.Mock", "AddObject",
      [
        "ssa{sv}a(ssss)", Self.path, Self.interface, "2", "HasCompass", "b", hasCompass ? "true" : "false",
        "CompassHeading", "d", "-1", "2", "ClaimCompass", "", "", "", "ReleaseCompass", "", "", "",
      ])
    // The template answers GetAll of the compass interface, on every object, from attributes
    // of its own (has_compass, compass_heading); a property change sets both those and the
    // mock's properties, then signals (a test-only interface, not the compass's).
    try call(
      Self.path, "org.freedesktop.DBus.Mock", "AddMethod",
      ["sssss", Self.driver, "Update", "sv", "", Self.updateCode])
    try update("HasCompass", ["b", hasCompass ? "true" : "false"])
    try update("CompassHeading", ["d", "-1"])
  }

  /// The test-only interface that drives the compass object.
  static let driver = "org.locd.Tests.CompassDriver"
  static let updateCode = """
    name, value = args
    setattr(self, {'HasCompass': 'has_compass', 'CompassHeading': 'compass_heading'}[name], value)
    self.UpdateProperties('net.hadess.SensorProxy.Compass', {name: value})
    """

  /// Sets property `name` to the value in busctl's words, and signals PropertiesChanged.
  private func update(_ name: String, _ value: [String]) throws {
    try call(Self.path, Self.driver, "Update", ["sv", name] + value)
  }

  /// Ends the stand-in (`SIGKILL`: as iio-sensor-proxy crashing) and waits for it.
  func stop(signal: Int32 = SIGTERM) {
    guard let child else { return }
    if child.isRunning { kill(child.pid, signal) }
    child.wait(timeout: 5)
    self.child = nil
  }

  /// busctl call on net.hadess.SensorProxy; fails the test's step when the call fails.
  @discardableResult func call(_ path: String, _ interface: String, _ member: String, _ arguments: [String])
    throws -> String
  {
    let r = try bus.busctl(["call", "--", Self.name, path, interface, member] + arguments)
    guard r.status == 0 else { throw HarnessError("\(member) on \(path): \(r.stderr)") }
    return r.stdout
  }

  /// One reading: CompassHeading set and signalled.
  func heading(_ degrees: Double) throws {
    try update("CompassHeading", ["d", "\(degrees)"])
  }

  /// A compass appearing or going (HasCompass set and signalled).
  func setHasCompass(_ has: Bool) throws {
    try update("HasCompass", ["b", has ? "true" : "false"])
  }

  /// The compass methods called so far, in order (Mock.GetCalls of the compass object).
  func calls() throws -> [String] {
    let r = try bus.busctl([
      "--json=short", "call", Self.name, Self.path, "org.freedesktop.DBus.Mock", "GetCalls",
    ])
    guard r.status == 0 else { throw HarnessError("GetCalls: \(r.stderr)") }
    let top = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
    guard let data = (top?["data"] as? [Any])?.first as? [[Any]] else {
      throw HarnessError("GetCalls: \(r.stdout)")
    }
    return data.compactMap { row in row.count == 3 ? row[1] as? String : nil }
      .filter { $0 == "ClaimCompass" || $0 == "ReleaseCompass" }
  }

  /// The members of net.hadess.SensorProxy.Compass in the real iio-sensor-proxy's
  /// introspection XML, read from its binary (`name type` words: `ClaimCompass method`,
  /// `HasCompass b`), or nil when the package is not installed.
  static func realMembers() -> Set<String>? {
    guard let data = FileManager.default.contents(atPath: binary) else { return nil }
    let text = String(decoding: data, as: UTF8.self)
    guard let start = text.range(of: "<interface name=\"\(interface)\">"),
      let end = text.range(of: "</interface>", range: start.upperBound..<text.endIndex)
    else { return nil }
    let xml = text[start.upperBound..<end.lowerBound]
    var members: Set<String> = []
    for m in xml.matches(of: /<method name="(\w+)"/) { members.insert("\(m.1) method") }
    for m in xml.matches(of: /<property name="(\w+)" type="(\w+)"/) { members.insert("\(m.1) \(m.2)") }
    return members
  }

  /// The members of the compass interface as the stand-in exports them (busctl
  /// introspect), in the same words.
  func introspectedMembers() throws -> Set<String> {
    let r = try bus.busctl(["introspect", Self.name, Self.path, Self.interface])
    guard r.status == 0 else { throw HarnessError("introspect: \(r.stderr)") }
    var members: Set<String> = []
    for line in r.stdout.split(separator: "\n") {
      let words = line.split(separator: " ", omittingEmptySubsequences: true)
      guard words.count >= 3, words[0].hasPrefix(".") else { continue }
      let name = words[0].dropFirst()
      switch words[1] {
      case "method": members.insert("\(name) method")
      case "property": members.insert("\(name) \(words[2])")
      default: continue
      }
    }
    return members
  }
}
