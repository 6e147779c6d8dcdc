import Foundation

/// A task executor with a thread of its own, for async tests whose timing matters against
/// the real locd. Swift Testing runs tests on the cooperative pool, which has one thread per
/// core; under `make test` (2 cores) synchronous tests that block in a wait can hold every
/// one of them, and an async test then resumes after an await only when one frees up — seen
/// here as minutes, after a replayed drive had long run past. With
/// `withTaskExecutorPreference(ThreadExecutor())` the test's code runs on this thread
/// instead, and so does a test that blocks for long (waiting for a child process), which
/// would otherwise take a pool thread from the others. The thread lives as long as the test
/// process; the tests that use it are serialized.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
  static let shared = ThreadExecutor()

  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []

  init() {
    let thread = Thread { [self] in self.run() }  // kept alive by its thread, on purpose
    thread.name = "ThreadExecutor"
    thread.start()
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  private func run() {
    while true {
      condition.lock()
      while jobs.isEmpty { condition.wait() }
      let job = jobs.removeFirst()
      condition.unlock()
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}
