import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// The ways other programs reach the installed locd under the real systemd of the container
/// (`SystemContainer`): the GeoClue2 face on the real system bus with geoclue's own package
/// installed, the gpsd face for the real gpspipe, NMEA out's pseudo-terminal under the unit's
/// sandbox, chrony's SOCK refclock with the real chronyd, and the static file.
@Suite(
  .serialized,
  .enabled(if: SystemContainer.available, "needs root, systemd-nspawn (systemd-container) and nsenter"),
  .enabled(
    if: SystemContainer.package != nil, "needs LOCD_SYSTEM_DEB, the .deb to install (make test-system)"))
struct SystemTierFacesTests {
  /// The receiver of these journeys: `nmea-clock-feed.py` (a stand-in for a receiver, always
  /// on this machine's time, since no GPS exists here) writing to locd's Unix NMEA socket, as
  /// a transient service of the container's systemd.
  static let feedSocket = "/run/locd/nmea.sock"
  static let source = "Source=nmea+unix-listen://\(feedSocket)\n"

  func startFeed(_ c: SystemContainer, latitude: Double = 59.9139, longitude: Double = 10.7522) throws {
    let feed = try c.peer("nmea-clock-feed.py")
    try c.sh(
      "systemd-run --unit=tier-feed --collect /usr/bin/python3 \(feed) \(Self.feedSocket) \(latitude) \(longitude)"
    )
  }

  /// Waits until locd has a fresh fix.
  func waitForFix(_ c: SystemContainer) throws -> StatusView {
    try c.waitFor("a fix from the feed", timeout: 30) { () throws -> StatusView? in
      let s = try c.status()
      return s.position.tier == .fix ? s : nil
    }
  }

