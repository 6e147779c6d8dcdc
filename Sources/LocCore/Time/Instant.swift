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

  /// Parses a systemd-style time span: `10s`, `500ms`, `5min`, `1h 30min`, `2d`, `100us`,
  /// or a bare number of seconds. `nil` for anything else (negative, empty, unknown unit).
  public init?(timeSpan text: some StringProtocol) {
    let units: [(String, Int64)] = [
      ("usec", 1), ("us", 1), ("msec", 1000), ("ms", 1000), ("seconds", 1_000_000),
      ("second", 1_000_000), ("sec", 1_000_000), ("s", 1_000_000), ("minutes", 60_000_000),
      ("minute", 60_000_000), ("min", 60_000_000), ("m", 60_000_000), ("hours", 3_600_000_000),
      ("hour", 3_600_000_000), ("hr", 3_600_000_000), ("h", 3_600_000_000),
      ("days", 86_400_000_000), ("day", 86_400_000_000), ("d", 86_400_000_000),
    ]
    var total: Int64 = 0
    var rest = Substring(text).drop(while: { $0 == " " })
    guard !rest.isEmpty else { return nil }
    while !rest.isEmpty {
      let number = rest.prefix(while: { $0.isNumber || $0 == "." })
      guard !number.isEmpty, let value = Double(number), value >= 0 else { return nil }
      rest = rest.dropFirst(number.count).drop(while: { $0 == " " })
      let word = rest.prefix(while: { $0.isLetter })
      var scale: Int64 = 1_000_000
      if !word.isEmpty {
        guard let unit = units.first(where: { $0.0 == word }) else { return nil }
        scale = unit.1
      }
      rest = rest.dropFirst(word.count).drop(while: { $0 == " " })
      let micro = value * Double(scale)
      guard micro < 9e15 else { return nil }
      total += Int64(micro.rounded())
    }
    self = .microseconds(total)
  }
}
