/// A UTC time of day, as NMEA sentences carry it (`hhmmss.sss`), in microseconds since
/// midnight. It names no day: `EpochAssembler` pairs it with a date to make an `Instant`.
public struct TimeOfDay: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// Microseconds since UTC midnight, 0 ..< 86 400 000 000.
  public var microsecondsSinceMidnight: Int64

  /// Microseconds in one day.
  public static let microsecondsPerDay: Int64 = 86_400_000_000

  /// A time of day; `nil` outside 0 ..< 24 h.
  public init?(microsecondsSinceMidnight: Int64) {
    guard microsecondsSinceMidnight >= 0, microsecondsSinceMidnight < TimeOfDay.microsecondsPerDay else {
      return nil
    }
    self.microsecondsSinceMidnight = microsecondsSinceMidnight
  }

  /// A time of day from its parts; `nil` when a part is out of range (a leap second, 60, is
  /// rejected: `Instant` counts POSIX time, which has no 23:59:60).
  public init?(hour: Int, minute: Int, second: Int, microsecond: Int = 0) {
    guard (0..<24).contains(hour), (0..<60).contains(minute), (0..<60).contains(second),
      (0..<1_000_000).contains(microsecond)
    else { return nil }
    microsecondsSinceMidnight =
      Int64(hour * 3600 + minute * 60 + second) * 1_000_000 + Int64(microsecond)
  }

  /// The instant at this time of day on `date` (UTC).
  @inlinable public func instant(on date: CivilDate) -> Instant {
    Instant(
      microsecondsSinceEpoch: Int64(date.daysSinceEpoch) * TimeOfDay.microsecondsPerDay
        + microsecondsSinceMidnight)
  }

  public static func < (a: TimeOfDay, b: TimeOfDay) -> Bool {
    a.microsecondsSinceMidnight < b.microsecondsSinceMidnight
  }

  /// `hh:mm:ss.ffffff`.
  public var description: String {
    let s = Int(microsecondsSinceMidnight / 1_000_000)
    let us = Int(microsecondsSinceMidnight % 1_000_000)
    return TimeFormat.clock(secondOfDay: s, seconds: true) + "." + TimeFormat.padded(us, width: 6)
  }
}
