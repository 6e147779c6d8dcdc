import LocCore

/// The files locd keeps in its state directory: state.json (the last known position), the
/// timer store and the apps store, with what a loop iteration changed and what waits for
/// it (`IterationWrites`), and what went wrong writing them. Moved together when a reload
/// names another directory.
struct StateFiles {
  var state: StateFile
  var timers: TimerStoreFile
  var apps: AppStoreFile
  /// What went wrong with these files (status: `daemon.stateFiles`).
  var counters = StateFileCounters()
  /// The changes of this loop iteration and the answers that wait for them.
  var batch = IterationWrites()
  /// Writes failing: since when and why (status: `daemon.stateFilesFault`).
  var fault: StateFilesFault?
  /// While a write failed: the retry (`retryInterval`), on the monotonic clock.
  var retry: Timer?

  /// How long after a failed write it is tried again, if no change comes first.
  static let retryInterval = Duration.seconds(10)

  /// The files of `directory`.
  init(directory: String) {
    state = StateFile(directory: directory)
    timers = TimerStoreFile(directory: directory)
    apps = AppStoreFile(directory: directory)
  }
}
