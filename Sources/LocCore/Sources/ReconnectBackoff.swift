/// When to try again after a connection failed or was lost: capped exponential backoff.
///
/// The first retry waits `initialMicroseconds` (1 s), each further failure doubles the wait
/// up to `capMicroseconds` (60 s), forever. A connection that stayed up for at least
/// `healthyMicroseconds` (10 s) proves the peer works again: the next failure starts over at
/// 1 s. A peer that accepts and at once hangs up therefore still backs off. Times are the
/// caller's monotonic clock in microseconds; there is no jitter (one client per peer).
public struct ReconnectBackoff: Hashable, Sendable {
  /// The first wait.
  public static let initialMicroseconds: UInt64 = 1_000_000
  /// The longest wait.
  public static let capMicroseconds: UInt64 = 60_000_000
  /// How long a connection must last to reset the backoff.
  public static let healthyMicroseconds: UInt64 = 10_000_000

  private var next = ReconnectBackoff.initialMicroseconds
  private var connectedAt: UInt64?

  /// A backoff at its first step.
  public init() {}

  /// Records that a connection was established at `now`.
  public mutating func connected(at now: UInt64) {
    connectedAt = now
  }

  /// The wait before the next attempt after a failure or loss at `now`; advances the backoff.
  public mutating func delayAfterFailure(at now: UInt64) -> UInt64 {
    if let since = connectedAt, now >= since, now - since >= ReconnectBackoff.healthyMicroseconds {
      next = ReconnectBackoff.initialMicroseconds
    }
    connectedAt = nil
    let delay = next
    next = min(next * 2, ReconnectBackoff.capMicroseconds)
    return delay
  }
}
