/// locd's discovery session on the adapter as a wish and a state: whether the engine wants
/// scanning, whether the session runs, whether a call (SetDiscoveryFilter, StartDiscovery,
/// StopDiscovery) is on its way, and the last failure to show. Pure: `next` says which call
/// to make; the source makes it and reports the answer back.
struct BlueZDiscovery {
  /// What to do about discovery now.
  enum Step: Equatable {
    /// Nothing (not ready, a call is on its way, a retry is pending, or all is as wished).
    case wait
    /// SetDiscoveryFilter, then StartDiscovery.
    case start
    /// StopDiscovery.
    case stop
  }

  /// Whether the engine wants scanning.
  var wanted = false
  /// Whether locd's discovery session is running (StartDiscovery succeeded, no stop since).
  private(set) var running = false
  /// A SetDiscoveryFilter, StartDiscovery or StopDiscovery is on its way.
  private(set) var callInFlight = false
  /// The last discovery failure, shown while the adapter is there.
  private(set) var problem: String?

  /// The call to make to match the wish, when the adapter (`adapter`, its short name) is
  /// ready and `powered`; `retryPending` holds a start back until the retry is due. A
  /// powered-off adapter is said as the problem; no wish for scanning clears it.
  mutating func next(ready: Bool, adapter: Substring, powered: Bool, retryPending: Bool) -> Step {
    guard ready, !callInFlight else { return .wait }
    if wanted && !running {
      guard powered else {
        problem = "adapter \(adapter) is powered off; discovery starts when it is on"
        return .wait
      }
      return retryPending ? .wait : .start
    } else if !wanted && running {
      return .stop
    } else if !wanted {
      problem = nil
    }
    return .wait
  }

  /// A call is sent.
  mutating func calling() {
    callInFlight = true
  }

  /// StartDiscovery succeeded: the session runs.
  mutating func started() {
    callInFlight = false
    running = true
    problem = nil
  }

  /// StopDiscovery was answered (or could not be sent): whatever the answer, the session is
  /// over.
  mutating func stopped() {
    callInFlight = false
    running = false
  }

  /// A call to start failed with `text`: true when it is a new problem, not the one before.
  mutating func failed(_ text: String) -> Bool {
    callInFlight = false
    defer { problem = text }
    return text != problem
  }

  /// The session ended with the adapter (powered off): no call is awaited any more; the
  /// problem stays.
  mutating func ended() {
    running = false
    callInFlight = false
  }

  /// The adapter is forgotten: nothing runs, nothing is awaited, nothing to show.
  mutating func forget() {
    ended()
    problem = nil
  }
}
