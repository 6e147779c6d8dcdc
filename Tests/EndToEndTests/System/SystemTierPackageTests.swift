import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// The package's own life under the container's real systemd (`SystemContainer`): an upgrade
/// keeps what users decided, `apt remove` leaves nothing running, `purge` takes the state.
@Suite(
  .serialized,
  .enabled(if: SystemContainer.available, "needs root, systemd-nspawn (systemd-container) and nsenter"),
  .enabled(
    if: SystemContainer.package != nil, "needs LOCD_SYSTEM_DEB, the .deb to install (make test-system)"))
struct SystemTierPackageTests {
  /// A copy of `deb` with a higher version (the same programs), built inside the container
  /// with dpkg-deb: an upgrade as the next release would be installed.
  func nextVersion(of deb: String, in c: SystemContainer) throws -> String {
    try c.sh(
      """
      rm -rf /var/tmp/next && dpkg-deb -R '\(SystemContainer.inside(deb))' /var/tmp/next
      v=$(sed -n 's/^Version: //p' /var/tmp/next/DEBIAN/control)
      sed -i "s/^Version: .*/Version: $v+tier1/" /var/tmp/next/DEBIAN/control
      dpkg-deb -b -Zgzip -z1 /var/tmp/next /var/tmp/locd-next.deb >/dev/null
      """)
    return "/var/tmp/locd-next.deb"
  }

  @Test func anUpgradeKeepsDecisionsThenRemoveStopsAndPurgeTakesTheState() throws {
    let c = try SystemContainer()
    defer { c.stop() }
    let deb = try #require(SystemContainer.package)
    try c.install(deb)
    _ = try c.sh("useradd --create-home alice")
    // A user's decision for an app and a manual place: what an upgrade must keep.
    let grant = try c.locctl(["apps", "grant", "org.example.Maps", "--user", "alice"])
    #expect(grant.status == 0, "\(grant.stderr)")
    #expect(try c.locctl(["set-location", "59.9139,10.7522"]).status == 0)
    let before = try c.property("locd.service", "MainPID")
    try c.install(try nextVersion(of: deb, in: c))
    #expect(try c.sh("dpkg-query -W -f='${Version}' locd").hasSuffix("+tier1"))
    // The upgrade restarted the daemon, which kept both.
    #expect(try c.locctl(["status"]).status == 0)
    #expect(try c.property("locd.service", "MainPID") != before)
    let apps = try c.locctl(["apps", "--user", "alice"])
    #expect(apps.stdout.contains("org.example.Maps"), "\(apps.stdout)\(apps.stderr)")
    #expect(apps.stdout.contains("when-in-use"), "\(apps.stdout)")
    #expect(try c.status().manual != nil)

    // remove: nothing of locd's runs or listens; the configuration and the state stay.
    try c.sh("DEBIAN_FRONTEND=noninteractive apt-get remove -y -q locd >/dev/null")
    #expect(try c.exec(["pgrep", "-x", "locd"]).status == 1)
    #expect(try c.property("locd.socket", "LoadState") == "not-found")
    #expect(try c.exec(["test", "-S", "/run/locd/locd.sock"]).status != 0)
    #expect(try c.exec(["test", "-f", "/var/lib/locd/state.json"]).status == 0)
    // purge: the state (the last known position) and the configuration go too.
    try c.sh("DEBIAN_FRONTEND=noninteractive apt-get purge -y -q locd >/dev/null")
    #expect(try c.exec(["test", "-e", "/var/lib/locd"]).status != 0)
    #expect(try c.exec(["test", "-e", "/etc/locd/locd.conf"]).status != 0)
    #expect(try c.exec(["pgrep", "-x", "locd"]).status == 1)
  }
}
