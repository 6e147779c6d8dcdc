/// A calendar date in the proleptic Gregorian calendar, without a time zone.
public struct CivilDate: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// Year, e.g. 2026.
  public var year: Int
  /// Month, 1...12.
  public var month: Int
  /// Day of the month, 1...31.
  public var day: Int

  /// A date; `nil` when the fields do not name a real day.
  public init?(year: Int, month: Int, day: Int) {
    guard (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(month: month, year: year) else {
      return nil
    }
    self.year = year
    self.month = month
    self.day = day
  }

  /// The date `daysSinceEpoch` days after 1970-01-01 (negative: before).
  public init(daysSinceEpoch z0: Int) {
    // Howard Hinnant's civil_from_days (public-domain algorithm description,
    // http://howardhinnant.github.io/date_algorithms.html), written from the description.
    let z = z0 + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    self.year = yoe + era * 400 + (m <= 2 ? 1 : 0)
    self.month = m
    self.day = d
  }

  /// Days from 1970-01-01 to this date (negative: before).
  public var daysSinceEpoch: Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = month > 2 ? month - 3 : month + 9
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// Day of the week, 0 = Sunday ... 6 = Saturday.
  public var weekday: Int {
    let d = daysSinceEpoch
    // 1970-01-01 was a Thursday (4).
    return ((d % 7) + 7 + 4) % 7
  }

  /// The date `n` days later.
  public func adding(days n: Int) -> CivilDate { CivilDate(daysSinceEpoch: daysSinceEpoch + n) }

  /// Whether `year` is a Gregorian leap year.
  public static func isLeap(_ year: Int) -> Bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
  }

  /// Number of days in a month.
  public static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: return isLeap(year) ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  /// Parses `YYYY-MM-DD` (ASCII digits only: no sign, no space).
  public init?(iso text: some StringProtocol) {
    let parsed =
      text.utf8.withContiguousStorageIfAvailable { CivilDate(isoBytes: $0) }
      ?? Array(text.utf8).withUnsafeBufferPointer { CivilDate(isoBytes: $0) }
    guard let parsed else { return nil }
    self = parsed
  }

  /// `YYYY-MM-DD` from its bytes, exactly ten of them.
  init?(isoBytes t: UnsafeBufferPointer<UInt8>) {
    guard t.count == 10, t[4] == UInt8(ascii: "-"), t[7] == UInt8(ascii: "-"),
      let y = CivilDate.decimal(t, 0, 4), let m = CivilDate.decimal(t, 5, 7),
      let d = CivilDate.decimal(t, 8, 10)
    else { return nil }
    self.init(year: y, month: m, day: d)
  }

  /// The decimal number written in `t[from..<to]`, or nil if any of its bytes is no digit.
  static func decimal(_ t: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Int? {
    var v = 0
    for k in from..<to {
      let digit = t[k] &- 48
      guard digit < 10 else { return nil }
      v = v * 10 + Int(digit)
    }
    return v
  }

  public static func < (a: CivilDate, b: CivilDate) -> Bool {
    (a.year, a.month, a.day) < (b.year, b.month, b.day)
  }

  /// `YYYY-MM-DD`.
  public var description: String {
    "\(TimeFormat.padded(year, width: 4))-\(TimeFormat.padded(month, width: 2))-\(TimeFormat.padded(day, width: 2))"
  }
}

extension Instant {
  /// An instant from a UTC calendar date and time of day.
  public init(utc date: CivilDate, hour: Int = 0, minute: Int = 0, second: Int = 0, microsecond: Int = 0) {
    let seconds = Int64(date.daysSinceEpoch) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    self.init(microsecondsSinceEpoch: seconds * 1_000_000 + Int64(microsecond))
  }

  /// The UTC calendar date of this instant.
  public var utcDate: CivilDate {
    let s =
      microsecondsSinceEpoch >= 0
      ? microsecondsSinceEpoch / 1_000_000 : -((-microsecondsSinceEpoch + 999_999) / 1_000_000)
    let days = s >= 0 ? s / 86_400 : -((-s + 86_399) / 86_400)
    return CivilDate(daysSinceEpoch: Int(days))
  }

  /// Seconds since UTC midnight of `utcDate`, with the fraction.
  public var utcSecondOfDay: Double {
    let dayStart = Int64(utcDate.daysSinceEpoch) * 86_400_000_000
    return Double(microsecondsSinceEpoch - dayStart) / 1_000_000
  }

}
