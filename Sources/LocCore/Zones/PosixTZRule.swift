/// A POSIX TZ rule string such as `CET-1CEST,M3.5.0,M10.5.0/3`: the form TZif footers use for
/// instants after the last listed transition (POSIX.1-2017 §8.3, with the RFC 8536 §3.3.1
/// extensions: hours up to ±167 in rule times, and negative rule times).
public struct PosixTZRule: Hashable, Sendable {
  /// Standard time.
  public var standard: LocalTimeType
  /// Daylight-saving time, when the zone has it.
  public var daylight: LocalTimeType?
  /// When daylight time starts (in standard local time) and ends (in daylight local time).
  var start: DateRule
  var end: DateRule

  /// A day of the year and a local time of day at which a change happens.
  struct DateRule: Hashable, Sendable {
    enum Day: Hashable, Sendable {
      /// `Jn`: day 1...365, February 29 never counted.
      case julian(Int)
      /// `n`: day 0...365, February 29 counted in leap years.
      case zeroBased(Int)
      /// `Mm.w.d`: weekday d (0 = Sunday) of week w (1...5, 5 = last) of month m.
      case monthWeekDay(month: Int, week: Int, weekday: Int)
    }
    var day: Day
    /// Local time of day in seconds (may be negative or past 24 h).
    var seconds: Int

    /// Days since 1970-01-01 of the rule's day in `year`.
    func daysSinceEpoch(year: Int) -> Int {
      let january1 = CivilDate(year: year, month: 1, day: 1)!.daysSinceEpoch
      switch day {
      case .julian(let n):
        return january1 + n - 1 + (CivilDate.isLeap(year) && n >= 60 ? 1 : 0)
      case .zeroBased(let n):
        return january1 + n
      case .monthWeekDay(let month, let week, let weekday):
        let first = CivilDate(year: year, month: month, day: 1)!
        var dayOfMonth = 1 + (weekday - first.weekday + 7) % 7 + 7 * (week - 1)
        while dayOfMonth > CivilDate.daysIn(month: month, year: year) { dayOfMonth -= 7 }
        return first.daysSinceEpoch + dayOfMonth - 1
      }
    }
  }

  /// Parses a TZ string; `nil` when it is not a valid POSIX TZ rule. A zone with daylight time
  /// but no rule gets the US rule (`M3.2.0,M11.1.0`), as tzcode does.
  public init?(_ text: some StringProtocol) {
    var parser = Parser(bytes: Array(text.utf8))
    guard let stdName = parser.name(), let stdOffset = parser.offset(maxHours: 24) else { return nil }
    standard = LocalTimeType(utcOffsetSeconds: -stdOffset, isDaylightSaving: false, abbreviation: stdName)
    if parser.atEnd {
      daylight = nil
      start = DateRule(day: .zeroBased(0), seconds: 0)
      end = start
      return
    }
    guard let dstName = parser.name() else { return nil }
    var dstOffset = stdOffset - 3600
    if !parser.atEnd, parser.peek != UInt8(ascii: ",") {
      guard let parsed = parser.offset(maxHours: 24) else { return nil }
      dstOffset = parsed
    }
    daylight = LocalTimeType(utcOffsetSeconds: -dstOffset, isDaylightSaving: true, abbreviation: dstName)
    if parser.atEnd {
      start = DateRule(day: .monthWeekDay(month: 3, week: 2, weekday: 0), seconds: 7200)
      end = DateRule(day: .monthWeekDay(month: 11, week: 1, weekday: 0), seconds: 7200)
      return
    }
    guard parser.eat(","), let s = parser.dateRule(), parser.eat(","), let e = parser.dateRule(), parser.atEnd
    else { return nil }
    start = s
    end = e
  }

  /// The local time type in effect at `second` (seconds since the Unix epoch).
  public func localTimeType(atSecond second: Int64) -> LocalTimeType {
    guard let daylight else { return standard }
    let year = Instant(microsecondsSinceEpoch: second * 1_000_000).utcDate.year
    var current = standard
    // The changes of the previous, this and the next year, in order: the last one at or
    // before `second` decides (a change near New Year may belong to either year).
    for change in changes(fromYear: year - 1, toYear: year + 1) {
      if change.second > second { break }
      current = change.isDaylight ? daylight : standard
    }
    return current
  }

