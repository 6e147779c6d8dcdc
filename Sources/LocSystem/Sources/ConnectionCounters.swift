import LocCore

/// What a connection that keeps itself up counts, named as `locctl status` shows them:
/// connections established and ended, the retries after failures, and the bytes read.
struct ConnectionCounters {
  /// Connections established.
  private(set) var connects = 0
  /// Established connections that ended.
  private(set) var disconnects = 0
  /// Attempts made after a failure (the first attempt of all is not a reconnect).
  private(set) var reconnectAttempts = 0
  /// Bytes read.
  private(set) var bytes = 0
  /// Connections closed on purpose while acquisition was idle (`StreamConnection.release`).
  private(set) var releases = 0

  /// A connection came up.
  mutating func connected() { connects += 1 }
  /// A connection that was up ended.
  mutating func disconnected() { disconnects += 1 }
  /// An attempt after a failure began.
  mutating func reconnecting() { reconnectAttempts += 1 }
  /// A connection was closed on purpose while idle.
  mutating func released() { releases += 1 }
  /// `count` bytes arrived.
  mutating func read(_ count: Int) { bytes += count }

  /// The counters for a snapshot.
  var counters: [Counter] {
    [
      Counter("connects", connects), Counter("disconnects", disconnects),
      Counter("reconnectAttempts", reconnectAttempts), Counter("bytes", bytes), Counter("releases", releases),
    ]
  }
}
