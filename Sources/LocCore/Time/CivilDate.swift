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

  /// Parses `YYYY-MM-DD`.
  public init?(iso text: some StringProtocol) {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
      let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2])
    else { return nil }
    self.init(year: y, month: m, day: d)
  }

  public static func < (a: CivilDate, b: CivilDate) -> Bool {
    (a.year, a.month, a.day) < (b.year, b.month, b.day)
  }

  /// `YYYY-MM-DD`.
  public var description: String {
    "\(CivilDate.pad(year, 4))-\(CivilDate.pad(month, 2))-\(CivilDate.pad(day, 2))"
  }

  static func pad(_ value: Int, _ width: Int) -> String {
    let s = String(value < 0 ? -value : value)
    let padded = s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    return value < 0 ? "-" + padded : padded
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

  /// ISO-8601 in UTC: `2026-06-21T01:23:45Z`, or with `fractionDigits` (1...6) `…:45.123Z`.
  public func iso8601(fractionDigits: Int = 0) -> String {
    let date = utcDate
    let dayStart = Int64(date.daysSinceEpoch) * 86_400_000_000
    let us = microsecondsSinceEpoch - dayStart
    let secs = Int(us / 1_000_000)
    // Digits written straight into a small buffer: this runs for every pushed event.
    var out: [UInt8] = []
    out.reserveCapacity(27)
    func put(_ value: Int, _ width: Int) {
      var divisor = 1
      for _ in 1..<width { divisor *= 10 }
      var v = value
      while divisor > 0 {
        out.append(UInt8(48 + v / divisor % 10))
        v %= divisor
        divisor /= 10
      }
    }
    guard (0...9999).contains(date.year) else {
      // Outside four-digit years, the general (rare) path.
      return
        "\(date)T\(CivilDate.pad(secs / 3600, 2)):\(CivilDate.pad(secs / 60 % 60, 2)):\(CivilDate.pad(secs % 60, 2))Z"
    }
    put(date.year, 4)
    out.append(0x2D)
    put(date.month, 2)
    out.append(0x2D)
    put(date.day, 2)
    out.append(0x54)
    put(secs / 3600, 2)
    out.append(0x3A)
    put(secs / 60 % 60, 2)
    out.append(0x3A)
    put(secs % 60, 2)
    if fractionDigits > 0 {
      let digits = min(fractionDigits, 6)
      var frac = Int(us % 1_000_000)
      for _ in 0..<(6 - digits) { frac /= 10 }
      out.append(0x2E)
      put(frac, digits)
    }
    out.append(0x5A)
    return String(decoding: out, as: UTF8.self)
  }

  /// Parses ISO-8601 UTC (`YYYY-MM-DDTHH:MM:SS[.fff…]Z`, also with `+00:00`).
  public init?(iso8601 text: some StringProtocol) {
    let t = Array(text.utf8)
    guard t.count >= 20, t[10] == UInt8(ascii: "T") || t[10] == UInt8(ascii: " "),
      let date = CivilDate(iso: String(decoding: t[0..<10], as: UTF8.self)),
      t[13] == UInt8(ascii: ":"), t[16] == UInt8(ascii: ":"),
      let h = Instant.digits(t[11..<13]), let m = Instant.digits(t[14..<16]),
      let s = Instant.digits(t[17..<19]), h < 24, m < 60, s < 61
    else { return nil }
    var i = 19
    var micro = 0
    if i < t.count, t[i] == UInt8(ascii: ".") {
      i += 1
      var scale = 100_000
      let start = i
      while i < t.count, (48...57).contains(t[i]) {
        micro += Int(t[i] - 48) * scale
        scale /= 10
        i += 1
      }
      guard i > start else { return nil }
    }
    let rest = String(decoding: t[i...], as: UTF8.self)
    guard rest == "Z" || rest == "+00:00" else { return nil }
    self.init(utc: date, hour: h, minute: m, second: s, microsecond: micro)
  }

  private static func digits(_ bytes: ArraySlice<UInt8>) -> Int? {
    var v = 0
    for b in bytes {
      guard (48...57).contains(b) else { return nil }
      v = v * 10 + Int(b - 48)
    }
    return v
  }
}
