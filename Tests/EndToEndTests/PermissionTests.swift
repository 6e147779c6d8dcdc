import Foundation
import Glibc
import LocCore
import Testing

/// Peers of other uids, made with setpriv(1): reading needs root, the daemon's uid or the
/// read group; changing needs root, the daemon's uid or the admin group. An unprivileged
/// peer learns no coordinates.
@Suite(.enabled(if: getuid() == 0, "needs root to run clients as other uids"))
struct PermissionTests {
  /// Runs locctl as uid/gid 65534 (nobody) with the given supplementary groups.
  func locctlAs(groups: [Int], _ daemon: LocdProcess, _ arguments: [String]) throws -> Completed {
    let groupArgs =
      groups.isEmpty ? ["--clear-groups"] : ["--groups=" + groups.map(String.init).joined(separator: ",")]
    return try run(
      URL(fileURLWithPath: "/usr/bin/setpriv"),
      ["--reuid=65534", "--regid=65534"] + groupArgs + [Binaries.locctl.path, "--socket", daemon.socketPath]
        + arguments)
  }

  /// The socket is open to every local user (mode 0666, docs/APPS.md): a stranger connects,
  /// and the daemon refuses what its access level does not allow.
  @Test func theDefaultSocketModeLetsStrangersInButTellsThemNothing() throws {
    let daemon = try LocdProcess()
    #expect(try daemon.locctl(["set-location", "59.9139", "10.7522"]).status == 0)
    var st = stat()
    #expect(stat(daemon.socketPath, &st) == 0)
    #expect(st.st_mode & 0o777 == 0o666)
    let r = try locctlAs(groups: [], daemon, ["status", "--json"])
    #expect(r.status == 4)
    #expect(r.stderr.contains("needs root or the socket group (permission-denied)"))
    #expect(r.stdout.isEmpty)
  }

  /// A missing socket group is a notice when the configuration names it, and not worth one
  /// when it is the built-in `locd` (make run from a source tree, where no package made it).
  @Test func aMissingSocketGroupIsNewsOnlyWhenConfigured() throws {
    let builtIn = try LocdProcess(arguments: ["--log-level", "info"])
    builtIn.stop()
    let named = try LocdProcess(
      arguments: ["--log-level", "info"], config: "[Daemon]\nSocketGroup=no-such-group-here\n")
    named.stop()
    #expect(named.log.contains("socket group 'no-such-group-here' does not exist"), "\(named.log)")
    if getgrnam("locd") == nil {
      #expect(!builtIn.log.contains("socket group"), "\(builtIn.log)")
    }
  }

  @Test func aStrangerWhoCanConnectLearnsNothing() throws {
    let daemon = try LocdProcess(config: "[Daemon]\nSocketMode=0666\nSocketGroup=\n")
    #expect(try daemon.locctl(["set-location", "59.9139", "10.7522"]).status == 0)
    for arguments in [
      ["status", "--json"], ["status"], ["watch", "--json"], ["set-location", "1", "1"], ["clear-location"],
      ["reload"],
    ] {
      let r = try locctlAs(groups: [], daemon, arguments)
      #expect(r.status == 4, "\(arguments): \(r.stderr)")
      #expect(r.stderr.contains("permission-denied"), "\(arguments): \(r.stderr)")
      #expect(!r.stdout.contains("59.9") && !r.stderr.contains("59.9"))
      #expect(!r.stdout.contains("10.75") && !r.stderr.contains("10.75"))
    }
    #expect(try daemon.status().position.position?.coordinate.latitude.value == 59.9139)
    #expect(try daemon.status().server.counters.permissionDenied == 6)
  }

  @Test func theReadGroupReadsAndTheAdminGroupWrites() throws {
    // gid 100 (users) reads, gid 50 (staff) administers: both exist on every Debian system.
    let daemon = try LocdProcess(
      config: "[Daemon]\nSocketMode=0666\nSocketGroup=\nReadGroup=100\nAdminGroup=50\n")
    #expect(try daemon.locctl(["set-location", "-33.8688", "151.2093"]).status == 0)
    let read = try locctlAs(groups: [100], daemon, ["status", "--json"])
    #expect(read.status == 0, "\(read.stderr)")
    #expect(read.stdout.contains("-33.8688"))
    let denied = try locctlAs(groups: [100], daemon, ["set-location", "1", "1"])
    #expect(denied.status == 4)
    let admin = try locctlAs(groups: [50], daemon, ["set-location", "1", "2", "--name", "by staff"])
    #expect(admin.status == 0, "\(admin.stderr)")
    #expect(try daemon.status().position.position?.name == "by staff")
  }
}
