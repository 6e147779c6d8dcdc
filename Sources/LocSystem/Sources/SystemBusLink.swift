import LocCore

/// The system bus connection of a source that follows a daemon there (`bluez:`, `modem:`)
/// and how it is kept up: the connection with the matches on it (NameOwnerChanged of the
/// daemon's name, its ObjectManager and Properties signals), the backoff between attempts and
/// the timer of the next one.
struct SystemBusLink {
  /// The connection, while there is one.
  private(set) var bus: BusConnection?
  /// The signal matches on `bus`; they end with it.
  var matches: [BusMatch] = []
  /// The timer of the next attempt to connect, once one was needed.
  var reconnectTimer: Timer?
  var backoff = ReconnectBackoff()

  /// `bus` is the connection from now on.
  mutating func opened(_ bus: BusConnection) {
    self.bus = bus
  }

  /// Ends the matches and closes the connection.
  mutating func close() {
    matches = []
    bus?.close()
    bus = nil
  }

  /// No more attempts.
  mutating func cancelRetry() {
    reconnectTimer?.cancel()
    reconnectTimer = nil
  }
}
