import Foundation
import Glibc

/// A private dbus-daemon for a test, its policy as open as a test needs (anyone may own a
/// name, talk and eavesdrop), with dbus-monitor writing all that passes to
/// `DIR/monitor.txt`; no systemd answers there, so a StartUnit call is seen and refused
/// with ServiceUnknown. The GeoClue and BlueZ tests use the shipped policy instead
/// (GeoClueRig).
enum PrivateBus {
  /// Ends what `start` started: the monitor, then the bus.
  static func stop(_ bus: Child, _ monitor: Child) {
    kill(monitor.pid, SIGTERM)
    monitor.wait(timeout: 5)
    kill(bus.pid, SIGTERM)
    bus.wait(timeout: 5)
  }

  static func start(in dir: String) throws -> (address: String, bus: Child, monitor: Child) {
    let socket = dir + "/bus"
    let address = "unix:path=\(socket)"
    try """
    <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
    <busconfig>
      <listen>\(address)</listen>
      <auth>EXTERNAL</auth>
      <policy context="default">
        <allow send_destination="*" eavesdrop="true"/>
        <allow eavesdrop="true"/>
        <allow own="*"/>
        <allow user="*"/>
      </policy>
    </busconfig>
    """.write(toFile: dir + "/bus.conf", atomically: true, encoding: .utf8)
    let bus = try Child("/usr/bin/dbus-daemon", ["--config-file=\(dir)/bus.conf", "--nofork"])
    for _ in 0..<100 where access(socket, F_OK) != 0 { usleep(20_000) }
    let fd = open(dir + "/monitor.txt", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let monitor = try Child("/usr/bin/dbus-monitor", ["--address", address], stdoutFD: fd)
    Glibc.close(fd)
    usleep(200_000)
    return (address, bus, monitor)
  }
}
