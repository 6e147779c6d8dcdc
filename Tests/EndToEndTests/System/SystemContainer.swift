import Foundation
import Glibc
import LocCore
import LocProtocol

/// This machine's own Debian root booted with systemd 252 as PID 1 in `systemd-nspawn`, for
/// the system tier (`make test-system`, docs/SYSTEM-TIER.md): the installed package under a
/// real service manager, system bus, polkitd and timedated.
///
/// How the boot works here (no systemd on the host): `/` is bind-mounted, not recursively, to
/// a folder of its own (nspawn refuses `/` itself, and a recursive bind would bring the host's
/// populated /dev), and that folder boots with `--volatile=overlay`, so everything the
/// container writes lands in a tmpfs and the host's files are never changed.
/// `--register=no --keep-unit`: no machined, no transient scope (there is no host systemd to
/// ask). `--private-network`: the host's loopback services (a gpsd, a chronyd) stay out.
/// Host services that would start at boot are masked on systemd's command line. Commands run
/// in the container with `nsenter -t LEADER -a`, LEADER being the container's PID 1: host-side
/// `machinectl` and `systemctl -M` need a host systemd.
final class SystemContainer {
  /// The units of this image that the boot must not start (they would fight over ports or
  /// devices, or wait for hardware): their own journeys start the ones they need.
  static let masked = [
    "postgresql.service", "avahi-daemon.service", "avahi-daemon.socket", "gpsd.service", "gpsd.socket",
    "ModemManager.service", "wpa_supplicant.service", "chrony.service", "redis-server.service",
    "nginx.service", "memcached.service", "apt-daily.timer", "apt-daily-upgrade.timer", "man-db.timer",
    "e2scrub_all.timer", "dpkg-db-backup.timer", "geoclue.service", "bluetooth.service",
    "iio-sensor-proxy.service",
  ]

  /// Where the container sees this clone (read-only).
  static let sourceInside = "/opt/locd-tier/src"
  /// Where the container sees the folder of `package` (read-only).
  static let debInside = "/opt/locd-tier/deb"

  /// The path inside the container of `path` on the host: this clone's files and the
  /// package's folder are bound at fixed places; any other path is taken as the container's.
  static func inside(_ path: String) -> String {
    let root = Binaries.packageRoot.path
    if path == root || path.hasPrefix(root + "/") { return sourceInside + path.dropFirst(root.count) }
    if let deb = package {
      let folder = URL(fileURLWithPath: deb).deletingLastPathComponent().path
      if path.hasPrefix(folder + "/") { return debInside + path.dropFirst(folder.count) }
    }
    return path
  }

  /// The folder `/` is bound to.
  let root: String
  /// The host's folder for this container (the container has a /tmp of its own and does not
  /// see it).
  let scratch: String
  /// What nspawn and the container's console printed.
  let consolePath: String
  /// systemd-nspawn itself.
  private let nspawn: Child
  /// The container's PID 1, as the host sees it.
  let leader: pid_t
  private var stopped = false

  /// Whether this machine can boot the container: root, systemd-nspawn, nsenter.
  static var available: Bool {
    getuid() == 0
      && ["/usr/bin/systemd-nspawn", "/usr/bin/nsenter", "/usr/bin/mount"].allSatisfy {
        FileManager.default.isExecutableFile(atPath: $0)
      }
  }

  /// The package the tier installs: LOCD_SYSTEM_DEB, which `make test-system` sets to the
  /// .deb that `make deb` wrote.
  static var package: String? {
    guard let path = ProcessInfo.processInfo.environment["LOCD_SYSTEM_DEB"], !path.isEmpty,
      FileManager.default.fileExists(atPath: path)
    else { return nil }
    return path
  }

