import LocCore
import LocSystem

/// `locd --check-config`: the configuration file (or that there is none), the timer files
/// with what would keep their commands from running, and the settings in effect. Run as root
/// on a machine with the `locd` user, commands are checked as the shipped unit runs them: as
/// `locd`, without capabilities (locd.service), since that is where they will run.
struct ConfigCheck {
  /// The loader (its path and whether the file exists).
  var loader: ConfigLoader
  /// The configuration it read, with the command line over it.
  var config: DaemonConfig

  /// Prints the report; returns the exit status: 0 when all is well, 1 when a timer file has
  /// a problem (the configuration's own problems never get here: they exit 1 earlier).
  func run() -> Int32 {
    var out = ""
    if !FileIO.exists(path: loader.path) {
      out += "\(loader.path): does not exist; the defaults apply (an example is in locd.conf(5))\n"
    } else {
      out += "\(loader.path): OK\n"
    }
    if let face = config.defaultSourceSetAside {
      out +=
        "no source: the default \(SourceURI.defaultSource) would read \(face), which stands in for gpsd; "
        + "set Source= to the receiver; socket \(config.socketPath)\n"
    } else if config.usesDefaultSource {
      out +=
        "1 source (the default, \(SourceURI.defaultSource): gpsd on this machine), socket \(config.socketPath)\n"
    } else {
      out += "\(config.effectiveSources.count) source(s), socket \(config.socketPath)\n"
    }
    let accounts = ConfigCheck.serviceAccounts()
    let directory = config.timersDirectory
    let (timers, problems) = TimerFiles.load(
      directory: directory, limit: config.maxTimers, commandUser: config.commandUser,
      accounts: accounts.accounts)
    if !FileIO.exists(path: directory) {
      out += "\(directory): does not exist (no timer files)\n"
    } else {
      out += "\(directory): \(timers.count) timer(s), \(problems.count) problem(s)\n"
    }
    let commands = timers.filter { if case .command = $0.action { true } else { false } }
    if !commands.isEmpty {
      let user = accounts.accounts.user(timer: nil, configured: config.commandUser)
      out += "timer commands checked \(accounts.context); without User= they run as '\(user)'\n"
    }
    StandardStreams.writeOutput(out)
    for p in problems { StandardStreams.writeError(p + "\n") }
    StandardStreams.writeOutput("\n" + config.effectiveSettings)
    return problems.isEmpty ? 0 : 1
  }

  /// The accounts commands will have: this process's, or as root on a machine with a `locd`
  /// user, those of the shipped unit (`User=locd`, `CapabilityBoundingSet=` empty).
  static func serviceAccounts() -> (accounts: CommandAccounts, context: String) {
    let me = CommandAccounts.current()
    guard me.euid == 0, let service = CommandAccounts.account(named: "locd") else {
      return (me, "as this process runs (\(me.ownName ?? "uid \(me.euid)"))")
    }
    let unit = CommandAccounts(euid: service.uid, ownName: "locd", canSwitchUsers: false)
    return (unit, "as the shipped unit runs them (user locd, no capabilities)")
  }
}
