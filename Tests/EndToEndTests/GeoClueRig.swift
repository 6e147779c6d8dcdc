import CLocShim
import Foundation
import Glibc
import LocCore

// The real things locd's GeoClue2 face is tested against: a private dbus-daemon configured
// like a system bus, the real locd with [GeoClue] Enable=yes fed by a replay, and the peers
// that speak GeoClue's D-Bus interface (python3-dbus scripts in Tests/Peers, geoclue's demo
// programs, gammastep, redshift).

/// Programs the GeoClue tests run, and whether this machine has them (Debian: dbus-daemon,
/// dbus-bin, systemd, python3-dbus, python3-gi, geoclue-2.0, libgeoclue-2-dev, geoclue-2-demo,
/// gammastep, redshift; scripts/deps.sh test installs them).
enum GeoCluePrograms {
  static let whereAmI = "/usr/libexec/geoclue-2.0/demos/where-am-i"
  static let demoAgent = "/usr/libexec/geoclue-2.0/demos/agent"
  static let geoclue = "/usr/libexec/geoclue"
  static let python = "/usr/bin/python3"
  static let interfaces = "/usr/share/dbus-1/interfaces"
  static func peer(_ name: String) -> String { Binaries.packageRoot.path + "/Tests/Peers/" + name }

  /// The bus, busctl, python3 with dbus and gi: what every GeoClue test needs.
  static let busInstalled: Bool = {
    guard
      ["/usr/bin/dbus-daemon", "/usr/bin/busctl", python].allSatisfy({
        FileManager.default.isExecutableFile(atPath: $0)
      })
    else { return false }
    let probe = try? run(URL(fileURLWithPath: python), ["-c", "import dbus, dbus.mainloop.glib, gi"])
    return probe?.status == 0
  }()
  /// GeoClue's interface XML (libgeoclue-2-dev / geoclue-2.0).
  static let xmlInstalled = FileManager.default.fileExists(
    atPath: interfaces + "/org.freedesktop.GeoClue2.Client.xml")
  /// geoclue-2-demo.
  static let demosInstalled = [whereAmI, demoAgent].allSatisfy {
    FileManager.default.isExecutableFile(atPath: $0)
  }
  /// gammastep and redshift.
  static let colourToolsInstalled = ["/usr/bin/gammastep", "/usr/bin/redshift"].allSatisfy {
    FileManager.default.isExecutableFile(atPath: $0)
  }
}

/// A private dbus-daemon configured like the system bus (Debian's system.conf: nobody may own
/// a name or call a method unless a policy file in system.d allows it), with the given policy
/// files installed into its system.d and activation files into its system-services (with
/// `systemdActivation`, the bus asks org.freedesktop.systemd1 to start their units, as a
/// system bus under systemd does).
final class PrivateSystemBus {
  let directory: String
  let address: String
  private var child: Child!

  init(policies: [String], services: [String] = [], systemdActivation: Bool = false, directory: String? = nil)
    throws
  {
    self.directory = directory ?? LocdProcess.makeDirectory()
    let socket = self.directory + "/system_bus_socket"
    address = "unix:path=\(socket)"
    let systemD = self.directory + "/system.d"
    try FileManager.default.createDirectory(atPath: systemD, withIntermediateDirectories: true)
    let servicesDir = self.directory + "/system-services"
    try FileManager.default.createDirectory(atPath: servicesDir, withIntermediateDirectories: true)
    for (files, dir) in [(policies, systemD), (services, servicesDir)] {
      for file in files {
        try FileManager.default.copyItem(
          atPath: file, toPath: dir + "/" + URL(fileURLWithPath: file).lastPathComponent)
      }
    }
    try """
    <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
    <busconfig>
      <type>system</type>
      <listen>\(address)</listen>
      <auth>EXTERNAL</auth>
      <policy context="default">
        <allow user="*"/>
        <deny own="*"/>
        <deny send_type="method_call"/>
        <allow send_type="signal"/>
        <allow send_requested_reply="true" send_type="method_return"/>
        <allow send_requested_reply="true" send_type="error"/>
        <allow receive_type="method_call"/>
        <allow receive_type="method_return"/>
        <allow receive_type="error"/>
        <allow receive_type="signal"/>
        <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
        <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
        <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
      </policy>
      <includedir>\(systemD)</includedir>
      <servicedir>\(servicesDir)</servicedir>
    </busconfig>
    """.write(toFile: self.directory + "/system.conf", atomically: true, encoding: .utf8)
    child = try Child(
      "/usr/bin/dbus-daemon",
      ["--config-file=\(self.directory)/system.conf", "--nofork"]
        + (systemdActivation ? ["--systemd-activation"] : []),
      stderrFD: nil)
    for _ in 0..<250 where access(socket, F_OK) != 0 { usleep(20_000) }
    guard access(socket, F_OK) == 0 else { throw HarnessError("dbus-daemon did not listen on \(socket)") }
  }

