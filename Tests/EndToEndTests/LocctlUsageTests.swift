import Testing

@Suite struct LocctlUsageTests {
  @Test func unknownCommandIsAUsageError() throws {
    let r = try run(Binaries.locctl, ["no-such-command"])
    #expect(r.status == 2)
    #expect(r.stderr.contains("unknown command 'no-such-command'"))
  }

  /// Issue 43, item 10: `help status` had a line of 170 columns; help is wrapped at the
  /// terminal's width, and at 80 columns when standard output is no terminal (here, a pipe).
  /// Only the examples may be longer: a command line is not broken.
  @Test(arguments: ["status", "locate", "sky", "wait"])
  func helpIsWrappedAt80ColumnsIntoAPipe(_ command: String) throws {
    let r = try run(Binaries.locctl, ["help", command])
    #expect(r.status == 0)
    let body = r.stdout.components(separatedBy: "\nexamples:\n")[0]
    let long = body.split(separator: "\n").filter { $0.count > 80 }
    #expect(long.isEmpty, "\(long)")
    let overview = try run(Binaries.locctl, ["--help"])
    #expect(overview.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 }, "\(overview.stdout)")
  }

  /// Issue 43, item 10: a mistyped name after `help` ended "see 'locctl help help'".
  @Test func aMistypedHelpNameSuggestsTheCommandAndTheList() throws {
    let r = try run(Binaries.locctl, ["help", "stauts"])
    #expect(r.status == 2)
    #expect(r.stderr.contains("did you mean 'status'?"), "\(r.stderr)")
    #expect(r.stderr.contains("see 'locctl --help' for the commands"), "\(r.stderr)")
    #expect(!r.stderr.contains("help help"), "\(r.stderr)")
  }

  @Test func helpListsCommands() throws {
    let r = try run(Binaries.locctl, ["--help"])
    #expect(r.status == 0)
    #expect(r.stdout.hasPrefix("usage: locctl"))
  }
}
