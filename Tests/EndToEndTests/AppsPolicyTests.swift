import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// What the machine says about apps, against the real locd: the systemd unit a process runs
/// in (a cgroup2 directory named like a unit) and the policy files of a managed machine
/// (`[Apps] PolicyDirectory=` pointing at a directory of `*.conf`).
@Suite(.enabled(if: getuid() == 0, "needs root for cgroups and other uids"), .serialized)
struct AppsPolicyTests {
  /// The cgroup2 hierarchy (hybrid layouts mount it at /sys/fs/cgroup/unified).
  static var cgroupRoot: String {
    let unified = "/sys/fs/cgroup/unified"
    return FileManager.default.fileExists(atPath: unified + "/cgroup.procs") ? unified : "/sys/fs/cgroup"
  }

  /// `locctl app CLAIM --json` run from inside the cgroup `cgroup` (the shell moves itself
  /// there, then becomes locctl with the same pid).
  func app(in cgroup: String, claiming claim: String, _ daemon: LocdProcess) throws -> Completed {
    try run(
      URL(fileURLWithPath: "/bin/sh"),
      [
        "-c", "echo $$ > \(cgroup)/cgroup.procs && exec \"$0\" --socket \"$1\" app \"$2\" --json",
        Binaries.locctl.path, daemon.socketPath, claim,
      ])
  }

