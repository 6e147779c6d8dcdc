import LocCore
import LocProtocol

/// The state files read at start and on reload: timer files and the timer store, app
/// policy files and apps.json.
extension Daemon {
  /// Reads the timer files (and at start the timer store) and hands them to the engine.
  func loadTimers(initial: Bool) {
    let (definitions, problems) = TimerFiles.load(
      directory: config.timersDirectory, limit: config.maxTimers, commandUser: config.commandUser)
    var store: TimerStore? = nil
    var allProblems = problems
    if initial {
      var notes: [String] = []
      defer { for note in notes { logger.warning(note) } }
      switch files.timers.read(notes: &notes) {
      case .success(let s): store = s ?? TimerStore()
      case .failure(let why):
        files.counters.refused += 1
        allProblems.append("\(why); runtime timers and timer memory start empty")
        store = TimerStore()
      }
    }
    feed(.timersLoaded(definitions, problems: allProblems, store: store))
  }

  /// Reads the app policy files (and at start the apps store: every user's file, and the
  /// apps.json of earlier versions, split) and hands them to the engine. A user's file that
  /// cannot be used is set aside (renamed with `.bad`) and costs that user only.
  func loadApps(initial: Bool) {
    let (policy, problems) = AppPolicyFiles.load(directory: config.apps.policyDirectory)
    feed(.appPolicyLoaded(policy, problems: problems))
    guard initial else { return }
    let loaded = files.apps.load(limit: config.apps.maxStoreBytesPerUser)
    files.counters.refused += loaded.refused
    for warning in loaded.warnings { logger.warning(warning) }
    feed(.appsLoaded(loaded.store, problem: loaded.problem))
  }

  /// Writes the users' apps files that changed, counting what was refused or failed.
  func persistApps(_ store: AppStore) {
    let written = files.apps.write(store, limit: config.apps.maxStoreBytesPerUser)
    files.counters.writesRefused += written.refused
    files.counters.writeFailures += written.failed
    for problem in written.problems { logger.error(problem) }
  }
}
