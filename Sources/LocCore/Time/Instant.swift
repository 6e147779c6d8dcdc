/// A point in wall-clock time, UTC, counted in microseconds since 1970-01-01T00:00:00Z
/// (POSIX time: leap seconds are not counted). The one instant type of locd.
///
/// Microseconds match sd-event's `usec_t` for CLOCK_REALTIME, so the shell converts
/// without loss; NMEA times (milliseconds) are exact.
public struct Instant: Hashable, Comparable, Sendable {
  /// Microseconds since the Unix epoch.
  public var microsecondsSinceEpoch: Int64

  /// An instant from microseconds since the Unix epoch.
  @inlinable public init(microsecondsSinceEpoch: Int64) {
    self.microsecondsSinceEpoch = microsecondsSinceEpoch
  }

  /// An instant from (possibly fractional) seconds since the Unix epoch, rounded to the microsecond.
  @inlinable public init(secondsSinceEpoch: Double) {
    self.microsecondsSinceEpoch = Int64((secondsSinceEpoch * 1_000_000).rounded())
  }

  /// Seconds since the Unix epoch, with the fraction.
  @inlinable public var secondsSinceEpoch: Double { Double(microsecondsSinceEpoch) / 1_000_000 }

  /// Whole milliseconds since the Unix epoch, rounded toward minus infinity.
  @inlinable public var millisecondsSinceEpoch: Int64 {
    microsecondsSinceEpoch >= 0
      ? microsecondsSinceEpoch / 1000 : -((-microsecondsSinceEpoch + 999) / 1000)
  }

  @inlinable public static func < (a: Instant, b: Instant) -> Bool {
    a.microsecondsSinceEpoch < b.microsecondsSinceEpoch
  }

  /// The instant `seconds` later (negative: earlier).
  @inlinable public func adding(seconds: Double) -> Instant {
    Instant(microsecondsSinceEpoch: microsecondsSinceEpoch + Int64((seconds * 1_000_000).rounded()))
  }

  /// The instant `microseconds` later (negative: earlier).
  @inlinable public func adding(microseconds: Int64) -> Instant {
    Instant(microsecondsSinceEpoch: microsecondsSinceEpoch + microseconds)
  }

  /// Seconds from `other` to `self` (positive when `self` is later).
  @inlinable public func seconds(since other: Instant) -> Double {
    Double(microsecondsSinceEpoch - other.microsecondsSinceEpoch) / 1_000_000
  }
}

extension Instant {
  /// The instant `duration` later (negative: earlier), to the microsecond.
  @inlinable public func adding(_ duration: Duration) -> Instant {
    let (s, atto) = duration.components
    return Instant(microsecondsSinceEpoch: microsecondsSinceEpoch + s * 1_000_000 + atto / 1_000_000_000_000)
  }

  /// The time from `other` to `self` (negative when `self` is earlier).
  @inlinable public func duration(since other: Instant) -> Duration {
    .microseconds(microsecondsSinceEpoch - other.microsecondsSinceEpoch)
  }
}

extension Duration {
  /// The duration in seconds, with the fraction.
  @inlinable public var seconds: Double {
    let (s, atto) = components
    return Double(s) + Double(atto) / 1e18
  }
}
