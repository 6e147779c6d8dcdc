/// Lets at most `burst` log lines through per `window` and counts the rest, so a client
/// that sends nothing but errors (or ten thousand that connect at once) costs a few lines,
/// never a flood: the first line let through after a quiet spell says how many were held
/// back. Time is the caller's (CLOCK_MONOTONIC microseconds).
struct LogThrottle {
  /// Lines let through per window.
  let burst: Int
  /// The window's length, microseconds.
  let windowMicroseconds: UInt64
  private var windowStart: UInt64 = 0
  private var passed = 0
  private var held = 0

  /// A throttle of `burst` lines per `windowMicroseconds`.
  init(burst: Int, windowMicroseconds: UInt64) {
    self.burst = burst
    self.windowMicroseconds = windowMicroseconds
  }

  /// Whether a line may be logged at `now`, and how many were held back before it (to be
  /// said with it); nil when this one is held back too.
  mutating func admit(at now: UInt64) -> Int? {
    if now >= windowStart &+ windowMicroseconds || now < windowStart {
      windowStart = now
      passed = 0
    }
    guard passed < burst else {
      held += 1
      return nil
    }
    passed += 1
    defer { held = 0 }
    return held
  }
}

/// The server's two log throttles: protocol errors (debug) and refusals and drops (info and
/// above), apart so that a flood of protocol errors cannot hide a refusal.
struct ServerLogThrottles {
  var debug = LogThrottle(burst: 20, windowMicroseconds: 10_000_000)
  var notice = LogThrottle(burst: 20, windowMicroseconds: 10_000_000)
}
