import LocCore
import LocSystem

#if canImport(Glibc)
  import Glibc
#endif

let usage = """
  usage: locd [OPTIONS]

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
    --check-config      check the configuration, print problems as FILE:LINE: ..., exit
    --version           print the version
  See locd(8) and locd.conf(5).

  """

func fail(_ message: String, status: Int32 = 2) -> Never {
  let line = "locd: \(message)\n"
  _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
  exit(status)
}

let options: CommandLineOptions
do {
  options = try CommandLineOptions(
    Array(CommandLine.arguments.dropFirst()),
    valued: ["config", "socket", "state-dir", "source", "log-level", "timers-dir", "clock"],
    flagNames: ["check-config", "version", "help", "exit-at-end"])
} catch {
  fail("\(error); see 'locd --help'")
}
if options.flag("help") {
  print(usage, terminator: "")
  exit(0)
}
if options.flag("version") {
  print("locd \(Daemon.version)")
  exit(0)
}
if !options.positionals.isEmpty { fail("unexpected argument '\(options.positionals[0])'") }

// Command-line values are checked now, so a typo fails at once rather than at reload.
var commandLineSources: [SourceURI] = []
for text in options.all("source") {
  do { commandLineSources.append(try SourceURI(parsing: text)) } catch { fail(error.description) }
}
var commandLineLevel: LogLevel? = nil
if let name = options.value("log-level") {
  guard let level = LogLevel(name: name) else { fail("unknown log level '\(name)'") }
  commandLineLevel = level
}
var clock = Daemon.ClockMode.system
switch options.value("clock") {
case nil, "system"?: break
case "replay"?: clock = .replay
case let other?: fail("unknown clock '\(other)'; use system or replay")
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
  for problem in failure.problems {
    let line = problem + "\n"
    _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
  }
  exit(options.flag("check-config") ? 1 : 78)  // EX_CONFIG (sysexits.h)
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
if options.flag("check-config") {
  print("\(loader.path): OK (\(config.effectiveSources.count) source(s), socket \(config.socketPath))")
  print(config.effectiveSettings, terminator: "")
  exit(0)
}

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
exit(daemon.run())
