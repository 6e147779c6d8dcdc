import LocCore

/// darkman's script convention (decision 0065): at each transition, the executables in
/// `dark-mode.d/` (or `light-mode.d/`) of every data directory run: $XDG_DATA_HOME first
/// (~/.local/share), then each of $XDG_DATA_DIRS (/usr/local/share:/usr/share); a name found
/// in an earlier directory masks the same name in a later one, so a user can replace or
/// disable (a non-executable file) a script a package ships. They run one after the other, in
/// the order of their names, each with locd-session's environment plus `LOCD_MODE`, without
/// a shell; their output goes where locd-session's goes (the journal). A mode that comes
/// while scripts run waits for them, and only the latest waits: after a long run (or a
/// resume), the scripts of the mode in effect run once.
final class ModeScripts {
  /// The directories searched, in order of precedence.
  let directories: [String]
  private let log: (LogLevel, String) -> Void
  /// What runs now: the mode, the scripts still to start, the running one's pid.
  private var current: (mode: LightDarkMode, rest: [String], pid: Int32?)?
  /// The mode to run once the current run is over.
  private var waiting: LightDarkMode?

  /// Most scripts read from one directory; more are left out (and logged).
  static let maxPerDirectory = 256

  /// A runner of the scripts in `directories`; it takes over SIGCHLD on `loop`.
  init(loop: EventLoop, directories: [String], log: @escaping (LogLevel, String) -> Void) throws(Errno) {
    self.directories = directories
    self.log = log
    try loop.onSignal(Signals.child) { [weak self] in self?.reap() }
  }

  /// The data directories of the XDG base directory specification, in order of precedence:
  /// $XDG_DATA_HOME (default $HOME/.local/share), then $XDG_DATA_DIRS (default
  /// /usr/local/share:/usr/share); relative entries are ignored, as the specification says.
  static func dataDirectories(environment: (String) -> String?) -> [String] {
    var out: [String] = []
    if let home = environment("XDG_DATA_HOME"), home.hasPrefix("/") {
      out.append(home)
    } else if let home = environment("HOME"), home.hasPrefix("/") {
      out.append(home + "/.local/share")
    }
    let dirs = environment("XDG_DATA_DIRS").flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
    for d in dirs.split(separator: ":") where d.hasPrefix("/") && !out.contains(String(d)) {
      out.append(String(d))
    }
    return out
  }

  /// The scripts of `mode`: executable entries of each `<dir>/<mode>-mode.d`, a name taken
  /// from the first directory that has it, in the order of their names.
  func scripts(for mode: LightDarkMode) -> [String] {
    var byName: [String: String] = [:]
    for dir in directories {
      let folder = "\(dir)/\(mode.rawValue)-mode.d"
      guard let names = try? FileIO.directoryEntries(path: folder) else { continue }
      if names.count > ModeScripts.maxPerDirectory {
        log(
          .warning,
          "\(folder): \(names.count) entries; only the first \(ModeScripts.maxPerDirectory) by name are run")
      }
      for name in names.sorted().prefix(ModeScripts.maxPerDirectory) where byName[name] == nil {
        byName[name] = "\(folder)/\(name)"
      }
    }
    return byName.keys.sorted().compactMap { name in
      guard let path = byName[name], (try? FileIO.status(path: path))?.kind == .regular,
        FileIO.isExecutable(path: path)
      else { return nil }
      return path
    }
  }

  /// Runs the scripts of `mode`, now or once the current run is over.
  func run(_ mode: LightDarkMode) {
    guard current == nil else {
      waiting = mode
      return
    }
    let list = scripts(for: mode)
    log(.info, "\(mode.rawValue) mode: \(list.count) script(s) to run")
    current = (mode, list, nil)
    next()
  }

  /// Starts the next script of the current run, or ends the run.
  private func next() {
    guard var run = current else { return }
    while let path = run.rest.first {
      run.rest.removeFirst()
      let environment = CurrentProcess.environmentEntries().filter { !$0.hasPrefix("LOCD_MODE=") }
      do {
        run.pid = try ChildProcess.spawn(
          path: path, arguments: [path], environment: environment + ["LOCD_MODE=\(run.mode.rawValue)"],
          identity: nil)
        current = run
        return
      } catch {
        log(.warning, "\(path): cannot start: \(error)")
      }
    }
    current = nil
    if let mode = waiting {
      waiting = nil
      self.run(mode)
    }
  }

  /// Collects the running script if it ended, and goes on.
  private func reap() {
    guard let run = current, let pid = run.pid, let status = ChildProcess.reap(pid) else { return }
    let signal = status & 0x7F
    let code = (status >> 8) & 0xFF
    if signal != 0 || code != 0 {
      log(
        .warning,
        "script (pid \(pid)) " + (signal != 0 ? "killed by signal \(signal)" : "exited with status \(code)"))
    }
    current?.pid = nil
    next()
  }
}
