// One fuzz target (fuzz/Main.swift lists them; fuzz/run.sh builds and runs them): locd.conf
// and timer files through ConfigFile.parse, DaemonConfig.apply (the key table) and
// TimerDefinition.parse. Besides "no crash, no trap": every problem names a line of the input,
// and what --check-config prints of a valid result reads back to the same configuration.

func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count

  var config = DaemonConfig()
  let problems = config.apply(fileText: text, fileName: "f")
  for p in problems where !(1...lines).contains(p.line) {
    fatalError("problem at line \(p.line) of \(lines): \(p.message)")
  }
  if problems.isEmpty {
    // Valid: what --check-config prints reads back to the same configuration.
    var again = DaemonConfig()
    let reread = again.apply(fileText: config.effectiveSettings, fileName: "printed")
    if !reread.isEmpty || again != config {
      fatalError("--check-config output does not read back: \(reread)\n\(config.effectiveSettings)")
    }
  }

  switch TimerDefinition.parse(fileText: text, name: "fuzz", path: "/f.timer", commandsAllowed: size % 2 == 0) {
  case .success(let timer):
    // A rule that parsed writes back to itself.
    if (try? TimerRule(parsing: timer.rule.description)) != timer.rule {
      fatalError("rule '\(timer.rule)' does not read back")
    }
  case .failure(let failure):
    if failure.problems.isEmpty { fatalError("a refused timer file without a problem") }
  }
  return 0
}