  /// Boots the container and waits until systemd says the system is up.
  init(unmask: [String] = []) throws {
    scratch = LocdProcess.makeDirectory()
    root = scratch + "/root"
    consolePath = scratch + "/console.log"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
    let bound = try run(URL(fileURLWithPath: "/usr/bin/mount"), ["--bind", "/", root])
    guard bound.status == 0 else { throw HarnessError("mount --bind / \(root): \(bound.stderr)") }
    let console = open(consolePath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    defer { close(console) }
    let masks = Self.masked.filter { !unmask.contains($0) }.map { "systemd.mask=\($0)" }
    // The clone and the package's folder, read-only at fixed paths: the container has a
    // /tmp of its own, and a clone under /tmp (or a .deb anywhere else) would not be seen.
    var binds = ["--bind-ro=\(Binaries.packageRoot.path):\(Self.sourceInside)"]
    if let deb = Self.package {
      binds.append(
        "--bind-ro=\(URL(fileURLWithPath: deb).deletingLastPathComponent().path):\(Self.debInside)")
    }
    do {
      nspawn = try Child(
        "/usr/bin/systemd-nspawn",
        [
          "--quiet", "-D", root, "--volatile=overlay", "--register=no", "--keep-unit", "--private-network",
          "--console=read-only", "--machine=locd-tier",
        ] + binds + ["-b", "systemd.unit=multi-user.target"] + masks,
        stdoutFD: console, stderrFD: console)
    } catch {
      _ = try? run(URL(fileURLWithPath: "/usr/bin/umount"), [root])
      throw error
    }
    var found: pid_t?
    let deadline = Date().addingTimeInterval(30)
    while found == nil, Date() < deadline, nspawn.isRunning {
      found = Self.child(of: nspawn.pid, named: "systemd")
      if found == nil { usleep(20_000) }
    }
    guard let found else {
      let text = (try? String(contentsOfFile: consolePath, encoding: .utf8)) ?? ""
      nspawn.wait(timeout: 1)
      _ = try? run(URL(fileURLWithPath: "/usr/bin/umount"), [root])
      throw HarnessError("the container's systemd never started: \(text)")
    }
    leader = found
    // PID 1 answers on its private bus a moment after it starts ("offline" or no bus before);
    // then `--wait` waits for the boot to finish.
    var state = ""
    let upBy = Date().addingTimeInterval(60)
    while Date() < upBy {
      let up = try exec(["systemctl", "is-system-running", "--wait"], timeout: 60)
      state = (up.stdout + up.stderr).trimmingCharacters(in: .whitespacesAndNewlines)
      if ["running", "degraded"].contains(state) || !nspawn.isRunning { break }
      usleep(50_000)
    }
    guard ["running", "degraded"].contains(state) else {
      throw HarnessError("the container did not come up: \(state)\n\(console)")
    }
    // This image forbids service starts during dpkg (a build machine's policy-rc.d); a real
    // Debian has none, and the package's postinst is meant to start the socket.
    _ = try exec(["rm", "-f", "/usr/sbin/policy-rc.d"])
    // man-db rebuilds its whole index after every package operation (18 s of the 26 an
    // install took here); nothing of locd's depends on it.
    _ = try exec(["rm", "-f", "/var/lib/man-db/auto-update"])
  }

  /// The process whose parent is `parent` and whose command is `name`.
  private static func child(of parent: pid_t, named name: String) -> pid_t? {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
    for entry in entries {
      guard let pid = pid_t(entry),
        let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
        let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
      else { continue }
      let command = stat[stat.index(after: open)..<close]
      let rest = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
      if command == name, rest.count > 1, pid_t(rest[1]) == parent { return pid }
    }
    return nil
  }

  /// What the console showed so far.
  var console: String { (try? String(contentsOfFile: consolePath, encoding: .utf8)) ?? "" }

  /// Runs `argv` inside the container, as root or as `user`, with a clean environment.
  @discardableResult
  func exec(_ argv: [String], user: String? = nil, stdin: String? = nil, timeout: Double = 60) throws
    -> Completed
  {
    var command = ["-t", "\(leader)", "-a", "--", "/usr/bin/env", "-i"]
    command += ["PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8", "SYSTEMD_PAGER=", "SYSTEMD_COLORS=0"]
    if let user { command += ["/usr/sbin/runuser", "-u", user, "--"] }
    return try run(URL(fileURLWithPath: "/usr/bin/nsenter"), command + argv, stdin: stdin, timeout: timeout)
  }

  /// Runs `script` with /bin/sh -ec inside the container; throws when it fails.
  @discardableResult
  func sh(_ script: String, user: String? = nil, timeout: Double = 60) throws -> String {
    let r = try exec(["/bin/sh", "-ec", script], user: user, timeout: timeout)
    guard r.status == 0 else {
      throw HarnessError("in the container, `\(script)` exited \(r.status): \(r.stdout)\(r.stderr)")
    }
    return r.stdout
  }

  /// Writes `text` to `path` inside the container (mode `mode`).
  func write(_ text: String, to path: String, mode: String = "0644") throws {
    let r = try exec(
      ["/bin/sh", "-ec", "mkdir -p \"$(dirname '\(path)')\"; cat > '\(path)'; chmod \(mode) '\(path)'"],
      stdin: text)
    guard r.status == 0 else { throw HarnessError("writing \(path) in the container: \(r.stderr)") }
  }

  /// Installs `deb` (the host's path of `package`, or a path of the container's) as a user
  /// would: `apt install ./FILE.deb`.
  func install(_ deb: String) throws {
    let deb = Self.inside(deb)
    let r = try exec(
      ["/usr/bin/env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-q", deb],
      timeout: 120)
    guard r.status == 0 else { throw HarnessError("apt-get install \(deb): \(r.stdout)\(r.stderr)") }
  }

  /// A copy of the test peer `Tests/Peers/NAME` that every user in the container can read
  /// (the clone may lie under /root, which only root may enter), at /opt/locd-tier/NAME.
  func peer(_ name: String) throws -> String {
    let target = "/opt/locd-tier/" + name
    try sh("install -D -m 0755 '\(Self.sourceInside)/Tests/Peers/\(name)' '\(target)'")
    return target
  }

  /// Installs `deb`, then writes `config` as /etc/locd/locd.conf (as an administrator edits
  /// the installed file) and restarts locd to read it.
  func install(_ deb: String, config: String) throws {
    try install(deb)
    try write(config, to: "/etc/locd/locd.conf")
    var r = try exec(["systemctl", "restart", "locd.service"])
    guard r.status != 0 else { return }
    // One run of the whole tier (of about ten) saw this first restart after the package's own
    // start fail once, with nothing but systemctl's summary; the cause is not known yet. What
    // the unit and locd said is printed, so the next failure tells it, and the restart is
    // made once more: a second failure fails the test.
    let status = (try? exec(["systemctl", "status", "--no-pager", "-l", "locd.service"]).stdout) ?? ""
    let log =
      (try? exec(["journalctl", "--no-pager", "-q", "-n", "60", "-u", "locd.service", "-u", "locd.socket"])
        .stdout)
      ?? ""
    print("system tier: systemctl restart locd.service exited \(r.status): \(r.stderr)\n\(status)\n\(log)")
    _ = try? exec(["systemctl", "reset-failed", "locd.service"])
    r = try exec(["systemctl", "restart", "locd.service"])
    guard r.status == 0 else {
      throw HarnessError(
        "systemctl restart locd.service exited \(r.status) twice: \(r.stderr)\n\(status)\n\(log)")
    }
  }

  /// A property of a unit (`systemctl show -P`).
  func property(_ unit: String, _ name: String) throws -> String {
    try exec(["systemctl", "show", "-P", name, unit]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Polls `check` (every 100 ms) until it returns a value or `timeout` passes.
  func waitFor<T>(_ what: String, timeout: Double = 20, _ check: () throws -> T?) throws -> T {
    let deadline = Date().addingTimeInterval(timeout)
    var lastError: Error?
    while Date() < deadline {
      do {
        if let value = try check() { return value }
      } catch {
        lastError = error
      }
      usleep(100_000)
    }
    throw HarnessError("waited \(timeout) s for \(what)\(lastError.map { ": \($0)" } ?? "")")
  }

  /// `locctl ARGS` inside the container, as `user` (root by default).
  func locctl(_ arguments: [String], user: String? = nil, timeout: Double = 30) throws -> Completed {
    try exec(["/usr/bin/locctl"] + arguments, user: user, timeout: timeout)
  }

  /// `locctl status --json` inside the container, decoded.
  func status(user: String? = nil) throws -> StatusView {
    let r = try locctl(["status", "--json"], user: user)
    guard r.status == 0 else { throw HarnessError("locctl status failed (\(r.status)): \(r.stderr)") }
    return try decodeOutput(r.stdout)
  }

  /// The journal of `unit` at `priority` or more urgent, as text.
  func journal(_ unit: String, priority: String = "debug") throws -> String {
    try exec(["journalctl", "--no-pager", "-q", "-o", "cat", "-p", priority, "-u", unit]).stdout
  }

  /// Powers the container off and unbinds its root.
  func stop() {
    guard !stopped else { return }
    stopped = true
    // nspawn turns SIGTERM into the container's orderly shutdown (SIGRTMIN+3 to its PID 1).
    kill(nspawn.pid, SIGTERM)
    nspawn.wait(timeout: 20)
    _ = try? run(URL(fileURLWithPath: "/usr/bin/umount"), [root])
    rmdir(root)
  }

  deinit { stop() }
}
