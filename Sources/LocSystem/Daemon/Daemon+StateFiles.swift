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
        allProblems.append("\(why); runtime timers and timer memory start empty")
        store = TimerStore()
      }
    }
    feed(.timersLoaded(definitions, problems: allProblems, store: store))
  }

  /// Reads the app policy files (and at start apps.json) and hands them to the engine. An
  /// unusable apps.json is set aside (renamed with `.bad`) so that the next write does not
  /// destroy what an administrator may want to look at.
  func loadApps(initial: Bool) {
    let (policy, problems) = AppPolicyFiles.load(directory: config.apps.policyDirectory)
    feed(.appPolicyLoaded(policy, problems: problems))
    guard initial else { return }
    switch files.apps.read() {
    case .success(let store): feed(.appsLoaded(store, problem: store?.problem))
    case .failure(let why):
      let aside = files.apps.path + ".bad"
      let moved = (try? FileIO.rename(path: files.apps.path, to: aside)) != nil
      feed(.appsLoaded(nil, problem: moved ? "\(why) (kept as \(aside))" : why.description))
    }
  }
}

extension Effect {
  /// Whether the effect writes a state file. These are carried out before the rest of an
  /// event's effects, so a reply that acknowledges a change goes out once the change is on
  /// disk (issue 28: kill -9 right after a `change-app` reply lost the change in 43 of 100
  /// rounds while apps.json was written after the reply).
  var writesStateFile: Bool {
    switch self {
    case .persist, .persistTimers, .persistApps: return true
    default: return false
    }
  }
}