  /// The environment that points programs at this bus as the system bus.
  var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": address] }

  /// Runs busctl on this bus.
  func busctl(_ arguments: [String]) throws -> Completed {
    try run(URL(fileURLWithPath: "/usr/bin/busctl"), ["--address=\(address)", "--no-pager"] + arguments)
  }

  /// Polls until `name` has an owner (10 s at most).
  func waitForOwner(_ name: String, timeout: Double = 10) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if let r = try? busctl(["status", name]), r.status == 0 { return true }
      usleep(50_000)
    }
    return false
  }

  deinit {
    kill(child.pid, SIGTERM)
    child.wait(timeout: 5)
  }
}

/// The position every GeoClue test replays: Oslo, 59.9139 N 10.7522 E, a fix a second for
/// ten minutes from 2026-06-21T12:00:00Z.
enum OsloReplay {
  static let latitude = 59.9139
  static let longitude = 10.7522
  static func write(to path: String) throws {
    let start = Instant(iso8601: "2026-06-21T12:00:00Z")!
    let points = (0..<600).map { (start.adding(seconds: Double($0)), latitude, longitude, 0.0) }
    try syntheticNMEA(points).write(toFile: path, atomically: true, encoding: .utf8)
  }
}

/// The real locd serving GeoClue2 on `bus`: replay clock, the Oslo replay at real speed (held
/// until a client starts), the shipped policy file on the bus; `config` is added to locd.conf.
func startGeoClueLocd(on bus: PrivateSystemBus, waitForName: Bool = true, config: String = "") throws
  -> LocdProcess
{
  let dir = LocdProcess.makeDirectory()
  try OsloReplay.write(to: dir + "/oslo.nmea")
  let locd = try LocdProcess(
    arguments: ["--clock", "replay", "--source", "replay:\(dir)/oslo.nmea?speed=1"],
    environment: bus.environment, directory: dir, config: "[GeoClue]\nEnable=yes\n" + config)
  if waitForName {
    guard bus.waitForOwner("org.freedesktop.GeoClue2") else {
      throw HarnessError("locd did not take org.freedesktop.GeoClue2: \(locd.log)")
    }
  }
  return locd
}

/// A background peer whose stdout goes to a file, with a pipe on its stdin (closing it ends
/// the peer scripts).
final class LinePeer {
  let output: String
  private var child: Child!
  private var stdinWrite: Int32 = -1

  init(_ path: String, _ arguments: [String], environment: [String: String], output: String) throws {
    self.output = output
    var pipe: [Int32] = [0, 0]
    guard locshim_pipe2(&pipe, O_CLOEXEC) == 0 else { throw HarnessError("pipe") }
    let outFD = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    defer {
      close(outFD)
      close(pipe[0])
    }
    child = try Child(
      path, arguments, environment: environment, stdinFD: pipe[0], stdoutFD: outFD, stderrFD: outFD)
    stdinWrite = pipe[1]
  }

  /// The peer's pid (to stop and continue it, as a suspend would).
  var pid: pid_t { child.pid }

  /// What the peer printed so far.
  var text: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

  /// Polls until the output contains `needle` `occurrences` times (10 s at most).
  @discardableResult func waitFor(_ needle: String, occurrences: Int = 1, timeout: Double = 10) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if text.components(separatedBy: needle).count > occurrences { return true }
      usleep(20_000)
    }
    return false
  }

  /// Writes a line to the peer's stdin.
  func send(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(stdinWrite, $0.baseAddress, $0.count) }
  }

  /// Closes stdin (which ends the peer scripts), gives the peer a second to leave, then
  /// sends SIGTERM (the demo programs do not read stdin) and waits.
  func stop() {
    if stdinWrite >= 0 { close(stdinWrite) }
    stdinWrite = -1
    for _ in 0..<50 where child.isRunning { usleep(20_000) }
    if child.isRunning { kill(child.pid, SIGTERM) }
    child.wait(timeout: 5)
  }

  deinit {
    if stdinWrite >= 0 { close(stdinWrite) }
    if child.isRunning { kill(child.pid, SIGTERM) }
    child.wait(timeout: 5)
  }
}

/// Runs a GeoClue client program on `bus` and returns stdout and stderr together (the
/// programs print their location to one and their errors to the other).
func runClient(_ path: String, _ arguments: [String], on bus: PrivateSystemBus, timeout: Double = 30)
  throws -> String
{
  let r = try run(URL(fileURLWithPath: path), arguments, environment: bus.environment, timeout: timeout)
  return r.stdout + r.stderr
}
