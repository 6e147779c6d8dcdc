import LocCore

/// Retrying to bind a listening or datagram socket (`nmea+tcp-listen://`, `nmea+udp://`):
/// capped exponential backoff and a warning once per outage (`ReconnectSchedule`, as the TCP
/// clients' `StreamConnection`), and debug lines for the attempts after it.
final class BindRetry {
  private let loop: EventLoop
  private var timer: Timer?
  private var schedule = ReconnectSchedule()

  /// Arms nothing yet; `retry` runs when a retry is due.
  init(loop: EventLoop, retry: @escaping () -> Void) throws(Errno) {
    self.loop = loop
    timer = try loop.timer(clock: .monotonic, accuracyMicroseconds: 10_000, retry)
  }

  /// Records a failure: logs it, arms the next attempt, and returns when that will be.
  func failed(_ reason: String, source uri: String, log: (LogLevel, String) -> Void) -> Instant {
    let now = loop.monotonicMicroseconds
    let (delay, began) = schedule.failed(at: now)
    if began {
      log(.warning, "source \(uri): \(reason); trying again (backoff from 1 s doubling to 60 s)")
    } else {
      log(.debug, "source \(uri): \(reason)")
    }
    timer?.arm(atMicroseconds: now + delay)
    return loop.now.adding(microseconds: Int64(delay))
  }

  /// The socket is bound: the next failure is a new outage.
  func succeeded() {
    schedule.forgetOutage()
  }

  /// No more retries.
  func cancel() {
    timer?.cancel()
    timer = nil
  }
}
