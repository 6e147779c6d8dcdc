/// The simulation of `locd --clock replay`, as the shell reports it: in `status` and as the
/// data of the `simulation-finished` event. The engine only passes it on; the shell owns the
/// replay and its flow control.
public struct SimulationReport: Sendable, Hashable {
  /// Where the simulation is.
  public enum State: String, Sendable, Hashable, CaseIterable {
    /// The replay waits for the first subscriber, so no event is missed.
    case waiting
    /// Fixes are being replayed.
    case playing
    /// Held by flow control: a subscriber's queue is full; it goes on when the queue drains.
    case paused
    /// Every replay source reached its end; simulated time stands still.
    case finished
  }

  /// Where it is.
  public var state: State
  /// The simulated now; nil before the first fix.
  public var time: Instant?
  /// How many times flow control paused the replay.
  public var pauses: Int
  /// How long it was paused in all, in real (monotonic) time.
  public var pausedFor: Duration
  /// Whether locd exits once the replay has finished and every client has what was queued.
  public var exitAtEnd: Bool

  /// A report.
  public init(state: State, time: Instant?, pauses: Int, pausedFor: Duration, exitAtEnd: Bool) {
    self.state = state
    self.time = time
    self.pauses = pauses
    self.pausedFor = pausedFor
    self.exitAtEnd = exitAtEnd
  }
}
