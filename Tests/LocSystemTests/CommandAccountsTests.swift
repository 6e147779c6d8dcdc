import Foundation
import Glibc
import LocCore
import LocSystem
import Testing

/// What keeps a timer's `Command=` from running, found when the files are loaded.
@Suite struct CommandAccountsTests {
  /// A scratch directory, removed by the caller.
  func scratch() throws -> String {
    var template = Array("/tmp/locd-accounts-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    try #require(made != nil)
    return String(cString: template)
  }

  func write(_ path: String, mode: mode_t) throws {
    try FileIO.write(path: path, Array("#!/bin/sh\n".utf8))
    #expect(chmod(path, mode) == 0)
  }

  @Test func programsMustExistBeExecutableAndSafe() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let me = CommandAccounts(euid: geteuid(), ownName: nil, canSwitchUsers: false)
    try write(dir + "/ok", mode: 0o755)
    try write(dir + "/plain", mode: 0o644)
    try write(dir + "/open", mode: 0o777)
    #expect(me.problem(program: dir + "/ok") == nil)
    #expect(me.problem(program: dir + "/plain")?.contains("not executable") == true)
    #expect(me.problem(program: dir + "/open")?.contains("writable by group or others") == true)
    #expect(me.problem(program: dir + "/missing")?.contains("does not exist") == true)
    #expect(me.problem(program: "relative/x")?.contains("not an absolute path") == true)
    #expect(me.problem(program: dir)?.contains("not a regular file") == true)
    // Owned by someone else (root owns /bin/sh; as root, a uid no one has would be needed).
    let other = CommandAccounts(euid: 4_000_000, ownName: nil, canSwitchUsers: false)
    #expect(other.problem(program: "/bin/sh") == nil, "root-owned programs are fine for anyone")
    if geteuid() != 0 {
      #expect(
        CommandAccounts(euid: 0, ownName: "root", canSwitchUsers: true).problem(program: dir + "/ok") != nil)
    }
  }

  @Test func theUserDefaultsToNobodyOnlyWhenLocdCanSwitch() {
    let root = CommandAccounts(euid: 0, ownName: "root", canSwitchUsers: true)
    let service = CommandAccounts(euid: 998, ownName: "locd", canSwitchUsers: false)
    #expect(root.user(timer: nil, configured: nil) == "nobody")
    #expect(service.user(timer: nil, configured: nil) == "locd")
    #expect(service.user(timer: nil, configured: "alice") == "alice")
    #expect(service.user(timer: "bob", configured: "alice") == "bob")
  }

  @Test func usersLocdCannotBecomeAreNamed() throws {
    let nobody = try #require(CommandAccounts.account(named: "nobody"))
    let service = CommandAccounts(euid: nobody.uid &+ 1, ownName: "svc", canSwitchUsers: false)
    let why = try #require(service.problem(runningAs: "nobody"))
    #expect(why.contains("cannot run commands as 'nobody'") && why.contains("leave User= out"))
    #expect(service.problem(runningAs: "no-such-user-locd")?.contains("does not exist") == true)
    let same = CommandAccounts(euid: nobody.uid, ownName: "nobody", canSwitchUsers: false)
    #expect(same.problem(runningAs: "nobody") == nil)
    let root = CommandAccounts(euid: 0, ownName: "root", canSwitchUsers: true)
    #expect(root.problem(runningAs: "nobody") == nil)
    let problems = service.problems(
      of: .command(argv: ["/no/such/program"], user: "nobody"), configuredUser: nil)
    #expect(problems.count == 2)
    #expect(service.problems(of: .startUnit("x.service"), configuredUser: nil).isEmpty)
  }
}
