import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// locd-session with the real locd, the real xdg-desktop-portal (Debian's 1.16) and the real
/// dbus-daemon on a private session bus (decision 0065, docs/LIGHTDARK.md): an app's Read of
/// org.freedesktop.appearance color-scheme through the portal follows a sunrise and a sunset
/// in simulated time, with SettingChanged at each; darkman's interface member for member
/// against darkman's own description (Tests/Fixtures/darkman); the dark-mode.d and
/// light-mode.d scripts once per transition, also across a stop of the service (what a
/// suspend is to it); and a user of no group gets the schedule and no coordinate. The app is
/// Tests/Peers/portal-settings-client.py (python3-dbus), an app as any other of the portal.
@Suite(.serialized) struct LightDarkSessionTests {
  static let paris = (lat: 48.8566, lon: 2.3522)
  /// Tests/Fixtures/solar/reference.csv, Paris, 2024-03-20.
  static let sunrise = Instant(iso8601: "2024-03-20T05:52:43Z")!
  static let sunset = Instant(iso8601: "2024-03-20T18:04:00Z")!
  /// The schedule is worked out for the centre of the position's 25 km cell: at most 41 s
  /// from the reference at this latitude at an equinox (LightDarkEngineTests gives the
  /// reasoning); 50 s.
  static let cellSlack = 50.0

  static let canRun =
    GeoCluePrograms.busInstalled && FileManager.default.isExecutableFile(atPath: "/usr/bin/busctl")
  static let portalInstalled = canRun && WifiAppsTests.portalInstalled

  /// A receiver parked in Paris, a fix a second, from 120 s before to 60 s after the sunrise
  /// and again around the sunset (the replay plays the gap between as one second): every
  /// transition lies inside a segment, whatever the cell moves it by, at least 70 s after the
  /// segment's start.
  static func drive() -> String {
    var points: [(Instant, Double, Double, Double)] = []
    for event in [sunrise, sunset] {
      for s in -120...60 { points.append((event.adding(seconds: Double(s)), paris.lat, paris.lon, 0)) }
    }
    return syntheticNMEA(points)
  }

  /// The parts: a private session bus (desktop sway, locd-session's .portal file beside the
  /// stand-in's), locd replaying the drive at `speed`, data directories with scripts that
  /// write to `scriptLog`, and locd-session once `startService()`.
  final class Rig {
    let dir: String
    let session: PrivateSessionBus
    let environment: [String: String]
    /// The session's environment for the portal and the app.
    let desktop: [String: String]
    let locd: LocdProcess
    var service: LinePeer?
    var peers: [LinePeer] = []

    init(speed: Int = 6, config: String? = nil) throws {
      dir = LocdProcess.makeDirectory()
      session = try PrivateSessionBus(directory: dir + "/session")
      try FileManager.default.copyItem(
        atPath: Binaries.packageRoot.path + "/dbus/locd.portal",
        toPath: session.directory + "/portals/locd.portal")
      let home = dir + "/home-data"
      let system = dir + "/sys-data"
      var env = session.environment
      env["XDG_CURRENT_DESKTOP"] = "sway"
      // The portal and the app keep the system's data directories (GIO finds its schemas
      // there); locd-session gets the test's.
      desktop = env
      env["XDG_DATA_HOME"] = home
      env["XDG_DATA_DIRS"] = system
      env["XDG_CONFIG_HOME"] = dir + "/config"
      environment = env
      let log = dir + "/scripts.log"
      // The user's scripts mask a package's of the same name; a file without the
      // executable bit is no script.
      try Rig.script(home + "/dark-mode.d/10-log", "echo \"dark $LOCD_MODE\" >> \(log)")
      try Rig.script(home + "/light-mode.d/10-log", "echo \"light $LOCD_MODE\" >> \(log)")
      try Rig.script(system + "/dark-mode.d/10-log", "echo masked >> \(log)")
      try Rig.script(system + "/dark-mode.d/20-also", "echo also-dark >> \(log)")
      try Rig.script(system + "/light-mode.d/30-notexec", "echo notexec >> \(log)", executable: false)
      if let config {
        try FileManager.default.createDirectory(
          atPath: dir + "/config/locd", withIntermediateDirectories: true)
        try config.write(toFile: dir + "/config/locd/session.conf", atomically: true, encoding: .utf8)
      }
      try LightDarkSessionTests.drive().write(toFile: dir + "/drive.nmea", atomically: true, encoding: .utf8)
      locd = try LocdProcess(
        arguments: ["--clock", "replay", "--source", "replay:\(dir)/drive.nmea?speed=\(speed)"],
        directory: dir)
    }