  @Test func theGpsdFaceOnPort2947ServesTheRealGpspipe() throws {
    let c = try SystemContainer()
    defer { c.stop() }
    try c.install(
      try #require(SystemContainer.package),
      config: "[Sources]\n\(Self.source)[Gpsd]\nEnable=yes\nListenPort=2947\n")
    #expect(try c.locctl(["status"]).status == 0)
    try startFeed(c)
    _ = try waitForFix(c)
    // gpspipe as root (root's clients see positions, as on locd's socket).
    let out = try c.exec(["gpspipe", "-w", "-n", "8", "127.0.0.1:2947"], timeout: 30)
    #expect(out.status == 0, "\(out.stderr)")
    #expect(out.stdout.contains("\"class\":\"VERSION\""), "\(out.stdout)")
    let tpv = try #require(
      out.stdout.split(separator: "\n").first { $0.contains("\"class\":\"TPV\"") && $0.contains("\"lat\"") })
    #expect(tpv.contains("\"lat\":59.9139"), "\(tpv)")
    #expect(tpv.contains("\"lon\":10.7522"), "\(tpv)")
    #expect(tpv.contains("\"mode\":3"), "\(tpv)")
  }

  @Test func nmeaOutsPseudoTerminalWorksUnderTheUnitsSandbox() throws {
    let c = try SystemContainer()
    defer { c.stop() }
    try c.install(
      try #require(SystemContainer.package), config: "[Sources]\n\(Self.source)[NMEAOut]\nEnable=yes\n")
    #expect(try c.locctl(["status"]).status == 0)
    try startFeed(c, latitude: 48.8566, longitude: 2.3522)
    _ = try waitForFix(c)
    let link = try c.sh("stat -L -c '%G %a' /run/locd/nmea0")
    #expect(link == "locd 660\n", "\(link)")
    // A reader in group locd, as OpenCPN's user would be (the group is the policy).
    _ = try c.sh("useradd --no-create-home --groups locd reader")
    let out = try c.exec(
      ["timeout", "10", "sh", "-c", "stty -F /run/locd/nmea0 raw -echo; head -n 6 /run/locd/nmea0"],
      user: "reader", timeout: 20)
    #expect(out.stdout.contains("$GPGGA") || out.stdout.contains("GGA,"), "\(out.stdout) \(out.stderr)")
    #expect(out.stdout.contains("4851.39"), "\(out.stdout)")
  }

  @Test func theStaticFileIsReadUnderProtectSystemStrict() throws {
    let c = try SystemContainer()
    defer { c.stop() }
    try c.install(try #require(SystemContainer.package))
    try c.write("40.4168\n-3.7038\n667\n30\n", to: "/etc/geolocation")
    let s = try c.waitFor("the static file's position", timeout: 20) { () throws -> StatusView? in
      let s = try c.status()
      return s.position.provenance == .known(.staticFile) ? s : nil
    }
    let p = try #require(s.position.position)
    #expect(abs(p.coordinate.latitude.value - 40.4168) < 1e-6)
    #expect(s.timezone.zone.id == "Europe/Madrid")
    #expect(try c.property("locd.service", "ProtectSystem") == "strict")
  }

  @Test func theGeoClueFaceOwnsTheNameBesideGeoCluesPackageAndWhereAmIGetsAPosition() throws {
    let c = try SystemContainer(unmask: ["geoclue.service"])
    defer { c.stop() }
    // geoclue's own package is installed here too (its unit, its bus policy, its activation
    // file): locd takes the name as docs/GEOCLUE.md says, beside it.
    #expect(try c.exec(["dpkg-query", "-W", "geoclue-2.0"]).status == 0)
    try c.install(try #require(SystemContainer.package))
    try c.write("[GeoClue]\nEnable=yes\n", to: "/etc/locd/locd.conf")
    try c.sh(
      """
      install -D -m 0644 /usr/share/locd/geoclue/locd-geoclue.conf /etc/systemd/system/locd.service.d/geoclue.conf
      systemctl mask geoclue.service
      systemctl daemon-reload
      systemctl restart locd.service
      """)
    let locdUID = try c.sh("id -u locd").trimmingCharacters(in: .whitespacesAndNewlines)
    let owner = try c.waitFor("locd to own org.freedesktop.GeoClue2") { () throws -> String? in
      let r = try c.exec(["busctl", "--system", "status", "org.freedesktop.GeoClue2"])
      return r.stdout.contains("\nEUID=\(locdUID)\n") ? r.stdout : nil
    }
    #expect(owner.contains("Unit=locd.service"), "\(owner)")
    #expect(try c.locctl(["set-location", "59.9139,10.7522"]).status == 0)
    // A desktop user with an agent (Tests/Peers/geoclue-agent.py speaks GeoClue 2.6's Agent
    // interface, standing in for the desktop's prompt), and the real where-am-i.
    _ = try c.sh("useradd --create-home alice")
    let agent = try c.peer("geoclue-agent.py")
    try c.sh(
      "systemd-run --uid=alice --unit=tier-agent sh -c 'sleep infinity | /usr/bin/python3 \(agent) 8 yes'")
    _ = try c.waitFor("the agent to register") { () throws -> String? in
      let j = try c.journal("tier-agent.service")
      return j.contains("ready") ? j : nil
    }
    let out = try c.exec(
      ["/usr/libexec/geoclue-2.0/demos/where-am-i", "-t", "5", "-a", "8"], user: "alice", timeout: 30)
    #expect(out.stdout.contains("Latitude:    59.913900"), "\(out.stdout)\(out.stderr)")
    #expect(out.stdout.contains("Longitude:   10.752200"), "\(out.stdout)")
    let journal = try c.journal("locd.service", priority: "info")
    #expect(journal.contains("geoclue-where-am-i"), "\(journal)")
  }

  @Test func chronyTakesTheReceiversTimeThroughItsSockRefclockAsTimeMdSetsItUp() throws {
    let c = try SystemContainer(unmask: ["chrony.service"])
    defer { c.stop() }
    try c.install(
      try #require(SystemContainer.package),
      config:
        "[Sources]\n\(Self.source)[Acquisition]\nPolicy=continuous\n[Time]\nChronySocket=/run/chrony.locd.sock\n"
    )
    // chrony's own unit from its package, set up as docs/TIME.md says: the refclock line and
    // the drop-in locd ships. Two changes for this container only: nspawn leaves it without
    // CAP_SYS_TIME, for which chrony's unit has a condition (reset here), and chronyd runs
    // with -x, so it never sets the clock it shares with this machine.
    try c.sh(
      """
      echo 'refclock SOCK /run/chrony.locd.sock refid GNSS poll 0 offset 0.0 delay 0.2' >> /etc/chrony/chrony.conf
      install -D -m 0644 /usr/share/locd/chrony/locd-refclock.conf /etc/systemd/system/chrony.service.d/locd-refclock.conf
      printf '[Unit]\\nConditionCapability=\\n[Service]\\nExecStart=\\nExecStart=!/usr/sbin/chronyd $DAEMON_OPTS -x\\n' \
        > /etc/systemd/system/chrony.service.d/tier-no-clock.conf
      systemctl daemon-reload
      systemctl start chrony.service
      """)
    // Who may send: root and group locd only.
    let mode = try c.sh("stat -c '%a %U %G' /run/chrony.locd.sock")
    #expect(mode == "620 root locd\n", "\(mode)")
    let stranger = try c.exec(
      [
        "python3", "-c",
        "import socket; s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.sendto(b'x', '/run/chrony.locd.sock')",
      ], user: "nobody")
    #expect(stranger.status != 0 && stranger.stderr.contains("PermissionError"), "\(stranger.stderr)")
    try startFeed(c)
    _ = try waitForFix(c)
    // chronyd's own view: its GNSS refclock reached (chronyc's CSV: the reach register is
    // the sixth field, octal).
    let reached = try c.waitFor("chronyd to take samples from locd", timeout: 40) { () throws -> String? in
      let r = try c.exec(["chronyc", "-n", "-c", "sources"])
      guard let line = r.stdout.split(separator: "\n").first(where: { $0.contains(",GNSS,") }) else {
        return nil
      }
      let fields = line.split(separator: ",", omittingEmptySubsequences: false)
      return fields.count > 5 && fields[5] != "0" ? String(line) : nil
    }
    #expect(reached.contains("GNSS"))
    let chrony = try #require(try c.status().chrony)
    #expect(chrony.sent > 0, "\(chrony)")
    #expect(chrony.failed == 0, "\(chrony)")
  }

  @Test func makeInstallLetsTheGeoClueFaceOwnItsNameWithoutABusReloadByHand() throws {
    let c = try SystemContainer()
    defer { c.stop() }
    // `make install` as README.md says, from this clone's release build (which `make deb`
    // made), to /usr/local: not the package.
    let source = SystemContainer.sourceInside
    let release = source + "/.build/release"
    #expect(try c.exec(["test", "-x", release + "/locd"]).status == 0, "no release build at \(release)")
    try c.sh("make -s -C \(source) install-files INSTALL_FROM=\(release)", timeout: 120)
    #expect(
      try c.exec(["test", "-f", "/etc/dbus-1/system.d/org.freedesktop.GeoClue2.locd.conf"]).status == 0)
    #expect(try c.exec(["test", "-f", "/etc/polkit-1/rules.d/50-locd.rules"]).status == 0)
    try c.write("[GeoClue]\nEnable=yes\n", to: "/etc/locd/locd.conf")
    try c.sh("systemctl enable --now locd.socket locd.service")
    let locdUID = try c.sh("id -u locd").trimmingCharacters(in: .whitespacesAndNewlines)
    let owner = try c.waitFor("locd to own org.freedesktop.GeoClue2") { () throws -> String? in
      let r = try c.exec(["busctl", "--system", "status", "org.freedesktop.GeoClue2"])
      return r.stdout.contains("\nEUID=\(locdUID)\n") ? r.stdout : nil
    }
    #expect(owner.contains("Unit=locd.service"), "\(owner)")
    #expect(try c.exec(["/usr/local/bin/locctl", "status"]).stdout.contains("GeoClue2:"))
  }

  @Test func gpsdIsPickedUpWhenItsSocketStartsAfterLocd() throws {
    let c = try SystemContainer(unmask: ["gpsd.socket", "gpsd.service"])
    defer { c.stop() }
    // Debian's gpsd package, enabled but not started: a machine where gpsd comes later.
    try c.sh("systemctl stop gpsd.socket gpsd.service")
    try c.install(try #require(SystemContainer.package))
    #expect(try c.locctl(["status"]).status == 0)
    #expect(try c.status().sources.first?.state == .known(.waiting))
    try c.sh("systemctl start gpsd.socket")
    let s = try c.waitFor("locd to connect to gpsd", timeout: 20) { () throws -> StatusView? in
      let s = try c.status()
      return s.sources.first?.state == .known(.connected) ? s : nil
    }
    #expect(s.sources.first?.fault == nil)
  }

  @Test func theGpsdFaceOnGpsdsPortIsNotReadByTheDefaultSource() throws {
    let c = try SystemContainer()
    defer { c.stop() }
    try c.install(try #require(SystemContainer.package), config: "[Gpsd]\nEnable=yes\nListenPort=2947\n")
    let check = try c.exec(["/usr/bin/locd", "--check-config"])
    #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    #expect((check.stdout + check.stderr).contains("2947"), "\(check.stdout)\(check.stderr)")
    let s = try c.status()
    #expect(s.sources.isEmpty, "\(s.sources)")
    // The face serves, and lists no device of its own making.
    let out = try c.exec(["gpspipe", "-w", "-n", "3", "127.0.0.1:2947"], timeout: 20)
    #expect(out.stdout.contains("\"class\":\"VERSION\""), "\(out.stdout)")
    #expect(!out.stdout.contains("gpsd://127.0.0.1:2947"), "\(out.stdout)")
    // A configured source reading the face is refused: the unit fails, naming the loop.
    try c.write(
      "[Sources]\nSource=gpsd://127.0.0.1:2947\n[Gpsd]\nEnable=yes\nListenPort=2947\n",
      to: "/etc/locd/locd.conf")
    let refused = try c.exec(["/usr/bin/locd", "--check-config"])
    #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
    #expect(refused.stderr.contains("own gpsd face"), "\(refused.stderr)")
  }
}
