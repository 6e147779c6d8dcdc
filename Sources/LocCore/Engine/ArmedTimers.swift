/// Which engine timers the shell holds armed, and for when: the shell is asked to arm or
/// disarm one only when that changes.
struct ArmedTimers: EngineMachine {
  /// What to ask of the shell.
  enum Change: Sendable, Hashable {
    /// Arm (or re-arm) at this instant.
    case arm(Instant)
    /// Disarm.
    case disarm
  }

  private var instants: [EngineTimer: Instant] = [:]

  /// `timer` should fire at `instant` (nil: not at all); the change that makes it so, if any.
  mutating func want(_ timer: EngineTimer, at instant: Instant?) -> Change? {
    if let instant {
      guard instants[timer] != instant else { return nil }
      instants[timer] = instant
      return .arm(instant)
    }
    guard instants.removeValue(forKey: timer) != nil else { return nil }
    return .disarm
  }

  /// `timer` fired: it is no longer armed.
  mutating func fired(_ timer: EngineTimer) { instants[timer] = nil }
}
