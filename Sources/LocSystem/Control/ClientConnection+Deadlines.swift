/// A connection's deadlines: the hello, the end of a session that can do nothing, the last
/// words before closing; one timer for all of them.
extension ClientConnection {
  /// Arms the connection's one timer for `what`, `span` from now.
  func arm(_ what: Deadline, after span: Duration) {
    let micros = UInt64(max(0, span.seconds) * 1_000_000)
    timer?.arm(what, atMicroseconds: server.loop.monotonicMicroseconds + micros)
  }

  /// Disarms it.
  func disarm() {
    timer?.disarm()
  }

  /// The timer fired: the hello came too late, the session idled, or its last words are out.
  func deadlinePassed() {
    switch timer?.deadline {
    case .hello?: server.helloTimedOut(self)
    case .idle?: server.idleTimedOut(self)
    case .lastWords?: server.finish(self)
    case nil: break
    }
  }

  /// Arms or disarms the end of a session that can do nothing, after the hello or a change of access.
  func reviewIdleness() {
    guard phase == .open else { return }
    if canDoNothing {
      if timer?.deadline != .idle { arm(.idle, after: server.limits.idleTimeout) }
    } else if timer?.deadline == .idle {
      disarm()
    }
  }
}
