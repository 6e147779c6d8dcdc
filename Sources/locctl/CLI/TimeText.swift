import LocCore
import LocHost

/// Time arguments (`tz --time`): ISO 8601 date and time, with or without seconds (and a
/// fraction), then one of
/// - `Z` or an offset (`+02:00`, `+0200`, `+02`): that instant;
/// - a zone in brackets (`2026-06-21T12:00[Europe/Oslo]`, RFC 9557's suffix): the wall time
///   in that zone, also after an offset, which must then be the zone's at that time;
/// - nothing: the wall time in this machine's zone (`TZ`, else /etc/localtime).
/// A wall time the zone skips (a DST gap) or shows twice (a fold) is refused with the two
/// offsets to choose from, never guessed.
enum TimeText {
  /// What the option's help says about the forms.
  static let forms =
    "YYYY-MM-DDTHH:MM[:SS] with Z, an offset (+02:00) or a zone ([Europe/Oslo]); without, this machine's zone"

  /// The instant `text` names; `option` names the option in errors.
  static func instant(_ text: String, option: String) throws(UsageError) -> Instant {
    func refuse(_ why: String) -> UsageError {
      UsageError(
        "--\(option) '\(text)': \(why); e.g. 2026-06-21T12:00Z, 2026-06-21T14:00+02:00 or 2026-06-21T14:00[Europe/Oslo]"
      )
    }
    var rest = Substring(text)
    // The bracketed zone, if any.
    var zoneName: String? = nil
    if rest.hasSuffix("]"), let open = rest.lastIndex(of: "[") {
      zoneName = String(rest[rest.index(after: open)..<rest.index(before: rest.endIndex)])
      rest = rest[..<open]
    }
    guard let (local, afterTime) = wallTime(rest) else {
      throw refuse("expected YYYY-MM-DDTHH:MM or YYYY-MM-DDTHH:MM:SS")
    }
    let suffix = rest[afterTime...]
    var offset: Int? = nil
    if !suffix.isEmpty {
      guard let o = offsetSeconds(suffix) else {
        throw refuse("'\(suffix)' is not Z or an offset such as +02:00")
      }
      offset = o
    }
    if let offset, zoneName == nil {
      return Instant(microsecondsSinceEpoch: local.microsecondsSinceLocalEpoch - Int64(offset) * 1_000_000)
    }
    let name: String
    if let zoneName {
      name = zoneName
    } else if let system = ZoneDatabase.systemZoneName() {
      name = system
    } else {
      throw refuse("no offset, and this machine's zone is unknown (no TZ, no /etc/localtime)")
    }
    let rules: ZoneRules
    do { rules = try ZoneDatabase().rules(named: name) } catch { throw refuse("\(error)") }
    let candidates = rules.instants(at: local)
    if let offset {
      let t = Instant(microsecondsSinceEpoch: local.microsecondsSinceLocalEpoch - Int64(offset) * 1_000_000)
      guard rules.utcOffsetSeconds(at: t) == offset else {
        throw refuse("\(name) is not at UTC\(TimeFormat.utcOffset(seconds: offset)) then")
      }
      return t
    }
    switch candidates.count {
    case 1: return candidates[0]
    case 0:
      throw refuse("\(local) does not exist in \(name) (the clocks jump over it)")
    default:
      let offsets = candidates.map { "UTC" + TimeFormat.utcOffset(seconds: rules.utcOffsetSeconds(at: $0)) }
      throw refuse(
        "\(local) happens twice in \(name) (the clocks go back over it): give the offset, \(offsets.joined(separator: " or "))"
      )
    }
  }

  /// `YYYY-MM-DD` `T`, `t` or a space, `HH:MM`, then `:SS` and `.fraction` if present: the
  /// wall time and where what follows it starts.
  /// A calendar date `YYYY-MM-DD` for `--option`, in `years`; the refusal says which part is
  /// wrong (`month 13`, `2026-02 has 28 days`, a year out of range, the shape).
  static func date(_ text: String, option: String, years: ClosedRange<Int>) throws(UsageError) -> CivilDate {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
      parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
      let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2])
    else { throw UsageError("--\(option) '\(text)': expected a date YYYY-MM-DD, e.g. 2026-06-21") }
    guard years.contains(y) else {
      throw UsageError("--\(option) '\(text)': the year must be \(years.lowerBound) to \(years.upperBound)")
    }
    guard (1...12).contains(m) else {
      throw UsageError("--\(option) '\(text)': there is no month \(m) (01 to 12)")
    }
    guard let date = CivilDate(year: y, month: m, day: d) else {
      let days = CivilDate.daysIn(month: m, year: y)
      throw UsageError(
        "--\(option) '\(text)': \(parts[0])-\(parts[1]) has \(days) days, there is no day \(d)")
    }
    return date
  }

  static func wallTime(_ s: Substring) -> (LocalDateTime, Substring.Index)? {
    let b = Array(s.utf8)
    guard b.count >= 16, let date = CivilDate(iso: String(decoding: b[0..<10], as: UTF8.self)),
      [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(b[10]), b[13] == UInt8(ascii: ":"),
      let hour = number(b[11..<13]), let minute = number(b[14..<16])
    else { return nil }
    var i = 16
    var second = 0
    var micro = 0
    if i < b.count, b[i] == UInt8(ascii: ":") {
      guard b.count >= i + 3, let s = number(b[(i + 1)..<(i + 3)]) else { return nil }
      second = s
      i += 3
      if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
        i += 1
        let start = i
        var scale = 100_000
        while i < b.count, (48...57).contains(b[i]) {
          micro += Int(b[i] - 48) * scale
          scale /= 10
          i += 1
        }
        guard i > start, i - start <= 9 else { return nil }
      }
    }
    guard
      let local = LocalDateTime(date: date, hour: hour, minute: minute, second: second, microsecond: micro)
    else { return nil }
    return (local, s.utf8.index(s.startIndex, offsetBy: i))
  }

  /// `Z`, `+HH:MM`, `+HHMM` or `+HH` (and `-`, or the minus sign U+2212) as seconds east.
  static func offsetSeconds(_ s: Substring) -> Int? {
    if s == "Z" || s == "z" { return 0 }
    var rest = s
    let sign: Int
    switch rest.first {
    case "+": sign = 1
    case "-", "\u{2212}": sign = -1
    default: return nil
    }
    rest = rest.dropFirst()
    let b = Array(rest.utf8)
    let hours: Int?
    var minutes: Int? = 0
    switch b.count {
    case 2: hours = number(b[0..<2])
    case 4: (hours, minutes) = (number(b[0..<2]), number(b[2..<4]))
    case 5 where b[2] == UInt8(ascii: ":"): (hours, minutes) = (number(b[0..<2]), number(b[3..<5]))
    default: return nil
    }
    guard let hours, let minutes, hours <= 23, minutes <= 59 else { return nil }
    return sign * (hours * 3600 + minutes * 60)
  }

  /// Two ASCII digits as a number.
  private static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
    var v = 0
    for c in bytes {
      guard (48...57).contains(c) else { return nil }
      v = v * 10 + Int(c - 48)
    }
    return v
  }
}
