import LocCore

/// What the two replay sources (NMEA and gpsd logs, btsnoop captures) share: one timer
/// that paces the recording, started once the recording is read, and one way to fail.
protocol PacedPlayback: AnyObject {
  var loop: EventLoop { get }
  var sink: SourceSink { get }
  var uri: String { get }
  var state: SourceState { get set }
  var lastError: String? { get set }
  var timer: Timer? { get set }
  var snapshot: SourceSnapshot { get }
  /// Plays what is due now and arms the timer for what comes next.
  func tick()
  /// Starts a round from the recording's beginning.
  func beginRound()
}

extension PacedPlayback {
  /// Makes the pacing timer and plays the first round; fails the source when the timer
  /// cannot be made.
  func startPlaying() {
    do {
      timer = try loop.timer(clock: .monotonic, accuracyMicroseconds: 1000) { [weak self] in self?.tick() }
    } catch {
      fail("timer: \(error)")
      return
    }
    beginRound()
  }

  /// Stops pacing.
  func stopPlaying() {
    timer?.cancel()
    timer = nil
  }

  /// The source failed: its state, its last error, the log and the engine say so.
  func fail(_ why: String) {
    state = .failed
    lastError = why
    sink.log(.error, "source \(uri) failed: \(why)")
    sink.update(snapshot, true)
  }
}