  /// The first change of local time type strictly after `second`, if the zone has any.
  public func nextTransition(afterSecond second: Int64) -> (second: Int64, type: LocalTimeType)? {
    guard let daylight else { return nil }
    let year = Instant(microsecondsSinceEpoch: second * 1_000_000).utcDate.year
    var current = localTimeType(atSecond: second)
    // Every year has a start and an end, so a change comes within a year. One that keeps the type
    // (a zone on daylight time all year ends one year where it starts the next) is not a change.
    let all = changes(fromYear: year - 1, toYear: year + 3)
    // The last change is left out: its partner at the same instant may lie in the year after.
    for (i, change) in all.dropLast().enumerated() where change.second > second {
      // Of several changes at one instant, the last one decides.
      if all[i + 1].second == change.second { continue }
      let next = change.isDaylight ? daylight : standard
      if next != current { return (change.second, next) }
      current = next
    }
    return nil
  }

  /// The start and end instants of daylight time in the given years, sorted (ends first on ties).
  private func changes(fromYear: Int, toYear: Int) -> [(second: Int64, isDaylight: Bool)] {
    guard let daylight else { return [] }
    var out: [(second: Int64, isDaylight: Bool)] = []
    out.reserveCapacity(2 * (toYear - fromYear + 1))
    for year in fromYear...toYear {
      // The start is given in standard time, the end in daylight time (POSIX.1-2017 §8.3).
      let startLocal = Int64(start.daysSinceEpoch(year: year)) * 86_400 + Int64(start.seconds)
      let endLocal = Int64(end.daysSinceEpoch(year: year)) * 86_400 + Int64(end.seconds)
      out.append((startLocal - Int64(standard.utcOffsetSeconds), true))
      out.append((endLocal - Int64(daylight.utcOffsetSeconds), false))
    }
    out.sort { a, b in a.second != b.second ? a.second < b.second : (!a.isDaylight && b.isDaylight) }
    return out
  }

  /// A cursor over the bytes of a TZ string.
  private struct Parser {
    var bytes: [UInt8]
    var index = 0

    var atEnd: Bool { index >= bytes.count }
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func eat(_ character: Character) -> Bool {
      guard let ascii = character.asciiValue, peek == ascii else { return false }
      index += 1
      return true
    }

    /// `std`/`dst`: three or more letters, or `<...>` with letters, digits, `+` and `-`.
    mutating func name() -> String? {
      if eat("<") {
        let begin = index
        while let c = peek, c != UInt8(ascii: ">") {
          guard isAlphanumeric(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") else { return nil }
          index += 1
        }
        let name = String(decoding: bytes[begin..<index], as: UTF8.self)
        guard eat(">"), name.utf8.count >= 3 else { return nil }
        return name
      }
      let begin = index
      while let c = peek, isLetter(c) { index += 1 }
      guard index - begin >= 3 else { return nil }
      return String(decoding: bytes[begin..<index], as: UTF8.self)
    }

    /// `[+|-]hh[:mm[:ss]]` in seconds, hours at most `maxHours`.
    mutating func offset(maxHours: Int) -> Int? {
      var sign = 1
      if eat("-") {
        sign = -1
      } else {
        _ = eat("+")
      }
      guard let h = number(maxDigits: 3), h <= maxHours else { return nil }
      var seconds = h * 3600
      if eat(":") {
        guard let m = number(maxDigits: 2), m < 60 else { return nil }
        seconds += m * 60
        if eat(":") {
          guard let s = number(maxDigits: 2), s < 60 else { return nil }
          seconds += s
        }
      }
      return sign * seconds
    }

    /// `Jn`, `n` or `Mm.w.d`, then optionally `/time` (default 02:00:00).
    mutating func dateRule() -> DateRule? {
      let day: DateRule.Day
      if eat("J") {
        guard let n = number(maxDigits: 3), (1...365).contains(n) else { return nil }
        day = .julian(n)
      } else if eat("M") {
        guard let m = number(maxDigits: 2), (1...12).contains(m), eat("."),
          let w = number(maxDigits: 1), (1...5).contains(w), eat("."),
          let d = number(maxDigits: 1), (0...6).contains(d)
        else { return nil }
        day = .monthWeekDay(month: m, week: w, weekday: d)
      } else {
        guard let n = number(maxDigits: 3), (0...365).contains(n) else { return nil }
        day = .zeroBased(n)
      }
      var seconds = 7200
      if eat("/") {
        guard let t = offset(maxHours: 167) else { return nil }
        seconds = t
      }
      return DateRule(day: day, seconds: seconds)
    }

    mutating func number(maxDigits: Int) -> Int? {
      var value = 0
      var digits = 0
      while let c = peek, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9"), digits < maxDigits {
        value = value * 10 + Int(c - UInt8(ascii: "0"))
        digits += 1
        index += 1
      }
      return digits > 0 ? value : nil
    }

    func isLetter(_ c: UInt8) -> Bool {
      (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
    }

    func isAlphanumeric(_ c: UInt8) -> Bool {
      isLetter(c) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
    }
  }
}
