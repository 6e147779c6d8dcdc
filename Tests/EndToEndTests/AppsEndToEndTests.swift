import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Apps against the real locd: app processes of three uids (setpriv) — the example app built
/// on the LocationManager library — real `locctl agent --policy` processes answering for two
/// of them, decisions kept over a restart, and an
/// identity the kernel vouches for (a process placed in a cgroup named like a Flatpak scope).
@Suite(.enabled(if: getuid() == 0, "needs root to run clients as other uids"), .serialized)
struct AppsEndToEndTests {
  static let rules = """
    # the agent's answers (locctl agent --policy)
    org.example.Weather  allow-while-using
    org.example.Once     allow-once
    org.example.Nosy     deny
    *                    ignore
    """

  /// `locctl ARGS` as `uid` (its own group, no others).
  func locctl(uid: Int, _ daemon: LocdProcess, _ arguments: [String], timeout: Double = 30) throws
    -> Completed
  {
    try run(
      URL(fileURLWithPath: "/usr/bin/setpriv"),
      [
        "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", Binaries.locctl.path, "--socket",
        daemon.socketPath,
      ]
        + arguments, timeout: timeout)
  }

  /// Starts `locctl agent --policy` as `uid`; waits until locd counts it.
  func agent(uid: Int, _ daemon: LocdProcess) throws -> Child {
    let rulesPath = daemon.directory + "/agent-\(uid).rules"
    try Self.rules.write(toFile: rulesPath, atomically: true, encoding: .utf8)
    chmod(rulesPath, 0o644)
    let child = try Child(
      "/usr/bin/setpriv",
      [
        "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--pdeathsig", "KILL", Binaries.locctl.path,
        "--socket",
        daemon.socketPath, "agent", "--policy", rulesPath,
      ])
    _ = try daemon.waitForStatus { $0.apps?.agents.contains(UInt32(uid)) == true }
    return child
  }

  /// The example app (Examples/WhereAmI, on the LocationManager library) as `uid`, against
  /// `daemon`; locd answers its locate at once (`--wait 0`).
  func whereAmI(uid: Int, _ daemon: LocdProcess, _ arguments: [String]) throws -> Completed {
    try run(
      URL(fileURLWithPath: "/usr/bin/setpriv"),
      [
        "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", Binaries.whereAmI.path, "--socket",
        daemon.socketPath, "--wait", "0", "--timeout", "20",
      ] + arguments, timeout: 30)
  }

  /// The app `app` of `uid` as root's `locctl apps` lists it.
  func listing(_ daemon: LocdProcess, uid: UInt32, _ app: String) throws -> AppListingView? {
    let all = try AppListResult(json: JSON.parse(Array(try daemon.locctl(["apps", "--json"]).stdout.utf8)))
    return all.apps.first { $0.uid == uid && $0.app == app }
  }

  /// The authorization objects an app printed (one JSON line each).
  func authorizations(_ r: Completed) throws -> [AppStatusView] {
    try r.stdout.split(separator: "\n").filter { $0.hasPrefix("{\"app\"") }.map {
      try AppStatusView(json: JSON.parse(Array($0.utf8)))
    }
  }

