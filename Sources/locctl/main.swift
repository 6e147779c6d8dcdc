import LocCore
import LocSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Prints to standard error.
func printError(_ text: String) {
  var line = text
  line += "\n"
  StandardStreams.writeError(line)
}

func usage() -> String {
  var text = "usage: locctl [--socket PATH] COMMAND [ARGS]\n\ncommands:\n"
  for command in allCommands {
    let pad = String(repeating: " ", count: max(1, 16 - command.name.count))
    text += "  \(command.name)\(pad)\(command.summary)\n"
  }
  return text
}

var arguments = Array(CommandLine.arguments.dropFirst())
// The global option --socket PATH; without it $LOCD_SOCKET, else the daemon's default
// (docs/man/locctl.1). The path reaches the client as a value.
var socket: String? = nil
if let first = arguments.first, first == "--socket" || first.hasPrefix("--socket=") {
  if first == "--socket" {
    guard arguments.count >= 2 else {
      printError("locctl: option --socket needs a value")
      exit(ExitStatus.usage)
    }
    socket = arguments[1]
    arguments.removeFirst(2)
  } else {
    socket = String(first.dropFirst("--socket=".count))
    arguments.removeFirst()
  }
}
if socket == nil, let value = getenv("LOCD_SOCKET"), value.pointee != 0 { socket = String(cString: value) }
guard let name = arguments.first, name != "--help", name != "-h", name != "help" else {
  print(usage(), terminator: "")
  exit(arguments.isEmpty ? ExitStatus.usage : ExitStatus.ok)
}
guard let command = allCommands.first(where: { $0.name == name }) else {
  printError("locctl: unknown command '\(name)'; see 'locctl --help'")
  exit(ExitStatus.usage)
}
exit(command.run(Array(arguments.dropFirst()), socket: socket ?? DaemonConfig().socketPath))