  /// A process in a unit named by systemd's convention for apps is that app, verified
  /// `systemd`; a claim that contradicts the unit is refused; a process in some other
  /// service (`foo.service`) keeps its claim, unverified, with the unit shown.
  @Test func theKernelVouchesForASystemdUnit() throws {
    let parent = Self.cgroupRoot + "/locd-e2e-\(getpid())"
    let clock = parent + "/app-gnome-org.example.Clock@\(getpid()).service"
    let other = parent + "/foo.service"
    for dir in [parent, clock, other] {
      try #require(mkdir(dir, 0o755) == 0 || errno == EEXIST, "cannot make \(dir): errno \(errno)")
    }
    defer { for dir in [clock, other, parent] { rmdir(dir) } }
    let daemon = try LocdProcess()
    let honest = try app(in: clock, claiming: "org.example.Clock", daemon)
    #expect(honest.status == 0, "\(honest.stderr)")
    let told = try AppStatusView(json: JSON.parse(Array(honest.stdout.split(separator: "\n")[0].utf8)))
    #expect(told.verified == .known(.systemd))
    #expect(told.unit == "app-gnome-org.example.Clock@\(getpid()).service")
    let liar = try app(in: clock, claiming: "org.example.Weather", daemon)
    #expect(liar.status == 1)
    #expect(
      liar.stderr.contains("identity-mismatch") && liar.stderr.contains("org.example.Clock"), "\(liar.stderr)"
    )
    let plain = try app(in: other, claiming: "org.example.Weather", daemon)
    #expect(plain.status == 0, "\(plain.stderr)")
    let claimed = try AppStatusView(json: JSON.parse(Array(plain.stdout.split(separator: "\n")[0].utf8)))
    #expect(claimed.verified == .known(.claimed) && claimed.unit == "foo.service")
    let s = try daemon.status()
    #expect(s.apps?.counters.first { $0.name == "identityRefused" }?.value == 1)
  }

  /// Policy files decide without an agent: a preset always with reduced accuracy (the app
  /// gets a grid cell, not the position), a restriction; a broken file and one others may
  /// write are listed as problems and ignored; a reload reads a changed rule.
  @Test func policyFilesOfAManagedMachine() throws {
    let directory = LocdProcess.makeDirectory()
    let policies = directory + "/apps.d"
    try #require(mkdir(policies, 0o755) == 0)
    func write(_ name: String, _ text: String, mode: mode_t = 0o644) throws {
      try text.write(toFile: policies + "/" + name, atomically: true, encoding: .utf8)
      chmod(policies + "/" + name, mode)
    }
    try write("managed.conf", "[App]\nID=org.example.Managed\nAuthorization=always\nAccuracy=reduced\n")
    try write("banned.conf", "[App]\nID=org.example.Banned\nUser=1001\nAuthorization=restricted\n")
    try write("broken.conf", "[App]\nID=org.example.Broken\nAuthorization=sometimes\n")
    try write("open.conf", "[App]\nID=org.example.Open\nAuthorization=always\n", mode: 0o666)
    let daemon = try LocdProcess(directory: directory, config: "[Apps]\nPolicyDirectory=\(policies)\n")
    #expect(try daemon.locctl(["set-location", "59.9139", "10.7522"]).status == 0)
    func whereAmI(_ uid: Int, _ app: String) throws -> Completed {
      try run(
        URL(fileURLWithPath: "/usr/bin/setpriv"),
        [
          "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", Binaries.whereAmI.path, "--socket",
          daemon.socketPath, "--app", app, "--wait", "0", "--timeout", "20",
        ])
    }
    // Always, reduced: decided by the policy with no agent running; the position is the
    // centre of its ~5 km cell (docs/APPS.md "Reduced accuracy"), not the true one, and the
    // accuracy reported covers the cell (half its diagonal, at least 3,536 m).
    let managed = try whereAmI(1001, "org.example.Managed")
    #expect(managed.status == 0, "\(managed.stderr)")
    let lines = managed.stdout.split(separator: "\n")
    #expect(lines.first == "authorization: always, reduced accuracy (claimed)", "\(managed.stdout)")
    let words = try #require(lines.dropFirst().first?.split(separator: " "))
    try #require(words.count >= 5 && words[0] == "location:", "\(managed.stdout)")
    let lat = try #require(Double(words[1]))
    let lon = try #require(Double(words[2]))
    let accuracy = try #require(Double(words[3].dropFirst()))
    #expect((lat, lon) != (59.9139, 10.7522))
    let truth = try #require(Coordinate(lat: 59.9139, lon: 10.7522))
    let cell = try #require(Coordinate(lat: lat, lon: lon))
    #expect(cell.distance(to: truth).value <= accuracy)
    #expect(accuracy >= 3536 && accuracy < 5000)
    // Restricted for uid 1001 only.
    let banned = try whereAmI(1001, "org.example.Banned")
    #expect(banned.status == 2)
    #expect(banned.stdout == "authorization: restricted, full accuracy (claimed)\n")
    let elsewhere = try whereAmI(1002, "org.example.Banned")
    #expect(elsewhere.status == 1 && elsewhere.stderr.contains("no-agent"), "\(elsewhere.stderr)")
    // The two bad files are problems; their apps are not decided by them.
    let s = try daemon.status()
    let problems = s.apps?.problems ?? []
    #expect(problems.contains { $0.contains("broken.conf") }, "\(problems)")
    #expect(problems.contains { $0.contains("open.conf") }, "\(problems)")
    #expect(try whereAmI(1001, "org.example.Open").stderr.contains("no-agent"))
    // Who decided and which file, in the authorization object an app is told.
    let told = try run(
      URL(fileURLWithPath: "/usr/bin/setpriv"),
      [
        "--reuid=1001", "--regid=1001", "--clear-groups", Binaries.locctl.path, "--socket", daemon.socketPath,
        "app", "org.example.Managed", "--json",
      ])
    let view = try AppStatusView(json: JSON.parse(Array(told.stdout.split(separator: "\n")[0].utf8)))
    #expect(view.decidedBy == "policy" && view.status == .known(.always) && view.accuracy == .known(.reduced))
    // A changed rule is read on reload.
    try write("managed.conf", "[App]\nID=org.example.Managed\nAuthorization=denied\n")
    #expect(try daemon.locctl(["reload"]).status == 0)
    let after = try whereAmI(1001, "org.example.Managed")
    #expect(after.status == 2)
    #expect(after.stdout.hasPrefix("authorization: denied"), "\(after.stdout)")
  }
}
