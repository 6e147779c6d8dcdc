import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// The installed package under a real systemd (PID 1 in systemd-nspawn over this machine's own
/// root; `SystemContainer` says how): install, socket activation, restart, reload, watchdog,
/// the journal. `make test-system` runs these after `make deb`.
@Suite(
  .serialized,
  .enabled(if: SystemContainer.available, "needs root, systemd-nspawn (systemd-container) and nsenter"),
  .enabled(
    if: SystemContainer.package != nil, "needs LOCD_SYSTEM_DEB, the .deb to install (make test-system)"))
struct SystemTierLifecycleTests {
  /// A container with the package installed as a user would (`apt install ./locd_*.deb`).
  func installed(config: String? = nil) throws -> SystemContainer {
    let c = try SystemContainer()
    if let config {
      try c.install(try #require(SystemContainer.package), config: config)
    } else {
      try c.install(try #require(SystemContainer.package))
    }
    return c
  }

  @Test func installThenSocketActivationAnswersStatus() throws {
    let c = try installed()
    defer { c.stop() }
    // The package enables and starts the socket; the service starts on the first connection.
    #expect(try c.property("locd.socket", "ActiveState") == "active")
    #expect(try c.property("locd.socket", "UnitFileState") == "enabled")
    _ = try c.exec(["systemctl", "stop", "locd.service"])
    #expect(try c.property("locd.service", "ActiveState") == "inactive")
    let r = try c.locctl(["status"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("Position"), "\(r.stdout)")
    #expect(try c.property("locd.service", "ActiveState") == "active")
    #expect(try c.property("locd.service", "User") == "locd")
    // No gpsd here and no source configured: no receiver yet, not a failing source, in
    // status, its text and the unit's STATUS= line (issue 41: "failing ... Connection
    // refused" in every status).
    let s = try c.status()
    #expect(s.sources.map(\.uri) == ["gpsd://127.0.0.1:2947"])
    #expect(s.sources.first?.state == .known(.waiting), "\(s.sources)")
    #expect(s.sources.first?.fault == nil && s.sources.first?.lastError == nil)
    #expect(!r.stdout.contains("failing"), "\(r.stdout)")
    let line = try c.property("locd.service", "StatusText")
    #expect(!line.contains("Connection refused"), "\(line)")
    // Any local user may connect (the socket is 0666); locd decides what each may see, and
    // status (a position) is for root and group locd (docs/PROTOCOL.md, "Access").
    let nobody = try c.locctl(["status"], user: "nobody")
    #expect(nobody.status == 4, "\(nobody.stdout)\(nobody.stderr)")
    #expect(nobody.stderr.contains("permission"), "\(nobody.stderr)")
    // The state directory, private to locd.
    let mode = try c.sh("stat -c '%a %U' /var/lib/locd")
    #expect(mode == "700 locd\n", "\(mode)")
  }

  @Test func aManualLocationIsKeptAcrossARestart() throws {
    let c = try installed()
    defer { c.stop() }
    let set = try c.locctl(["set-location", "38.7223,-9.1393", "--accuracy", "50m"])
    #expect(set.status == 0, "\(set.stderr)")
    let pid = try c.property("locd.service", "MainPID")
    _ = try c.sh("systemctl restart locd.service")
    #expect(try c.property("locd.service", "MainPID") != pid)
    // state.json holds it, private to locd.
    let mode = try c.sh("stat -c '%a %U' /var/lib/locd/state.json")
    #expect(mode == "600 locd\n", "\(mode)")
    let s = try c.status()
    let manual = try #require(s.manual)
    #expect(abs(manual.coordinate.latitude.value - 38.7223) < 1e-6)
    #expect(abs(manual.coordinate.longitude.value - -9.1393) < 1e-6)
    #expect(s.timezone.zone.id == "Europe/Lisbon")
  }

  @Test func reloadRereadsTheConfigurationWithoutARestart() throws {
    let c = try installed()
    defer { c.stop() }
    #expect(try c.locctl(["status"]).status == 0)
    let pid = try c.property("locd.service", "MainPID")
    #expect(try c.status().timezone.zone.id == "Etc/UTC")
    // A configured zone (locd.conf(5), [Position] TimeZone=) is taken on reload.
    try c.write("[Position]\nTimeZone=Asia/Tokyo\n", to: "/etc/locd/locd.conf")
    _ = try c.sh("systemctl reload locd.service")
    let s = try c.waitFor("the reloaded zone") { () throws -> StatusView? in
      let s = try c.status()
      return s.timezone.zone.id == "Asia/Tokyo" ? s : nil
    }
    #expect(s.timezone.zone.origin == .known(.configured))
    #expect(try c.property("locd.service", "MainPID") == pid)
    #expect(try c.property("locd.service", "NRestarts") == "0")
  }

  @Test func aStoppedDaemonIsRestartedByTheWatchdogWithItsStateKept() throws {
    let c = try installed()
    defer { c.stop() }
    #expect(try c.locctl(["set-location", "59.9139,10.7522"]).status == 0)
    let pid = try #require(Int32(try c.property("locd.service", "MainPID")))
    #expect(try c.property("locd.service", "WatchdogUSec") == "30s")
    // SIGSTOP: alive but silent, as a daemon stuck in a loop would be. The shipped unit's
    // WatchdogSec=30s runs out; systemd aborts it and Restart=on-failure starts it again.
    _ = try c.sh("kill -STOP \(pid)")
    let restarted = try c.waitFor("the watchdog's restart", timeout: 60) { () throws -> String? in
      let n = try c.property("locd.service", "NRestarts")
      let active = try c.property("locd.service", "ActiveState")
      return n == "1" && active == "active" ? n : nil
    }
    #expect(restarted == "1")
    #expect(try c.property("locd.service", "MainPID") != "\(pid)")
    let journal = try c.exec(["journalctl", "--no-pager", "-q", "-u", "locd.service"]).stdout
    #expect(journal.contains("Watchdog timeout"), "\(journal)")
    let manual = try #require(try c.status().manual)
    #expect(abs(manual.coordinate.latitude.value - 59.9139) < 1e-6)
  }

  @Test func theJournalAtInfoHoldsNoCoordinates() throws {
    let c = try installed()
    defer { c.stop() }
    // A manual place and a static file: both put coordinates into locd's hands.
    try c.write("48.8566\n2.3522\n35\n100\n", to: "/etc/geolocation")
    #expect(try c.locctl(["set-location", "52.5200,13.4050"]).status == 0)
    _ = try c.sh("systemctl reload locd.service")
    #expect(try c.locctl(["status"]).status == 0)
    _ = try c.sh("systemctl restart locd.service")
    #expect(try c.locctl(["status"]).status == 0)
    let info = try c.journal("locd.service", priority: "info")
    #expect(!info.isEmpty)
    for number in ["48.85", "2.352", "52.52", "13.40", "13.4050"] {
      #expect(!info.contains(number), "the journal at info has \(number): \(info)")
    }
  }
}
