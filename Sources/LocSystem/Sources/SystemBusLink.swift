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

  /// Connects to the system bus on `loop`: the connection from now on, `lost` called when it
  /// drops. The caller adds its matches, resets the backoff and asks for its daemon next.
  mutating func connect(on loop: EventLoop, lost: @escaping () -> Void) throws(Errno) -> BusConnection {
    let b = try BusConnection.system(on: loop)
    opened(b)
    try b.whenDisconnected(lost)
    return b
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

  /// The matches a follower of `service` needs on `bus`: NameOwnerChanged of its name, its
  /// ObjectManager's InterfacesAdded and InterfacesRemoved on `objectManager`, and
  /// PropertiesChanged under `properties`. The rules name no sender (signals carry the
  /// sender's unique name); each handler takes only what the name's owner now sent.
  mutating func follow(
    _ service: String, on bus: BusConnection, objectManager: String, properties: String,
    ownerChanged: @escaping (String) -> Void, added: @escaping (BusMessage) -> Void,
    removed: @escaping (BusMessage) -> Void, changed: @escaping (BusMessage) -> Void
  ) throws(Errno) {
    let manager = "type='signal',path='\(objectManager)',interface='org.freedesktop.DBus.ObjectManager'"
    matches = [
      try bus.watchOwner(of: service, changed: ownerChanged),
      try bus.match(manager + ",member='InterfacesAdded'", handler: added),
      try bus.match(manager + ",member='InterfacesRemoved'", handler: removed),
      try bus.match(
        "type='signal',path_namespace='\(properties)',interface='org.freedesktop.DBus.Properties',"
          + "member='PropertiesChanged'", handler: changed),
    ]
  }

  /// The next attempt to connect after a failure, by the backoff, armed on `loop` to call
  /// `start`; returns the delay (microseconds) and when it is due.
  private mutating func retry(on loop: EventLoop, start: @escaping () -> Void) -> (delay: UInt64, at: Instant)
  {
    let delay = backoff.delayAfterFailure(at: loop.monotonicMicroseconds)
    if reconnectTimer == nil {
      reconnectTimer = try? loop.timer(clock: .monotonic, accuracyMicroseconds: 100_000, start)
    }
    reconnectTimer?.arm(atMicroseconds: loop.monotonicMicroseconds + delay)
    return (delay, loop.now.adding(seconds: Double(delay) / 1_000_000))
  }

  /// After the connection was lost for `why`: the next attempt armed (`retry`) and the loss
  /// logged, a warning the first time in an outage (`firstOfOutage`) and at debug level for
  /// each retry after it; returns when the attempt is due.
  mutating func retryAfterLoss(
    _ why: String, firstOfOutage: Bool, on loop: EventLoop, log: (LogLevel, String) -> Void,
    start: @escaping () -> Void
  ) -> Instant {
    let next = retry(on: loop, start: start)
    log(firstOfOutage ? .warning : .debug, "\(why); trying again in \(next.delay / 1_000_000) s")
    return next.at
  }

  /// The matches a follower of a `service` without an ObjectManager needs on `bus`
  /// (iio-sensor-proxy): NameOwnerChanged of its name and PropertiesChanged of `path`.
  mutating func follow(
    _ service: String, on bus: BusConnection, path: String, ownerChanged: @escaping (String) -> Void,
    changed: @escaping (BusMessage) -> Void
  ) throws(Errno) {
    matches = [
      try bus.watchOwner(of: service, changed: ownerChanged),
      try bus.match(
        "type='signal',path='\(path)',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'",
        handler: changed),
    ]
  }

  /// What NameOwnerChanged to `new` means for a follower whose daemon is `owner`: whether
  /// the old owner left, and the new owner that arrived (an empty `new`: nobody owns it).
  static func ownerChange(from owner: String?, to new: String) -> (left: Bool, arrived: String?) {
    if new.isEmpty { return (owner != nil, nil) }
    if new == owner { return (false, nil) }
    return (owner != nil, new)
  }
}

/// Who owns a followed service's bus name, and the generation of what it said: replies and
/// signals from an earlier owner are dropped. The `modem:` and `compass:` sources' (BlueZ's
/// `BlueZPresence` also tracks the adapter).
struct BusPeerPresence {
  private(set) var owner: String?
  private(set) var epoch = 0
  /// `stop()` was called: nothing is retried.
  var stopped = false

  mutating func arrived(_ name: String) {
    owner = name
    epoch += 1
  }

  mutating func gone() {
    owner = nil
    epoch += 1
  }
}