    static func script(_ path: String, _ body: String, executable: Bool = true) throws {
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try "#!/bin/sh\n\(body)\n".write(toFile: path, atomically: true, encoding: .utf8)
      chmod(path, executable ? 0o755 : 0o644)
    }

    /// Starts the drive: locd holds a replay until a client subscribes (`locctl watch`).
    func play() throws {
      let watch = try LinePeer(
        Binaries.locctl.path, ["--socket", locd.socketPath, "watch", "--json"], environment: environment,
        output: dir + "/watch.out")
      peers.append(watch)
      _ = try locd.waitForStatus(timeout: 20) { $0.simulation?.time != nil }
    }

    /// Starts locd-session.
    func startService() throws -> LinePeer {
      let peer = try LinePeer(
        Binaries.locdSession.path, ["--socket", locd.socketPath, "--log-level", "debug"],
        environment: environment,
        output: dir + "/session.out")
      service = peer
      guard peer.waitFor("following the light/dark schedule") else {
        throw HarnessError("locd-session did not follow: \(peer.text)\n\(locd.log)")
      }
      return peer
    }

    func peer(_ path: String, _ arguments: [String], _ name: String) throws -> LinePeer {
      let p = try LinePeer(path, arguments, environment: desktop, output: dir + "/\(name).out")
      peers.append(p)
      return p
    }

    /// What the scripts wrote, a line each.
    var scriptLog: [String] {
      ((try? String(contentsOfFile: dir + "/scripts.log", encoding: .utf8)) ?? "").split(separator: "\n")
        .map(String.init)
    }

    /// Polls until the scripts wrote `count` lines (30 s at most).
    func waitForScripts(_ count: Int, timeout: Double = 30) -> Bool {
      let deadline = Date().addingTimeInterval(timeout)
      while Date() < deadline {
        if scriptLog.count >= count { return true }
        usleep(20_000)
      }
      return false
    }

    /// `locctl mode --json`.
    func schedule(environment extra: [String: String] = [:]) throws -> LightDarkView {
      let r = try locd.locctl(["mode", "--json"], environment: extra)
      guard r.status == 0 else { throw HarnessError("locctl mode: \(r.stderr)") }
      return try decodeOutput(r.stdout)
    }

    /// locd's simulated now.
    func simulated() throws -> Instant? { try locd.status().simulation?.time }

    /// Polls until simulated time is at least `t` (60 s at most).
    func waitForSimulated(_ t: Instant) throws {
      _ = try locd.waitForStatus(timeout: 60) { ($0.simulation?.time).map { $0 >= t } ?? false }
    }

    deinit {
      for p in peers { p.stop() }
      service?.stop()
      locd.stop()
    }
  }

