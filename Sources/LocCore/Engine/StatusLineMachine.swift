/// The systemd STATUS= line: sent when what it says changes, at once for a change of tier,
/// fix mode or zone, and at most every `throttle` for details (satellites, accuracy, age).
struct StatusLineMachine: EngineMachine {
  /// What to do about the line.
  enum Action: Sendable, Equatable {
    /// Send this line now.
    case send(String)
    /// A detail changed too soon after the last line: arm the refresh timer at this instant.
    case armRefresh(Instant)
  }

  /// Minimum time between two STATUS= updates that differ only in details (satellites).
  static let throttle: Duration = .seconds(10)

  /// When the daemon started (the status reports it).
  private(set) var startedAt = Instant(microsecondsSinceEpoch: 0)
  private var sent: StatusSummary?
  private var sentAt = Instant(microsecondsSinceEpoch: 0)
  private var refreshArmed = false

  /// The daemon started at `now`.
  mutating func started(at now: Instant) { startedAt = now }

  /// The refresh timer fired.
  mutating func refreshFired() { refreshArmed = false }

  /// The summary after an event; what to do about it, if anything.
  mutating func observe(_ summary: StatusSummary, at now: Instant) -> Action? {
    guard summary != sent else { return nil }
    if summary.major != sent?.major || now.duration(since: sentAt) >= StatusLineMachine.throttle {
      sent = summary
      sentAt = now
      return .send(summary.line)
    }
    guard !refreshArmed else { return nil }
    refreshArmed = true
    return .armRefresh(sentAt.adding(StatusLineMachine.throttle))
  }
}
