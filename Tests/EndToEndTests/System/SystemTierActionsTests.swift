import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// What locd asks of the rest of the system, through the real system bus, polkitd, timedated
/// and systemd of the container (`SystemContainer`): the automatic time zone and a timer's unit.
@Suite(
  .serialized,
  .enabled(if: SystemContainer.available, "needs root, systemd-nspawn (systemd-container) and nsenter"),
  .enabled(
    if: SystemContainer.package != nil, "needs LOCD_SYSTEM_DEB, the .deb to install (make test-system)"))
struct SystemTierActionsTests {
  /// The zone /etc/localtime names in the container.
  func systemZone(_ c: SystemContainer) throws -> String {
    let target = try c.sh("readlink /etc/localtime").trimmingCharacters(in: .whitespacesAndNewlines)
    guard let r = target.range(of: "zoneinfo/") else { return target }
    return String(target[r.upperBound...])
  }

  @Test func theAutomaticTimeZoneIsSetThroughTimedatedWithThePackagesOwnRule() throws {
    // timedated also tells the kernel the zone (settimeofday with a timezone); the first such
    // call after boot would warp the shared system clock by the zone's offset. nspawn leaves
    // the container without CAP_SYS_TIME, so it cannot; make the harmless first call here
    // anyway (offset 0), as SystemBusTests does, so no order of events can move the clock.
    var utc = timezone(tz_minuteswest: 0, tz_dsttime: 0)
    _ = settimeofday(nil, &utc)
    let c = try SystemContainer()
    defer { c.stop() }
    try c.install(try #require(SystemContainer.package), config: "[TimeZone]\nSetSystemTimeZone=yes\n")
    #expect(try systemZone(c) == "Etc/UTC")
    let set = try c.locctl(["set-location", "38.7223,-9.1393"])
    #expect(set.status == 0, "\(set.stderr)")
    let zone = try c.waitFor("/etc/localtime to name Europe/Lisbon", timeout: 20) {
      let z = try systemZone(c)
      return z == "Europe/Lisbon" ? z : nil
    }
    #expect(zone == "Europe/Lisbon")
    // timedated's own answer agrees, and status says the system zone is the one locd set.
    let property = try c.sh(
      "busctl get-property org.freedesktop.timedate1 /org/freedesktop/timedate1 org.freedesktop.timedate1 Timezone"
    )
    #expect(property.contains("\"Europe/Lisbon\""), "\(property)")
    let text = try c.locctl(["status"])
    #expect(!text.stdout.contains("not Europe/Lisbon"), "\(text.stdout)")
  }

  @Test func aRefusedTimeZoneShowsInStatusWithItsReason() throws {
    let c = try SystemContainer()
    defer { c.stop() }
    try c.install(try #require(SystemContainer.package), config: "[TimeZone]\nSetSystemTimeZone=yes\n")
    // The administrator takes the permission back (an /etc rule outranks the package's in
    // /usr/share: polkit reads both folders' files in name order, /etc first on a tie).
    try c.write(
      """
      polkit.addRule(function (action, subject) {
        if (action.id == "org.freedesktop.timedate1.set-timezone" && subject.user == "locd") {
          return polkit.Result.NO;
        }
      });
      """, to: "/etc/polkit-1/rules.d/10-deny-locd-timezone.rules")
    _ = try c.sh("systemctl try-restart polkit.service")
    let set = try c.locctl(["set-location", "38.7223,-9.1393"])
    #expect(set.status == 0, "\(set.stderr)")
    let s = try c.waitFor("status to tell the refusal", timeout: 20) { () throws -> StatusView? in
      let s = try c.status()
      return s.timezone.system?.problem == nil ? nil : s
    }
    let system = try #require(s.timezone.system)
    #expect(system.wanted == "Europe/Lisbon")
    #expect(system.zone == "Etc/UTC")
    #expect(system.problem?.contains("polkit refused user locd") == true, "\(system)")
    #expect(system.since != nil && system.retryAt != nil)
    #expect(try systemZone(c) == "Etc/UTC")
    let text = try c.locctl(["status"]).stdout
    #expect(!text.contains("locd sets it only with SetSystemTimeZone=yes"), "\(text)")
    #expect(text.contains("locd could not set Europe/Lisbon"), "\(text)")
    // The administrator takes the refusal back and reloads: asked again at once, and set.
    _ = try c.sh("rm /etc/polkit-1/rules.d/10-deny-locd-timezone.rules; systemctl try-restart polkit.service")
    _ = try c.sh("systemctl reload locd.service")
    let zone = try c.waitFor("/etc/localtime to name Europe/Lisbon after the reload", timeout: 20) {
      let z = try systemZone(c)
      return z == "Europe/Lisbon" ? z : nil
    }
    #expect(zone == "Europe/Lisbon")
    let after = try c.waitFor("status to drop the refusal") { () throws -> StatusView? in
      let s = try c.status()
      return s.timezone.system?.problem == nil ? s : nil
    }
    #expect(after.timezone.system?.zone == "Europe/Lisbon" && after.timezone.system?.setAt != nil)
  }

  @Test func aTimerStartsItsUnitThroughSystemdWithTheDocumentedRule() throws {
    let c = try SystemContainer()
    defer { c.stop() }
    try c.install(try #require(SystemContainer.package))
    try c.write(
      "[Unit]\nDescription=lamp\n[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart=/bin/true\n",
      to: "/etc/systemd/system/lamp.service")
    // The rule TIMERS.md documents, as an administrator would write it.
    try c.write(
      """
      polkit.addRule(function(action, subject) {
        if (action.id == "org.freedesktop.systemd1.manage-units" && subject.user == "locd" &&
            action.lookup("unit").match(/^(lamp|night-mode)\\.service$/) && action.lookup("verb") == "start")
          return polkit.Result.YES;
      });
      """, to: "/etc/polkit-1/rules.d/50-locd-units.rules")
    _ = try c.sh("systemctl daemon-reload")
    // A wall-clock rule a few seconds ahead (the container's zone is Etc/UTC and locd has no
    // position, so local time is UTC).
    let due = Date().addingTimeInterval(8)
    var t = time_t(due.timeIntervalSince1970)
    var parts = tm()
    gmtime_r(&t, &parts)
    let rule = String(format: "%02d:%02d:%02d", parts.tm_hour, parts.tm_min, parts.tm_sec)
    try c.write("[Timer]\nRule=\(rule)\n[Action]\nUnit=lamp.service\n", to: "/etc/locd/timers.d/lamp.timer")
    _ = try c.sh("systemctl reload-or-restart locd.service")
    let state = try c.waitFor("lamp.service to be started by the timer", timeout: 40) {
      let s = try c.property("lamp.service", "ActiveState")
      return s == "active" ? s : nil
    }
    #expect(state == "active")
    let journal = try c.journal("locd.service", priority: "info")
    #expect(journal.contains("timer lamp: started lamp.service"), "\(journal)")
  }
}
