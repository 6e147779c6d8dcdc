/// The retry side of a link that keeps itself up (a TCP client, a socket to bind): when the
/// next attempt is due (`ReconnectBackoff`) and the outage the failures belong to (when it
/// began, the attempts since), so that the owner logs an outage once when it begins and once
/// when it ends, and counts the attempts in between. Times are the caller's monotonic clock
/// in microseconds.
public struct ReconnectSchedule: Hashable, Sendable {
  /// A run of failures with no connection between them.
  public struct Outage: Hashable, Sendable {
    /// When the first failure of the run happened.
    public let since: UInt64
    /// Attempts made since then.
    public fileprivate(set) var attempts: Int
  }

  private var backoff = ReconnectBackoff()
  /// The outage in progress, if any.
  public private(set) var outage: Outage?

  /// No outage, the backoff at its first step.
  public init() {}

  /// An attempt begins; true when it is a retry within an outage (the first attempt of all,
  /// and the first after `forgetOutage`, are not).
  public mutating func attempting() -> Bool {
    guard outage != nil else { return false }
    outage!.attempts += 1
    return true
  }

  /// An attempt failed or a connection was lost at `now`: the wait before the next attempt
  /// (the backoff advances), and whether this failure began an outage.
  public mutating func failed(at now: UInt64) -> (delay: UInt64, began: Bool) {
    let delay = backoff.delayAfterFailure(at: now)
    guard outage == nil else { return (delay, false) }
    outage = Outage(since: now, attempts: 0)
    return (delay, true)
  }

  /// A connection was established at `now`: the outage it ends, if there was one.
  public mutating func connected(at now: UInt64) -> Outage? {
    backoff.connected(at: now)
    defer { outage = nil }
    return outage
  }

  /// The peer may be there now (its service's socket appeared): the backoff starts over at its
  /// first step, so an attempt made too early is followed by another in 1 s, not in a minute.
  /// The outage goes on until a connection ends it.
  public mutating func startOver() {
    backoff = ReconnectBackoff()
  }

  /// Failures so far are no outage (nothing is wanted any more, or the socket is bound): the
  /// next failure begins a new one. The backoff keeps its step.
  public mutating func forgetOutage() {
    outage = nil
  }
}
