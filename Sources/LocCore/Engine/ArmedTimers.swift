/// Which engine timers the shell holds armed, and for when: the shell is asked to arm or
/// disarm one only when that changes.
struct ArmedTimers: EngineMachine {
  private var instants: [EngineTimer: Instant] = [:]

  /// `timer` should fire at `instant` (nil: not at all); the effect that makes it so, if any.
  mutating func want(_ timer: EngineTimer, at instant: Instant?) -> Effect? {
    if let instant {
      guard instants[timer] != instant else { return nil }
      instants[timer] = instant
      return .arm(timer, at: instant)
    }
    guard instants.removeValue(forKey: timer) != nil else { return nil }
    return .disarm(timer)
  }

  /// `timer` fired: it is no longer armed.
  mutating func fired(_ timer: EngineTimer) { instants[timer] = nil }
}
