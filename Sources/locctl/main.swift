import LocCore
import LocHost

/// Runs what the command line asks for; returns the exit status.
func main(_ arguments: [String]) -> Int32 {
  let parser = ArgumentParser(table: CommandTable.all, defaultCommand: "status")
  switch parser.parse(arguments) {
  case .help(let command?):
    Output.write(HelpText.command(command))
    return ExitStatus.ok
  case .help(nil):
    Output.write(HelpText.overview(CommandTable.all))
    return ExitStatus.ok
  case .version:
    Output.write(VersionReport.current().text(program: "locctl"))
    return ExitStatus.ok
  case .usage(let message, let command):
    let name = command.map { " \($0.name)" } ?? ""
    printError("locctl\(name): \(message)")
    printError("see 'locctl help\(name)'")
    return ExitStatus.usage
  case .run(let invocation):
    if invocation.flag("no-color") { Style.enabled = false }
    if invocation.flag("utc") { ScreenZone.utc = true }
    do {
      return try invocation.command.run(invocation)
    } catch {
      Output.flush()
      printError("locctl \(invocation.command.name): \(error)")
      // 'locctl help help' for a mistyped command name would not help (issue 43, item 10).
      let name = invocation.command.name
      printError(name == "help" ? "see 'locctl --help' for the commands" : "see 'locctl help \(name)'")
      return ExitStatus.usage
    }
  }
}

let status = main(Array(CommandLine.arguments.dropFirst()))
Output.flush()
CurrentProcess.exit(status)
