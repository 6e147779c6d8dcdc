/// The shell's state of a `locd --clock replay` run (Daemon+Simulation): held sources, the
/// settle timer of an app's registrations, the progress `status` shows, and the exit at the end.
final class ReplayControl {
  /// The sources wait for the first client that listens or registers.
  var holding = false
  /// While held sources wait for an app's registrations to settle.
  var settle: Timer?
  /// The end of the replay and flow control's pauses.
  var progress = ReplayProgress()
  /// `--exit-at-end`: exit once the replay finished and clients have what was queued.
  let exitAtEnd: Bool
  /// Bounds the wait for timer commands before exiting at the end.
  var exitTimer: Timer?

  init(exitAtEnd: Bool) { self.exitAtEnd = exitAtEnd }
}
