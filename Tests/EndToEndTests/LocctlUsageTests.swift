import Testing

@Suite struct LocctlUsageTests {
  @Test func unknownCommandIsAUsageError() throws {
    let r = try run(Binaries.locctl, ["no-such-command"])
    #expect(r.status == 2)
    #expect(r.stderr.contains("unknown command 'no-such-command'"))
  }

  @Test func helpListsCommands() throws {
    let r = try run(Binaries.locctl, ["--help"])
    #expect(r.status == 0)
    #expect(r.stdout.hasPrefix("usage: locctl"))
  }
}
