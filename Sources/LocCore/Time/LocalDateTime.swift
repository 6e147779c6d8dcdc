/// A wall-clock date and time in some time zone, without the zone: what a clock on the wall shows.
public struct LocalDateTime: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The calendar date.
  public var date: CivilDate
  /// Hour, 0...23.
  public var hour: Int
  /// Minute, 0...59.
  public var minute: Int
  /// Second, 0...59 (POSIX time has no leap second).
  public var second: Int
  /// Microsecond, 0...999_999.
  public var microsecond: Int

  /// A wall time; `nil` when a field is out of range.
  public init?(date: CivilDate, hour: Int, minute: Int = 0, second: Int = 0, microsecond: Int = 0) {
    guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second),
      (0...999_999).contains(microsecond)
    else { return nil }
    self.date = date
    self.hour = hour
    self.minute = minute
    self.second = second
    self.microsecond = microsecond
  }

  /// Midnight (00:00:00) at the start of `date`.
  public init(midnightOf date: CivilDate) {
    self.date = date
    hour = 0
    minute = 0
    second = 0
    microsecond = 0
  }

  /// The wall time `microseconds` after 1970-01-01T00:00:00 on the same wall clock.
  public init(microsecondsSinceLocalEpoch us: Int64) {
    let perDay: Int64 = 86_400_000_000
    let days = us >= 0 ? us / perDay : -((-us + perDay - 1) / perDay)
    let rest = us - days * perDay
    date = CivilDate(daysSinceEpoch: Int(days))
    let seconds = Int(rest / 1_000_000)
    hour = seconds / 3600
    minute = seconds / 60 % 60
    second = seconds % 60
    microsecond = Int(rest % 1_000_000)
  }

  /// Microseconds from 1970-01-01T00:00:00 on the same wall clock to this wall time, as if it were UTC.
  public var microsecondsSinceLocalEpoch: Int64 {
    let seconds = Int64(date.daysSinceEpoch) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    return seconds * 1_000_000 + Int64(microsecond)
  }

  /// Seconds since this wall clock's midnight, with the fraction.
  public var secondOfDay: Double {
    Double(hour * 3600 + minute * 60 + second) + Double(microsecond) / 1_000_000
  }

  public static func < (a: LocalDateTime, b: LocalDateTime) -> Bool {
    a.microsecondsSinceLocalEpoch < b.microsecondsSinceLocalEpoch
  }

  /// `2024-03-31T02:30:00` (with `.ffffff` when there are microseconds).
  public var description: String {
    var out = "\(date)T" + TimeFormat.clock(secondOfDay: hour * 3600 + minute * 60 + second, seconds: true)
    if microsecond != 0 { out += "." + TimeFormat.padded(microsecond, width: 6) }
    return out
  }
}
