import LocCore

/// What the shell knows of a `locd --clock replay` simulation besides its time: whether the
/// replay finished, and how often and how long flow control paused it.
struct ReplayProgress {
  /// Every replay source reached its end (or failed).
  var finished = false
  /// Some source failed (the file is missing or has no sentences).
  var failed = false
  /// Pauses so far.
  var pauses = 0
  /// Time spent paused before the current pause, in monotonic microseconds.
  var pausedMicroseconds: UInt64 = 0
  /// When the current pause began, if paused.
  var pausedSince: UInt64?

  /// A pause begins at `now` (monotonic microseconds).
  mutating func paused(at now: UInt64) {
    guard pausedSince == nil else { return }
    pausedSince = now
    pauses += 1
  }

  /// The pause ends at `now`.
  mutating func resumed(at now: UInt64) {
    guard let since = pausedSince else { return }
    pausedMicroseconds += now - since
    pausedSince = nil
  }

  /// The report at `now`: `waiting` says the sources wait for a subscriber.
  func report(waiting: Bool, time: Instant?, exitAtEnd: Bool, now: UInt64) -> SimulationReport {
    let state: SimulationReport.State =
      finished ? .finished : waiting ? .waiting : pausedSince != nil ? .paused : .playing
    let paused = pausedMicroseconds + (pausedSince.map { now - $0 } ?? 0)
    return SimulationReport(
      state: state, time: time, pauses: pauses, pausedFor: .microseconds(Int64(paused)), exitAtEnd: exitAtEnd)
  }
}
