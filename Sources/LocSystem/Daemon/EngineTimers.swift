import LocCore

/// The engine's timers on the system clock (`.arm`/`.disarm` effects), and the watch for
/// clock steps and resumes from suspend that make the engine re-plan them. With the replay
/// clock the driver's simulated clock keeps the timers once the first fix started it;
/// before, they are armed here like the system clock's.
final class EngineTimers {
  private let loop: any Scheduler
  private var timers: [EngineTimer: any LoopTimer] = [:]
  /// Clock steps and resumes (system clock only).
  var watcher: ClockWatcher?

  init(loop: any Scheduler) { self.loop = loop }

  /// Arms `which` for `at`, creating its loop timer the first time; `fired` runs when it
  /// fires. A timer that cannot be created is reported through the error.
  func arm(_ which: EngineTimer, at: Instant, fired: @escaping () -> Void) throws(Errno) {
    if timers[which] == nil {
      timers[which] = try loop.makeTimer(clock: .realtime, accuracyMicroseconds: 1000, fired)
    }
    timers[which]?.arm(atMicroseconds: UInt64(max(0, at.microsecondsSinceEpoch)))
  }

  func disarm(_ which: EngineTimer) { timers[which]?.disarm() }

  /// Every timer cancelled (at exit).
  func cancelAll() {
    for timer in timers.values { timer.cancel() }
  }
}
