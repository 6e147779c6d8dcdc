import LocCore
import LocProtocol

/// The state files read at start and on reload (timer files and the timer store, app policy
/// files and the apps store), and written at the end of each loop iteration.
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

  /// The end of a loop iteration (and of start-up, and the stop): the files the iteration
  /// changed are written and synced, each once with its latest content (with `retry`, also
  /// those whose write failed before), then what waited for them goes out, in order: a
  /// reply whose change could not be written as `not-saved` (decision 0061). Events fed
  /// while that goes out (a client dropped) are written and answered in another pass.
  func flushWrites(retry: Bool = false) {
    var retry = retry
    for _ in 0..<4 where files.batch.hasWork || retry {
      let due = files.batch.due(retry: retry)
      retry = false
      var failed: [IterationWrites.File: String] = [:]
      var refused: [IterationWrites.File: String] = [:]
      for file in due.sorted() {
        switch write(file) {
        case .written: break
        case .failed(let why): failed[file] = why
        case .refused(let why): refused[file] = why
        }
      }
      let released = files.batch.written(due, failed: failed, refused: refused)
      files.counters.notSaved += released.notSaved
      if !due.isEmpty { noteWrites(failed) }
      execute(released: released.effects)
    }
    // Still more (a pass's answers kept raising changes): the next iteration takes it.
    if files.batch.hasWork { loop.soon {} }
  }

  /// How writing one file ended.
  enum FileWrite {
    /// Written and synced.
    case written
    /// Not written (the log's words): tried again with the next change or at a retry.
    case failed(String)
    /// Left as it was on purpose (a user's apps file over `MaxStoreBytesPerUser=`): the
    /// change stays in memory, is answered `not-saved`, and is not tried again by itself.
    case refused(String)
  }

  /// Writes one file with the batch's content.
  private func write(_ file: IterationWrites.File) -> FileWrite {
    do throws(Errno) {
      switch file {
      case .state:
        guard let content = files.batch.state else { return .written }
        try files.state.write(content)
        files.counters.writes += 1
      case .timers:
        guard let content = files.batch.timers else { return .written }
        try files.timers.write(content)
        files.counters.writes += 1
      case .apps:
        return persistApps(engine.appsStore)
      }
      return .written
    } catch {
      files.counters.writeFailures += 1
      return .failed(
        "cannot write \(file == .state ? files.state.path : files.timers.path): \(error.message)")
    }
  }

  /// Writes the users' apps files that changed, counting what was written, refused or
  /// failed. A file refused for its size keeps its user's previous file (docs/APPS.md): no
  /// failure to retry, but not saved either.
  func persistApps(_ store: AppStore) -> FileWrite {
    let written = files.apps.write(store, limit: config.apps.maxStoreBytesPerUser)
    files.counters.writes += written.written
    files.counters.writesRefused += written.refused
    files.counters.writeFailures += written.failed
    // A failure is logged once the batch is written (`noteWrites`), a refusal here (once a
    // user until the file fits again; each refused change is answered with it).
    for problem in written.problems where !written.failures.contains(problem) { logger.error(problem) }
    if !written.failures.isEmpty { return .failed(written.failures.joined(separator: "; ")) }
    return written.refusals.isEmpty ? .written : .refused(written.refusals.joined(separator: "; "))
  }

  /// Follows whether writes fail: the fault begins with the first failure (logged as an
  /// error, and again when the reason changes) and ends, logged, once nothing is left
  /// unwritten; a retry is armed while something is.
  private func noteWrites(_ failed: [IterationWrites.File: String]) {
    if let reason = failed.sorted(by: { $0.key < $1.key }).first?.value {
      if files.fault?.reason != reason {
        logger.error(
          "\(reason); changes stay in effect, answered not-saved, and are written again with the next change or in 10 s"
        )
      }
      files.fault = StateFilesFault(reason: reason, since: files.fault?.since ?? now)
    } else if files.batch.pending.isEmpty, let fault = files.fault {
      logger.notice("state files written again (failing since \(fault.since.iso8601()))")
      files.fault = nil
    }
    guard !files.batch.pending.isEmpty else {
      files.retry?.disarm()
      return
    }
    if files.retry == nil {
      files.retry = try? loop.timer(clock: .monotonic, accuracyMicroseconds: 1_000_000) { [unowned self] in
        self.flushWrites(retry: true)
      }
    }
    if files.retry?.deadline == nil {
      files.retry?.arm(
        atMicroseconds: loop.monotonicMicroseconds + UInt64(StateFiles.retryInterval.seconds * 1_000_000))
    }
  }
}
