import Testing

@testable import LocCore

/// App ids, units from /proc/PID/cgroup (systemd's naming for apps, Flatpak scopes, hybrid
/// layouts), and a hello's claim weighed against them.
@Suite struct AppIdentityTests {
  @Test(arguments: ["org.example.Weather", "firefox-esr", "a", "org.gnome.Maps", "x_y-z.1", "7zip"])
  func validIDs(_ text: String) {
    #expect(AppID(text)?.rawValue == text)
  }

  @Test(arguments: [
    "", ".org", "org.", "org..example", "-x", "_x", "org/example", "org example", "org.exämple", "a\u{0}b",
    String(repeating: "a", count: 256),
  ])
  func invalidIDs(_ text: String) {
    #expect(AppID(text) == nil)
  }

  @Test func longestIDIs255Bytes() {
    #expect(AppID(String(repeating: "a", count: 255)) != nil)
  }

  /// Units as systemd.io/DESKTOP_ENVIRONMENTS names them, with `-` inside an id escaped.
  @Test(arguments: [
    (
      "app-flatpak-org.example.Maps-12345.scope",
      PeerUnit.flatpak(AppID("org.example.Maps")!, unit: "app-flatpak-org.example.Maps-12345.scope")
    ),
    (
      "app-gnome-org.gnome.Evince-2437.scope",
      .app(AppID("org.gnome.Evince")!, unit: "app-gnome-org.gnome.Evince-2437.scope")
    ),
    (
      "app-org.gnome.Evince-2437.scope",
      .app(AppID("org.gnome.Evince")!, unit: "app-org.gnome.Evince-2437.scope")
    ),
    (
      "app-KDE-org.kde.okular@12345.service",
      .app(AppID("org.kde.okular")!, unit: "app-KDE-org.kde.okular@12345.service")
    ),
    (
      "app-org.example.Weather.service",
      .app(AppID("org.example.Weather")!, unit: "app-org.example.Weather.service")
    ),
    (
      "app-gnome-firefox\\x2desr-99.scope",
      .app(AppID("firefox-esr")!, unit: "app-gnome-firefox\\x2desr-99.scope")
    ),
    (
      "app-gnome-org.x.Y-autostart.service",
      .app(AppID("org.x.Y")!, unit: "app-gnome-org.x.Y-autostart.service")
    ),
    ("session-3.scope", .unit("session-3.scope")),
    ("cron.service", .unit("cron.service")),
    ("app-a-b-c-d.scope", .unit("app-a-b-c-d.scope")),
    ("app-gnome-bad\\x2-1.scope", .unit("app-gnome-bad\\x2-1.scope")),
    // A service's instance follows `@`; `-RANDOM` on a service is not the convention.
    ("app-flatpak-org.example.Maps-1.service", .unit("app-flatpak-org.example.Maps-1.service")),
  ])
  func unitNames(_ unit: String, _ expected: PeerUnit) {
    #expect(
      PeerUnit(cgroupPath: "/user.slice/user-1000.slice/user@1000.service/app.slice/\(unit)") == expected)
  }

  /// The innermost unit decides; cgroups below it are the unit's own.
  @Test func innermostUnitDecides() {
    let path = "/user.slice/user@1000.service/app.slice/app-flatpak-org.example.Maps-7.scope/sub"
    #expect(PeerUnit(cgroupPath: path).verifiedApp == AppID("org.example.Maps"))
    #expect(PeerUnit(cgroupPath: "/") == .none)
    #expect(PeerUnit(cgroupPath: "/user.slice") == .none)
  }

  /// cgroup2 wins when it names a cgroup below the root; a hybrid layout whose cgroup2
  /// line is `0::/` falls back to the `name=systemd` line.
  @Test func cgroupFileLayouts() {
    let unified = "0::/user.slice/user@1000.service/app.slice/app-flatpak-org.a.B-1.scope\n"
    #expect(PeerUnit(cgroupFile: unified).verifiedApp == AppID("org.a.B"))
    let hybrid = "9:name=systemd:/system.slice/gpsd.service\n4:memory:/x\n0::/\n"
    #expect(PeerUnit(cgroupFile: hybrid) == .unit("gpsd.service"))
    let both = "1:name=systemd:/system.slice/cron.service\n0::/app-flatpak-org.a.B-2.scope\n"
    #expect(PeerUnit(cgroupFile: both).verifiedApp == AppID("org.a.B"))
    #expect(PeerUnit(cgroupFile: "") == .none)
    #expect(PeerUnit(cgroupFile: "garbage\n:::\n") == .none)
  }

  @Test func claimsWeighedAgainstTheKernel() throws {
    let flatpak = PeerUnit.flatpak(AppID("org.example.Maps")!, unit: "app-flatpak-org.example.Maps-1.scope")
    let app = PeerUnit.app(AppID("org.gnome.Terminal")!, unit: "app-gnome-org.gnome.Terminal-5.scope")
    // A matching claim is verified.
    let maps = try AppIdentity.resolve(claim: "org.example.Maps", uid: 1000, unit: flatpak).get()
    #expect(maps?.verification == .flatpak && maps?.key == AppKey(uid: 1000, app: AppID("org.example.Maps")!))
    // A contradicting claim is refused with identity-mismatch.
    guard
      case .failure(let refusal) = AppIdentity.resolve(claim: "org.example.Bank", uid: 1000, unit: flatpak)
    else {
      Issue.record("a lying claim passed")
      return
    }
    #expect(refusal.error.code == .identityMismatch)
    #expect(refusal.error.message.contains("org.example.Maps"))
    // A Flatpak app is an app even without a claim; a systemd app scope's child is not.
    #expect(try AppIdentity.resolve(claim: nil, uid: 1000, unit: flatpak).get()?.verification == .flatpak)
    #expect(try AppIdentity.resolve(claim: nil, uid: 1000, unit: app).get() == nil)
    #expect(
      try AppIdentity.resolve(claim: "org.gnome.Terminal", uid: 1000, unit: app).get()?.verification
        == .systemd)
    // Elsewhere the claim stands, unverified, with the unit shown.
    let claimed = try AppIdentity.resolve(claim: "org.example.Tool", uid: 0, unit: .unit("cron.service"))
      .get()
    #expect(claimed?.verification == .claimed && claimed?.unit == "cron.service")
    #expect(try AppIdentity.resolve(claim: nil, uid: 0, unit: .none).get() == nil)
    guard case .failure(let bad) = AppIdentity.resolve(claim: "not an id", uid: 0, unit: .none) else {
      Issue.record("an invalid id passed")
      return
    }
    #expect(bad.error.code == .invalidParams)
  }

  /// The engine refuses a lying hello, counts it, and opens no session.
  @Test func engineRefusesALyingHello() {
    var h = EngineHarness(at: AppsDeliveryTests.t0)
    h.handle(.appsLoaded(nil, problem: nil))
    let unit = PeerUnit.flatpak(AppID("org.example.Maps")!, unit: "app-flatpak-org.example.Maps-1.scope")
    guard case .failure(let e)? = h.app(SessionID(1), "org.example.Bank", unit: unit) else {
      Issue.record("hello accepted")
      return
    }
    #expect(e.code == .identityMismatch)
    #expect(h.appsCounter("identityRefused") == 1)
    #expect(h.engine.status(at: h.now).sessions == 1, "only the harness's watcher")
    let ok = EngineHarness.status(h.app(SessionID(2), nil, unit: unit))
    #expect(ok?.identity.verification == .flatpak)
  }

  /// MaxAppsPerUser bounds the apps of one user with a clear error; other users are not affected.
  @Test func appsPerUserAreBounded() {
    var config = DaemonConfig()
    config.apps.maxAppsPerUser = 3
    var h = EngineHarness(config: config, at: AppsDeliveryTests.t0)
    h.handle(.appsLoaded(nil, problem: nil))
    for i in 1...3 { #expect(EngineHarness.status(h.app(SessionID(UInt64(i)), "org.example.A\(i)")) != nil) }
    guard case .failure(let e)? = h.app(SessionID(4), "org.example.A4") else {
      Issue.record("a 4th app accepted")
      return
    }
    #expect(e.code == .tooManyApps)
    #expect(e.message.contains("MaxAppsPerUser"))
    #expect(EngineHarness.status(h.app(SessionID(5), "org.example.A4", uid: 1001)) != nil)
    // A closed, undecided app is forgotten and makes room.
    h.handle(.sessionClosed(SessionID(1)))
    #expect(EngineHarness.status(h.app(SessionID(6), "org.example.A4")) != nil)
    #expect(h.appsCounter("tooManyApps") == 1)
  }
}