  @Test func threeUsersAnAgentEachOrNoneAndDecisionsSurviveARestart() throws {
    let daemon = try LocdProcess()
    #expect(try daemon.locctl(["set-location", "59.9139", "10.7522"]).status == 0)
    let agent1001 = try agent(uid: 1001, daemon)
    let agent1003 = try agent(uid: 1003, daemon)
    defer {
      kill(agent1001.pid, SIGTERM)
      kill(agent1003.pid, SIGTERM)
      agent1001.wait()
      agent1003.wait()
    }
    // uid 1001: the agent allows while using; the example app (the LocationManager library)
    // in the foreground gets the position, then an update.
    let weather = try whereAmI(
      uid: 1001, daemon, ["--app", "org.example.Weather", "--purpose", "forecasts", "--updates", "1"])
    #expect(weather.status == 0, "\(weather.stderr)")
    #expect(
      weather.stdout.split(separator: "\n") == [
        "authorization: when-in-use, full accuracy (claimed)", "location: 59.9139 10.7522 (manual)",
        "update 1: 59.9139 10.7522 (manual)",
      ], "\(weather.stdout)")
    let weatherListed = try listing(daemon, uid: 1001, "org.example.Weather")
    #expect(weatherListed?.decidedBy == "agent" && weatherListed?.purpose == "forecasts")
    // uid 1002 has no agent: the request waits and says so; no position.
    let lonely = try whereAmI(uid: 1002, daemon, ["--app", "org.example.Weather"])
    #expect(lonely.status == 1)
    #expect(lonely.stderr.contains("nobody answered (no-agent)"), "\(lonely.stderr)")
    #expect(!lonely.stdout.contains("location:"))
    #expect(
      try listing(daemon, uid: 1002, "org.example.Weather")?.status ?? .known(.notDetermined)
        == .known(.notDetermined))
    // uid 1003: the same app id is another decision; its agent denies Nosy (asked for always).
    let nosy = try whereAmI(uid: 1003, daemon, ["--app", "org.example.Nosy", "--always"])
    #expect(nosy.status == 2, "\(nosy.stderr)")
    #expect(nosy.stdout == "authorization: denied, full accuracy (claimed)\n")
    let denied = try locctl(uid: 1003, daemon, ["locate", "--timeout", "0"])
    #expect(denied.status == 4, "a plain session of a stranger reads nothing")
    // Allow Once for uid 1001 (not stored); `locctl app` shows the same flow from a shell.
    let once = try locctl(
      uid: 1001, daemon, ["app", "org.example.Once", "--request", "when-in-use", "--json"])
    #expect(try authorizations(once).last?.once == true)
    // Each user sees their own apps; root sees everyone's.
    let mine = try locctl(uid: 1003, daemon, ["apps", "--json"])
    let mineList = try AppListResult(json: JSON.parse(Array(mine.stdout.utf8)))
    #expect(mineList.apps.map(\.app) == ["org.example.Nosy"])
    #expect(try locctl(uid: 1003, daemon, ["apps", "--user", "1001"]).status == 4)
    // Restart: decisions kept, the once-grant forgotten.
    daemon.stop()
    let again = try LocdProcess(directory: daemon.directory)
    let all = try AppListResult(json: JSON.parse(Array(try again.locctl(["apps", "--json"]).stdout.utf8)))
    let byKey = Dictionary(uniqueKeysWithValues: all.apps.map { ("\($0.uid) \($0.app)", $0) })
    #expect(byKey["1001 org.example.Weather"]?.status == .known(.whenInUse))
    #expect(byKey["1003 org.example.Nosy"]?.status == .known(.denied))
    #expect(byKey["1001 org.example.Once"] == nil)
    #expect(byKey["1002 org.example.Weather"] == nil)
    // A file per user (apps/UID.json), each 0600, none with a position.
    for uid in [1001, 1003] {
      let path = again.stateDirectory + "/apps/\(uid).json"
      var st = stat()
      #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o600, "\(path)")
      let stored = try String(contentsOfFile: path, encoding: .utf8)
      #expect(!stored.contains("59.91") && !stored.contains("10.75"), "no position in \(path)")
    }
    // The user resets their own app; it may ask again.
    #expect(try locctl(uid: 1001, again, ["apps", "reset", "org.example.Weather"]).status == 0)
    let reset = try AppListResult(json: JSON.parse(Array(try again.locctl(["apps", "--json"]).stdout.utf8)))
    #expect(!reset.apps.contains { $0.app == "org.example.Weather" && $0.uid == 1001 })
  }

  /// A process in a cgroup named like a Flatpak scope is that app, whatever it claims: the
  /// true id is verified, a lie is refused with identity-mismatch.
  @Test func theKernelVouchesForAFlatpakApp() throws {
    let unified = "/sys/fs/cgroup/unified"
    let root = FileManager.default.fileExists(atPath: unified + "/cgroup.procs") ? unified : "/sys/fs/cgroup"
    let scope = root + "/app-flatpak-org.example.Maps-\(getpid()).scope"
    try #require(mkdir(scope, 0o755) == 0 || errno == EEXIST, "cannot make \(scope): errno \(errno)")
    defer { rmdir(scope) }
    let daemon = try LocdProcess()
    func inScope(_ claim: String) throws -> Completed {
      // The shell moves itself into the scope, then becomes locctl (same pid).
      try run(
        URL(fileURLWithPath: "/bin/sh"),
        [
          "-c", "echo $$ > \(scope)/cgroup.procs && exec \"$0\" --socket \"$1\" app \"$2\" --json",
          Binaries.locctl.path, daemon.socketPath, claim,
        ])
    }
    let honest = try inScope("org.example.Maps")
    #expect(honest.status == 0, "\(honest.stderr)")
    let told = try authorizations(honest).first
    #expect(told?.verified == .known(.flatpak))
    #expect(told?.unit == "app-flatpak-org.example.Maps-\(getpid()).scope")
    let liar = try inScope("org.example.Weather")
    #expect(liar.status == 1)
    #expect(
      liar.stderr.contains("identity-mismatch") && liar.stderr.contains("org.example.Maps"), "\(liar.stderr)")
    let status = try daemon.status()
    #expect(status.apps?.counters.first { $0.name == "identityRefused" }?.value == 1)
  }
}

/// docs/APPS.md shows the example app as it is built and tested.
@Suite struct AppsGuideTests {
  @Test func theGuideShowsTheExampleAsItIs() throws {
    let root = Binaries.packageRoot.path
    let guide = try String(contentsOfFile: root + "/docs/APPS.md", encoding: .utf8)
    let source = try String(contentsOfFile: root + "/Examples/WhereAmI/main.swift", encoding: .utf8)
    #expect(
      guide.contains("```swift\n" + source + "```\n"),
      "APPS.md's example differs from Examples/WhereAmI/main.swift")
  }
}
