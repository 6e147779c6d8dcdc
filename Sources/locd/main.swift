import LocCore
import LocSystem

let usage = """
  usage: locd [OPTIONS]

  The location manager daemon: position, time zone and sun times from GPS, served on a
  Unix socket to locctl and other programs. Usually started by systemd (locd.service).

  options:
    --config FILE       configuration file (default /etc/locd/locd.conf)
    --socket PATH       control socket (default /run/locd/locd.sock)
    --state-dir DIR     where the last-known position is kept (default /var/lib/locd)
    --source URI        a fix source; repeatable (default gpsd://127.0.0.1:2947)
    --log-level LEVEL   err, warning, notice, info or debug (default info)
    --timers-dir DIR    where NAME.timer files are read (default /etc/locd/timers.d)
    --clock CLOCK       system (default) or replay: time follows the replay source's fix
                        times, so a recorded drive plays through in simulated time
    --exit-at-end       with --clock replay: exit (status 0) once the replay has ended and
                        clients have read what was queued for them
    --check-config      check the configuration and the timer files, print problems as
                        FILE:LINE: ..., exit 0 when all is well and 1 when not
    -h, --help          print this help and exit
    --version           print the versions (locd, protocol, boundary data, tzdata) and exit

  See locd(8) and locd.conf(5).

  """

func fail(_ message: String, status: Int32 = 2) -> Never {
  StandardStreams.writeError("locd: \(message)\n")
  CurrentProcess.exit(status)
}

let options: CommandLineOptions
do {
  options = try CommandLineOptions(
    Array(CommandLine.arguments.dropFirst()),
    valued: ["config", "socket", "state-dir", "source", "log-level", "timers-dir", "clock"],
    flagNames: ["check-config", "version", "help", "exit-at-end"], short: ["h": "help"])
} catch {
  fail("\(error); see 'locd --help'")
}
if options.flag("help") {
  StandardStreams.writeOutput(usage)
  CurrentProcess.exit(0)
}
if options.flag("version") {
  StandardStreams.writeOutput(VersionReport.current().text(program: "locd"))
  CurrentProcess.exit(0)
}
if let word = options.positionals.first {
  fail("unexpected argument '\(word)': locd takes only options; see 'locd --help'")
}

// Command-line values are checked now, so a typo fails at once rather than at reload.
var commandLineSources: [SourceURI] = []
for text in options.all("source") {
  do { commandLineSources.append(try SourceURI(parsing: text)) } catch { fail(error.description) }
}
var commandLineLevel: LogLevel? = nil
if let name = options.value("log-level") {
  guard let level = LogLevel(name: name) else {
    let names = ["err", "warning", "notice", "info", "debug"]
    fail(
      "unknown log level '\(name)'" + Suggestion.hint(for: name, among: names)
        + "; levels: err, warning, notice, info, debug")
  }
  commandLineLevel = level
}
var clock = Daemon.ClockMode.system
switch options.value("clock") {
case nil, "system"?: break
case "replay"?: clock = .replay
case let other?:
  fail(
    "unknown clock '\(other)'" + Suggestion.hint(for: other, among: ["system", "replay"])
      + "; use system or replay")
}
let timersOverride = options.value("timers-dir")
let socketOverride = options.value("socket")
let stateOverride = options.value("state-dir")
let loader = ConfigLoader(
  path: options.value("config") ?? ConfigLoader.defaultPath, optional: options.value("config") == nil
) { config in
  if let socketOverride { config.socketPath = socketOverride }
  if let stateOverride { config.stateDirectory = stateOverride }
  if let timersOverride { config.timersDirectory = timersOverride }
  if !commandLineSources.isEmpty { config.sources = commandLineSources }
  if let commandLineLevel { config.logLevel = commandLineLevel }
}

let config: DaemonConfig
switch loader.load() {
case .success(let c): config = c
case .failure(let failure):
  for problem in failure.problems { StandardStreams.writeError(problem + "\n") }
  CurrentProcess.exit(options.flag("check-config") ? 1 : 78)  // EX_CONFIG (sysexits.h)
}
if clock == .replay {
  // Simulated time needs one clock: the fixes of replay sources (or a capture's times).
  for source in config.effectiveSources {
    switch source {
    case .beaconReplay: continue
    case .replay(_, _, let loops):
      if loops, options.flag("exit-at-end") { fail("--exit-at-end: \(source) loops, so it never ends") }
    default: fail("--clock replay needs replay: sources only, not \(source)")
    }
  }
} else if options.flag("exit-at-end") {
  fail("--exit-at-end needs --clock replay")
}
if options.flag("check-config") { CurrentProcess.exit(ConfigCheck(loader: loader, config: config).run()) }

// The boundary file is memory-mapped: opening it costs a header check, no parsing.
let boundaries: ZoneBoundaryFile?
do {
  boundaries = try ZoneBoundaryFile.open()
} catch {
  Logger(level: config.logLevel).warning(
    "no time-zone boundary data (\(error)); using the configured or system zone")
  boundaries = nil
}
let zoneData = ZoneData(boundaries: boundaries)
let daemon: Daemon
do {
  daemon = try Daemon(
    config: config, loader: loader, zoneData: zoneData, makeSource: SourceFactory.make, clock: clock,
    exitAtEnd: options.flag("exit-at-end"))
} catch {
  fail("cannot start: \(error)", status: 1)
}
CurrentProcess.exit(daemon.run())
