import LocCore
import LocSystem

let usage = """
  usage: locd-session [OPTIONS]

  Light and dark by the Sun for your desktop session: follows your light/dark schedule on
  locd's socket (never your position) and serves it as darkman's D-Bus interface, the
  desktop portal's color-scheme setting and darkman's dark-mode.d and light-mode.d scripts.
  Usually started with the graphical session (systemctl --user enable locd-session).

  options:
    --socket PATH       locd's socket (default /run/locd/locd.sock)
    --config FILE       the configuration (default $XDG_CONFIG_HOME/locd/session.conf,
                        else ~/.config/locd/session.conf; missing: the defaults)
    --log-level LEVEL   err, warning, notice, info or debug (default info)
    -h, --help          print this help and exit
    --version           print the versions and exit

  See locd-session(1).

  """

func fail(_ message: String) -> Never {
  StandardStreams.writeError("locd-session: \(message)\n")
  CurrentProcess.exit(2)
}

let options: CommandLineOptions
do {
  options = try CommandLineOptions(
    Array(CommandLine.arguments.dropFirst()), valued: ["socket", "config", "log-level"],
    flagNames: ["version", "help"], short: ["h": "help"])
} catch {
  fail("\(error); see 'locd-session --help'")
}
if options.flag("help") {
  StandardStreams.writeOutput(usage)
  CurrentProcess.exit(0)
}
if options.flag("version") {
  StandardStreams.writeOutput(VersionReport.current().text(program: "locd-session"))
  CurrentProcess.exit(0)
}
if let word = options.positionals.first {
  fail("unexpected argument '\(word)': locd-session takes only options; see 'locd-session --help'")
}
var level = LogLevel.info
if let name = options.value("log-level") {
  guard let l = LogLevel(name: name) else { fail("--log-level must be err, warning, notice, info or debug") }
  level = l
}
let service: SessionService
do {
  service = try SessionService(
    options: SessionService.Options(
      socketPath: options.value("socket") ?? DaemonConfig().socketPath, configPath: options.value("config"),
      logLevel: level))
} catch {
  fail("\(error)")
}
CurrentProcess.exit(service.run())
