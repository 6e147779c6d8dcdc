/// A connection's one timer and the deadline it is armed for (the hello, the end of a
/// session that can do nothing, the last words): what waits is always known with the timer.
struct ConnectionTimer {
  /// The loop's timer; nil once the connection has left the loop.
  private var timer: Timer?
  /// What the timer waits for; nil while disarmed.
  private(set) var deadline: ClientConnection.Deadline?

  /// The deadlines of a connection on `timer`.
  init(_ timer: Timer) {
    self.timer = timer
  }

  /// Arms the timer for `what` at `micros` on its monotonic clock.
  mutating func arm(_ what: ClientConnection.Deadline, atMicroseconds micros: UInt64) {
    deadline = what
    timer?.arm(atMicroseconds: micros)
  }

  /// Nothing is waited for any more.
  mutating func disarm() {
    deadline = nil
    timer?.disarm()
  }

  /// The timer leaves the loop.
  mutating func cancel() {
    timer?.cancel()
    timer = nil
  }
}
