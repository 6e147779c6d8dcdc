/// The files locd keeps in its state directory: state.json (the last known position), the
/// timer store and the apps store. Moved together when a reload names another directory.
struct StateFiles {
  var state: StateFile
  var timers: TimerStoreFile
  var apps: AppStoreFile
  /// What went wrong with these files (status: `daemon.stateFiles`).
  var counters = StateFileCounters()

  /// The files of `directory`.
  init(directory: String) {
    state = StateFile(directory: directory)
    timers = TimerStoreFile(directory: directory)
    apps = AppStoreFile(directory: directory)
  }
}
