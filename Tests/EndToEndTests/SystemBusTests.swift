import Foundation
import Glibc
import LocCore
import Testing

/// locd against the closest real things this machine can run: a private dbus-daemon as the
/// "system bus", the real systemd-timedated on it (in a private mount namespace over a copy
/// of /etc, so the machine's own /etc/localtime is never touched), and dbus-monitor to see
/// the StartUnit call locd makes for a timer (no systemd manager runs here to answer it).
@Suite(.serialized) struct SystemBusTests {
  static let timedated = "/lib/systemd/systemd-timedated"

  /// The zone name of a zoneinfo symlink target.
  func zone(ofLink path: String) -> String? {
    guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path),
      let r = target.range(of: "zoneinfo/")
    else { return nil }
    return String(target[r.upperBound...])
  }

  /// Everything the test runs is installed (Debian: systemd, dbus-daemon, dbus-bin, util-linux).
  static let installed =
    [timedated, "/usr/bin/dbus-daemon", "/usr/bin/dbus-monitor", "/usr/bin/busctl", "/usr/bin/unshare"]
    .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

  @Test(
    .enabled(
      if: getuid() == 0, "needs root: timedated needs CAP_SYS_TIME and its mount namespace CAP_SYS_ADMIN"),
    .enabled(if: installed, "needs systemd-timedated, dbus-daemon, dbus-monitor, busctl and unshare"))
  func setTimezoneThroughRealTimedatedAndStartUnitOnTheBus() throws {
    let dir = LocdProcess.makeDirectory()
    let (address, bus, monitor) = try PrivateBus.start(in: dir)
    defer { PrivateBus.stop(bus, monitor) }
    // timedated also tells the kernel the zone (settimeofday with a timezone). The first such
    // call after boot warps the system clock by the zone's offset (timekeeping_warp_clock, for
    // RTCs kept in local time); systemd does that call at boot, but systemd is not PID 1 here.
    // Make the harmless first call ourselves, with offset 0, so the machine's clock is never moved.
    var utc = timezone(tz_minuteswest: 0, tz_dsttime: 0)
    _ = settimeofday(nil, &utc)
    // timedated in its own mount namespace, over a copy of /etc.
    #expect(try run(URL(fileURLWithPath: "/bin/cp"), ["-a", "/etc", dir + "/etc"]).status == 0)
    let hostZone = zone(ofLink: "/etc/localtime")
    let env = ["DBUS_SYSTEM_BUS_ADDRESS": address]
    let td = try Child(
      "/usr/bin/unshare",
      [
        "-m", "--propagation", "private", "/bin/sh", "-c",
        "mount --bind \(dir)/etc /etc && exec \(Self.timedated)",
      ],
      environment: env)
    defer { kill(td.pid, SIGTERM); td.wait(timeout: 5) }
    var listed = ""
    for _ in 0..<100 {
      listed =
        (try? run(URL(fileURLWithPath: "/usr/bin/busctl"), ["--address=\(address)", "list", "--no-pager"]))?
        .stdout ?? ""
      if listed.contains("org.freedesktop.timedate1") { break }
      usleep(50_000)
    }
    #expect(listed.contains("org.freedesktop.timedate1"), "timedated did not come up")

    // A short stay in Oslo in simulated time, with a unit timer at 14:05 CEST (12:05Z).
    let start = Instant(iso8601: "2026-06-21T12:00:00Z")!
    var points: [(Instant, Double, Double, Double)] = []
    for i in 0..<20 { points.append((start.adding(seconds: Double(i * 30)), 59.9139, 10.7522, 0)) }
    try syntheticNMEA(points).write(toFile: dir + "/oslo.nmea", atomically: true, encoding: .utf8)
    mkdir(dir + "/timers.d", 0o755)
    try "[Timer]\nRule=14:05\n[Action]\nUnit=lamp.service\n".write(
      toFile: dir + "/timers.d/lamp.timer", atomically: true, encoding: .utf8)
    let daemon = try LocdProcess(
      arguments: [
        "--clock", "replay", "--source", "replay:\(dir)/oslo.nmea?speed=max", "--timers-dir",
        dir + "/timers.d",
      ],
      environment: env, directory: dir, config: "[TimeZone]\nSetSystemTimeZone=yes\n")
    let watchFD = open(dir + "/watch.jsonl", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let watcher = try Child(
      Binaries.locctl.path, ["--socket", daemon.socketPath, "watch", "--json"], stdoutFD: watchFD)
    close(watchFD)
    defer { kill(watcher.pid, SIGTERM); watcher.wait(timeout: 5) }

    // timedated set the zone in its copy of /etc; the machine's own is untouched.
    var set: String? = nil
    for _ in 0..<200 {
      set = zone(ofLink: dir + "/etc/localtime")
      if set == "Europe/Oslo" { break }
      usleep(50_000)
    }
    #expect(set == "Europe/Oslo", "\(daemon.log)")
    #expect(zone(ofLink: "/etc/localtime") == hostZone)
    var log = ""
    for _ in 0..<100 {
      log = daemon.log
      if log.contains("system time zone set to Europe/Oslo") && log.contains("lamp.service") { break }
      usleep(50_000)
    }
    #expect(log.contains("system time zone set to Europe/Oslo"))
    // The StartUnit call went out with the unit and mode "replace"; nobody answers it here.
    let calls = (try? String(contentsOfFile: dir + "/monitor.txt", encoding: .utf8)) ?? ""
    #expect(
      calls.contains("interface=org.freedesktop.systemd1.Manager; member=StartUnit"), "\(calls.suffix(2000))")
    #expect(calls.contains("string \"lamp.service\"") && calls.contains("string \"replace\""))
    #expect(
      log.contains("timer lamp: cannot start lamp.service: org.freedesktop.DBus.Error.ServiceUnknown"),
      "\(log)")
    #expect(daemon.stop() == 0)
    // Put the kernel's timezone (which timedated also sets) back as it was.
    if let hostZone {
      _ = try? run(
        URL(fileURLWithPath: "/usr/bin/busctl"),
        [
          "--address=\(address)", "call", "org.freedesktop.timedate1", "/org/freedesktop/timedate1",
          "org.freedesktop.timedate1", "SetTimezone", "sb", hostZone, "false",
        ])
    }
  }
}
