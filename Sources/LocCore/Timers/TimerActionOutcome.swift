/// How a timer's action (a command or a unit start) ended the last time it ran, as the shell
/// reports it (`EngineEvent.timerActionEnded`): what `locctl timers` shows so a failing hook
/// is seen where the timer is, not only in the journal. Kept in memory, since locd started.
public struct TimerActionOutcome: Sendable, Hashable {
  /// Whether it worked.
  public var succeeded: Bool
  /// When locd learned how it ended.
  public var at: Instant
  /// In words: "exited with status 0", "exited with status 3", "killed by signal 9",
  /// "cannot start lamp.service: Unit lamp.service not found.", "user 'alice' does not exist;
  /// not run".
  public var detail: String

  /// An outcome.
  public init(succeeded: Bool, at: Instant, detail: String) {
    self.succeeded = succeeded
    self.at = at
    self.detail = detail
  }
}