  /// The transitions of the drive's day, checked against the reference.
  static func transitions(_ rig: Rig) throws -> (sunrise: Instant, sunset: Instant) {
    let s = try rig.schedule()
    let light = try #require(s.transitions.first)
    let dark = try #require(s.transitions.dropFirst().first)
    #expect(
      light.mode == .light && abs(light.at.seconds(since: sunrise)) <= cellSlack, "\(s.json.serialized)")
    #expect(dark.mode == .dark && abs(dark.at.seconds(since: sunset)) <= cellSlack, "\(s.json.serialized)")
    return (light.at, dark.at)
  }

  @Test(
    .enabled(
      if: portalInstalled, "needs xdg-desktop-portal, dbus-daemon, busctl, python3-dbus and python3-gi"))
  func anAppsColorSchemeThroughThePortalFollowsSunriseAndSunset() throws {
    let rig = try Rig()
    let service = try rig.startService()
    let portal = try rig.peer(WifiAppsTests.portal, ["--verbose"], "portal")
    guard portal.waitFor("providing portal org.freedesktop.portal.Settings", timeout: 20) else {
      throw HarnessError("xdg-desktop-portal offers no Settings portal: \(portal.text)")
    }
    let app = try rig.peer(GeoCluePrograms.peer("portal-settings-client.py"), ["180"], "app")
    // No position before the drive: no schedule, no preference.
    #expect(app.waitFor(#"{"read": 0}"#, timeout: 20), "\(app.text)\n\(portal.text)")
    try rig.play()
    // The first fix (120 s before the sunrise) gives the schedule: dark.
    #expect(app.waitFor(#"{"changed": 1, "read": 1}"#, timeout: 30), "\(app.text)\n\(service.text)")
    let (sunrise, sunset) = try Self.transitions(rig)
    #expect(try #require(try rig.simulated()) < sunrise, "dark before the sunrise")

    #expect(app.waitFor(#"{"changed": 2, "read": 2}"#, timeout: 60), "\(app.text)\n\(service.text)")
    let afterSunrise = try #require(try rig.simulated())
    #expect(afterSunrise >= sunrise, "SettingChanged came with the sunrise, not before")
    #expect(afterSunrise < sunset)
    // The third change: the sunset.
    #expect(
      app.waitFor(#"{"changed": 1, "read": 1}"#, occurrences: 2, timeout: 60), "\(app.text)\n\(service.text)")
    #expect(try #require(try rig.simulated()) >= sunset)
    // One change per transition, in order: no flapping.
    let changes = app.text.split(separator: "\n").filter { $0.contains("changed") }
    #expect(
      changes == [
        #"{"changed": 1, "read": 1}"#, #"{"changed": 2, "read": 2}"#, #"{"changed": 1, "read": 1}"#,
      ],
      "\(app.text)")
    // The scripts: dark at start, light at sunrise, dark at sunset, each mode's in the order
    // of their names; the package's 10-log masked by the user's, the non-executable one never.
    #expect(rig.waitForScripts(5))
    #expect(
      rig.scriptLog == ["dark dark", "also-dark", "light light", "dark dark", "also-dark"], "\(rig.scriptLog)"
    )
  }

  /// A stopped process runs nothing, like a suspended machine: the events of the transitions
  /// it slept through wait in its socket and are read at once when it goes on. The scripts
  /// then run once, for the mode now.
  @Test(.enabled(if: canRun, "needs dbus-daemon and busctl"))
  func theScriptsRunOncePerTransitionAcrossAStop() throws {
    let rig = try Rig()
    let service = try rig.startService()
    try rig.play()
    #expect(rig.waitForScripts(2), "the dark scripts at start: \(rig.scriptLog)\n\(service.text)")
    let (sunrise, sunset) = try Self.transitions(rig)
    #expect(try #require(try rig.simulated()) < sunrise)
    kill(service.pid, SIGSTOP)
    try rig.waitForSimulated(sunrise.adding(seconds: 3))
    kill(service.pid, SIGCONT)
    #expect(rig.waitForScripts(3))
    kill(service.pid, SIGSTOP)
    try rig.waitForSimulated(sunset.adding(seconds: 3))
    #expect(rig.scriptLog.count == 3, "nothing ran while stopped: \(rig.scriptLog)")
    kill(service.pid, SIGCONT)
    #expect(rig.waitForScripts(5))
    _ = try rig.locd.waitForStatus(timeout: 60) { $0.simulation?.state == .known(.finished) }
    // Exactly these five, the replay over: no transition's scripts ran twice across the stop.
    #expect(
      rig.scriptLog == ["dark dark", "also-dark", "light light", "dark dark", "also-dark"], "\(rig.scriptLog)"
    )
    #expect(service.text.components(separatedBy: "dark mode: 2 script(s)").count - 1 == 2, "\(service.text)")
  }

  /// `busctl --user introspect` of locd-session's darkman object against darkman's own
  /// description (Tests/Fixtures/darkman/dbus-api.xml): every interface and member the file
  /// names, with its signatures; darkman's interface with nothing more; Mode writable (see the
  /// fixture's PROVENANCE.md). Then Mode read and written with busctl, as darkman's clients do.
  @Test(.enabled(if: canRun, "needs dbus-daemon and busctl"))
  func darkmansInterfaceMemberForMember() throws {
    // The replay stays held: no position, no schedule, so Mode says light (darkman's Mode has
    // no third value) until a mode is set by hand.
    let rig = try Rig()
    let service = try rig.startService()
    #expect(service.waitFor("serving darkman's interface"), "\(service.text)")
    let busctl = URL(fileURLWithPath: "/usr/bin/busctl")
    let path = "/nl/whynothugo/darkman"
    let introspected = try run(
      busctl, ["--user", "introspect", "nl.whynothugo.darkman", path], environment: rig.environment)
    #expect(introspected.status == 0, "\(introspected.stderr)")
    let ours = Self.busctlMembers(introspected.stdout)
    let fixture = try String(contentsOf: Binaries.fixture("darkman/dbus-api.xml"), encoding: .utf8)
    let documented = Self.xmlMembers(fixture)
    #expect(documented.count == 7, "the fixture's members: \(documented)")
    for (key, member) in documented {
      let got = try #require(ours[key], "\(key) is missing: \(introspected.stdout)")
      #expect(got.signature == member.signature && got.result == member.result, "\(key): \(got) vs \(member)")
    }
    let darkmans = ours.keys.filter { $0.hasPrefix("nl.whynothugo.darkman.") }
    #expect(Set(darkmans) == Set(documented.keys.filter { $0.hasPrefix("nl.whynothugo.darkman.") }))
    let mode = try #require(ours["nl.whynothugo.darkman.Mode"])
    #expect(mode.flags.contains("emits-change") && mode.flags.contains("writable"), "\(mode)")

    let get = ["--user", "get-property", "nl.whynothugo.darkman", path, "nl.whynothugo.darkman", "Mode"]
    #expect(try run(busctl, get, environment: rig.environment).stdout == "s \"light\"\n")
    let monitor = try rig.peer(
      "/usr/bin/dbus-monitor", ["--session", "type='signal',interface='nl.whynothugo.darkman'"], "monitor")
    #expect(monitor.waitFor("NameAcquired"), "\(monitor.text)")
    let set = ["--user", "set-property", "nl.whynothugo.darkman", path, "nl.whynothugo.darkman", "Mode", "s"]
    #expect(try run(busctl, set + ["dark"], environment: rig.environment).status == 0)
    #expect(try run(busctl, get, environment: rig.environment).stdout == "s \"dark\"\n")
    #expect(monitor.waitFor("string \"dark\""), "ModeChanged: \(monitor.text)")
    // Set through darkman's interface is the user's override in locd (with no schedule, until
    // there is one and its first transition comes).
    let s = try rig.schedule()
    #expect(s.mode == .dark && s.scheduled == nil && s.override?.mode == .dark, "\(s.json.serialized)")
    // darkman refuses other words (InvalidArgs), and so does locd-session.
    let grey = try run(busctl, set + ["grey"], environment: rig.environment)
    #expect(grey.status != 0 && grey.stderr.contains("Mode is"), "\(grey.stderr)")
    // locctl goes back to the schedule: darkman's clients see it.
    #expect(try rig.locd.locctl(["mode", "auto"]).status == 0)
    #expect(monitor.waitFor("string \"light\""), "\(monitor.text)")
    #expect(try run(busctl, get, environment: rig.environment).stdout == "s \"light\"\n")
  }

  /// The user's rules from ~/.config/locd/session.conf go to locd with the follow request, and
  /// again after `systemctl --user reload locd-session` (SIGHUP); a file with a wrong value
  /// keeps the default for it, with the file's line in the log.
  @Test(.enabled(if: canRun, "needs dbus-daemon and busctl"))
  func theUsersRulesGoToLocdAndAReloadSendsThemAgain() throws {
    let rig = try Rig(
      config: "[LightDark]\nDark=civil-dusk\nLight=elevation:3:morning\n[Faces]\nScripts=no\n")
    let service = try rig.startService()
    var s = try rig.schedule()
    #expect(s.dark == "civil-dusk" && s.light == "elevation:3:morning", "\(s.json.serialized)")
    try "[LightDark]\nDark=sunset+15m\nLight=dawn\n".write(
      toFile: rig.dir + "/config/locd/session.conf", atomically: true, encoding: .utf8)
    kill(service.pid, SIGHUP)
    #expect(service.waitFor("configuration read again"), "\(service.text)")
    #expect(service.text.contains("session.conf:3: Light= must be"), "\(service.text)")
    // locd reads locd-session's request on its own connection: wait for it to be taken.
    let deadline = Date().addingTimeInterval(10)
    repeat {
      s = try rig.schedule()
      if s.dark != "civil-dusk" { break }
      usleep(50_000)
    } while Date() < deadline
    #expect(s.dark == "sunset+15m" && s.light == "sunrise", "\(s.json.serialized)")
  }

  /// On a desktop with its own scheduler (GNOME), Portal=auto leaves the portal to it.
  @Test(.enabled(if: canRun, "needs dbus-daemon and busctl"))
  func onGnomeThePortalBackendIsLeftToTheDesktop() throws {
    let rig = try Rig()
    var environment = rig.environment
    environment["XDG_CURRENT_DESKTOP"] = "GNOME"
    let gnome = try LinePeer(
      Binaries.locdSession.path, ["--socket", rig.locd.socketPath], environment: environment,
      output: rig.dir + "/gnome.out")
    defer { gnome.stop() }
    #expect(gnome.waitFor("no portal Settings backend on desktop 'GNOME'"), "\(gnome.text)")
    let names = try run(
      URL(fileURLWithPath: "/usr/bin/busctl"), ["--user", "list", "--acquired"], environment: environment)
    #expect(!names.stdout.contains("org.freedesktop.impl.portal.desktop.locd"), "\(names.stdout)")
  }

  /// A user of no group (uid 65534, as setpriv makes it) gets the schedule, and nothing in it
  /// is a coordinate; status stays refused; the mode they set is theirs alone.
  @Test(.enabled(if: getuid() == 0, "needs root to run a client as another uid"))
  func aUserOfNoGroupGetsTheScheduleAndNoCoordinate() throws {
    let locd = try LocdProcess()
    #expect(try locd.locctl(["set-location", "48.8566", "2.3522"]).status == 0)
    func asNobody(_ arguments: [String]) throws -> Completed {
      try run(
        URL(fileURLWithPath: "/usr/bin/setpriv"),
        [
          "--reuid=65534", "--regid=65534", "--clear-groups", Binaries.locctl.path, "--socket",
          locd.socketPath,
        ]
          + arguments)
    }
    let mode = try asNobody(["mode", "--json"])
    #expect(mode.status == 0, "\(mode.stderr)")
    let view: LightDarkView = try decodeOutput(mode.stdout)
    #expect(view.mode != nil && view.transitions.count == 2 && view.timezone == "Europe/Paris")
    // The members of the schedule object, and only those (PROTOCOL.md): times, words, rules.
    let json = try JSON.parse(mode.stdout)
    #expect(
      Set(json.object?.keys ?? []) == [
        "mode", "scheduled", "since", "transitions", "rules", "override", "note", "timezone",
      ])
    for word in ["lat", "lon", "accuracy", "48.8", "2.35"] {
      #expect(!mode.stdout.contains(word), "\(word) in \(mode.stdout)")
    }
    let status = try asNobody(["status"])
    #expect(status.status != 0 && status.stderr.contains("permission"), "\(status.stderr)")
    // Their override is theirs: root's schedule has none.
    #expect(try asNobody(["mode", "toggle"]).status == 0)
    let roots: LightDarkView = try decodeOutput(try locd.locctl(["mode", "--json"]).stdout)
    #expect(roots.override == nil)
    // A reader's status shows their schedule beside the Sun.
    #expect(try locd.locctl(["status"]).stdout.contains("Light/dark:"))
    #expect(locd.stop() == 0)
  }

  /// A session of no access that follows its schedule waits for events, as an agent waits
  /// for prompts: IdleTimeout= does not close it (it closes the one beside it that does
  /// nothing), and it goes on being answered.
  @Test(.enabled(if: getuid() == 0, "needs root to run clients as another uid"))
  func aFollowerOfNoGroupIsNotClosedForIdling() throws {
    let locd = try LocdProcess(config: SquattingTests.open + "[Limits]\nIdleTimeout=300ms\n")
    #expect(try locd.locctl(["set-location", "48.8566", "2.3522"]).status == 0)
    let clients = try ForeignClients(locd, count: 2)
    try clients.helloAll()
    try clients.send(0, .lightDark(follow: true), id: .number(1))
    _ = try clients.message(0, { $0.isReply(to: 1) })
    // The positive signal that the timeout passed: the other session is closed for idling.
    try clients.wait { $0[1]?.last == "EOF" }
    #expect(try locd.waitForStatus { $0.server.counters.droppedIdle == 1 }.lightDark?.followers == 1)
    #expect(!clients.closed(0))
    try clients.send(0, .setMode(.toggle), id: .number(2))
    guard case .reply(_, let result) = try clients.message(0, { $0.isReply(to: 2) }) else {
      Issue.record("no answer to set-mode: \(try clients.messages(0).map(\.line))")
      return
    }
    #expect(try Call.setMode(.toggle).result(result).override != nil)
    #expect(try locd.status().server.counters.droppedIdle == 1)
  }

  // MARK: Reading interfaces

  struct Member: Equatable, CustomStringConvertible {
    var kind: String
    var signature: String
    var result: String
    var flags: String
    var description: String { "\(kind) \(signature) -> \(result) [\(flags)]" }
  }

  /// `busctl introspect`'s table (NAME TYPE SIGNATURE RESULT/VALUE FLAGS) by
  /// `interface.member`; a property's RESULT is its value, left out.
  static func busctlMembers(_ text: String) -> [String: Member] {
    var out: [String: Member] = [:]
    var interface = ""
    for line in text.split(separator: "\n").dropFirst() {
      let f = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
      guard f.count >= 2 else { continue }
      if f[1] == "interface" {
        interface = f[0]
        continue
      }
      guard f[0].hasPrefix(".") else { continue }
      let sig = f.count > 2 && f[2] != "-" ? f[2] : ""
      let result = f[1] == "method" && f.count > 3 && f[3] != "-" ? f[3] : ""
      let flags = f[1] == "property" ? f.dropFirst(4).joined(separator: " ") : ""
      out[interface + f[0]] = Member(kind: f[1], signature: sig, result: result, flags: flags)
    }
    return out
  }

  /// The members of an introspection XML by `interface.member`: a method's input and output
  /// signatures (its args in order), a signal's arguments, a property's type.
  static func xmlMembers(_ xml: String) -> [String: Member] {
    var out: [String: Member] = [:]
    for block in xml.components(separatedBy: "<interface name=\"").dropFirst() {
      let interface = String(block.prefix { $0 != "\"" })
      let body = block.components(separatedBy: "</interface>")[0]
      for kind in ["method", "signal"] {
        for part in body.components(separatedBy: "<\(kind) name=\"").dropFirst() {
          let name = String(part.prefix { $0 != "\"" })
          let inside = part.components(separatedBy: "</\(kind)>")[0]
          var input = ""
          var output = ""
          for arg in inside.components(separatedBy: "<arg ").dropFirst() {
            let type = Self.attribute("type", in: arg)
            if kind == "method", Self.attribute("direction", in: arg) == "out" {
              output += type
            } else {
              input += type
            }
          }
          out["\(interface).\(name)"] = Member(kind: kind, signature: input, result: output, flags: "")
        }
      }
      for part in body.components(separatedBy: "<property name=\"").dropFirst() {
        let name = String(part.prefix { $0 != "\"" })
        out["\(interface).\(name)"] = Member(
          kind: "property", signature: Self.attribute("type", in: part), result: "", flags: "")
      }
    }
    return out
  }

  static func attribute(_ name: String, in text: String) -> String {
    guard let r = text.range(of: "\(name)=\"") else { return "" }
    return String(text[r.upperBound...].prefix { $0 != "\"" })
  }
}
