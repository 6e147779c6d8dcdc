import LocCore

/// What a source on a device that comes and goes (`SerialSource`) keeps of its opens: the
/// opens, the failed attempts and the losses, the bytes read, whether it was ever opened (an open after that is
/// "again"), and whether opening is failing (an outage, logged once when it begins). Pure.
struct DeviceOpenings {
  /// Successful opens.
  private(set) var opens = 0
  /// Attempts to open that failed (one every 2 s while a device is missing): counted here,
  /// in `status`, not told as events (decision 0047).
  private(set) var failedOpens = 0
  /// Opened devices that went away.
  private(set) var disconnects = 0
  /// Bytes read.
  private(set) var bytes = 0
  private var everOpened = false
  /// Whether the attempts since the last open (or idle) have failed.
  private(set) var failing = false

  /// The device opened: true when it had been open before. Ends an outage.
  mutating func opened() -> Bool {
    opens += 1
    failing = false
    defer { everOpened = true }
    return everOpened
  }

  /// An attempt to open failed.
  mutating func openFailed() { failedOpens += 1 }

  /// An open device went away.
  mutating func lost() { disconnects += 1 }

  /// `count` bytes arrived.
  mutating func read(_ count: Int) { bytes += count }

  /// The device could not be opened, or went away: true when this begins an outage.
  mutating func unavailable() -> Bool {
    defer { failing = true }
    return !failing
  }

  /// Nothing is wanted of the device (acquisition idle): the next failure begins an outage.
  mutating func idle() { failing = false }

  /// The counters for a snapshot, named as `locctl status` shows them.
  var counters: [Counter] {
    [
      Counter("opens", opens), Counter("failedOpens", failedOpens), Counter("disconnects", disconnects),
      Counter("bytes", bytes),
    ]
  }
}
