/// When a timer fires: a solar event with an offset (`sunset-30m`, `civil-dusk+10m`,
/// `elevation:-8.5:evening`) or a local wall-clock time (`07:30`), either on every day or on
/// some days of the week (`07:30 Mon-Fri`). Grammar: docs/TIMERS.md.
public struct TimerRule: Hashable, Sendable, CustomStringConvertible {
  /// What the rule is anchored to.
  public enum Anchor: Hashable, Sendable {
    /// A solar event of the local day, moved by `offset` (negative: earlier).
    case solar(SolarEvent, offset: Duration)
    /// A wall-clock time of the local day, in seconds since local midnight.
    case wallClock(secondOfDay: Int)
  }

  /// The anchor.
  public var anchor: Anchor
  /// The days of the week it fires on (the local date the occurrence belongs to).
  public var weekdays: Weekdays

  /// Largest offset from a solar event: half a day, so an occurrence stays next to its day.
  public static let maxOffset: Duration = .seconds(12 * 3600)

  /// A rule.
  public init(anchor: Anchor, weekdays: Weekdays = .all) {
    self.anchor = anchor
    self.weekdays = weekdays
  }

  /// Why a rule text was not understood.
  public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, in a sentence that names the bad part.
    public var description: String
  }

  /// Parses a rule: `WHEN [DAYS]` where WHEN is `EVENT[+|-OFFSET]` or `HH:MM[:SS]`.
  public init(parsing text: some StringProtocol) throws(ParseError) {
    let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
    guard let first = words.first else { throw ParseError(description: "empty rule") }
    guard words.count <= 2 else {
      throw ParseError(description: "a rule is WHEN [DAYS], e.g. 'sunset-30m Mon-Fri'; too many words")
    }
    var weekdays = Weekdays.all
    if words.count == 2 {
      guard let days = Weekdays(parsing: words[1]) else {
        throw ParseError(description: "'\(words[1])' is not a list of days such as Mon-Fri or Sat,Sun")
      }
      weekdays = days
    }
    self.weekdays = weekdays
    if first.first?.isNumber == true {
      guard let second = TimerRule.parseClock(first) else {
        throw ParseError(
          description: "'\(first)' is not a wall-clock time HH:MM or HH:MM:SS (00:00 to 23:59:59)")
      }
      anchor = .wallClock(secondOfDay: second)
      return
    }
    // EVENT or EVENT+OFFSET / EVENT-OFFSET; the event itself may hold a minus sign
    // (elevation:-8.5:evening), so try each sign from the right.
    if let event = TimerRule.event(named: first) {
      anchor = .solar(event, offset: .zero)
      return
    }
    var index = first.endIndex
    while index > first.startIndex {
      index = first.index(before: index)
      let c = first[index]
      guard c == "+" || c == "-" else { continue }
      guard let event = TimerRule.event(named: first[..<index]) else { continue }
      let spanText = first[first.index(after: index)...]
      // A bare number would read as seconds (as systemd spans do), which is never what
      // `sunset-30` means: ask for the unit instead of guessing.
      if !spanText.isEmpty, spanText.allSatisfy({ ($0.isASCII && $0.isNumber) || $0 == "." }) {
        throw ParseError(
          description:
            "'\(first)': the offset '\(spanText)' has no unit; write \(first[..<index])\(c)\(spanText)m for minutes (or \(spanText)s, \(spanText)h)"
        )
      }
      guard let span = Duration(timeSpan: spanText), span <= TimerRule.maxOffset else {
        throw ParseError(
          description: "'\(spanText)' is not an offset such as 30m, 1h30m or 90s (at most 12h)")
      }
      anchor = .solar(event, offset: c == "-" ? .zero - span : span)
      return
    }
    throw ParseError(
      description:
        "'\(first)' is neither a time HH:MM nor a solar event such as sunrise, sunset-30m, civil-dusk+10m, solar-noon, elevation:-8.5:evening"
    )
  }

  /// A solar event by its rule name (`civil-dusk`) or its JSON name (`civil_dusk`).
  static func event(named name: some StringProtocol) -> SolarEvent? {
    guard !name.isEmpty else { return nil }
    let underscored = String(name).replacingHyphens()
    if let event = SolarEvent(name: underscored) { return event }
    return SolarEvent(name: name)
  }

  /// `HH:MM` or `HH:MM:SS` as seconds since midnight.
  static func parseClock(_ text: some StringProtocol) -> Int? {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2 || parts.count == 3, parts.allSatisfy({ (1...2).contains($0.count) }),
      parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } })
    else { return nil }
    guard let h = Int(parts[0]), let m = Int(parts[1]), (0...23).contains(h), (0...59).contains(m),
      parts[1].count == 2
    else { return nil }
    var s = 0
    if parts.count == 3 {
      guard parts[2].count == 2, let v = Int(parts[2]), (0...59).contains(v) else { return nil }
      s = v
    }
    return h * 3600 + m * 60 + s
  }

  /// The solar event, if the rule has one.
  public var solarEvent: SolarEvent? {
    if case .solar(let event, _) = anchor { return event }
    return nil
  }

  /// The canonical text: `sunset-30m Mon-Fri`, `07:30`, `elevation:-8.5:evening+1h5m`.
  public var description: String {
    var out: String
    switch anchor {
    case .wallClock(let s):
      out = TimeFormat.clock(secondOfDay: s, seconds: s % 60 != 0)
    case .solar(let event, let offset):
      out = TimerRule.ruleName(event)
      // To the microsecond, as the offset was parsed: the text is what the timer store keeps.
      let (seconds, attoseconds) = offset.components
      let us = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
      if us != 0 { out += (us < 0 ? "-" : "+") + TimerRule.formatSpan(microseconds: abs(us)) }
    }
    if weekdays != .all { out += " \(weekdays)" }
    return out
  }

  /// `civil-dusk`, `solar-noon`, `elevation:-8.5:evening`: the event's name with hyphens.
  public static func ruleName(_ event: SolarEvent) -> String {
    if case .elevation = event { return event.description }
    return String(event.description.map { $0 == "_" ? "-" : $0 })
  }

  /// `1h30m`, `45s`, `2h`, and below the second `1h30m5s250ms`, `500ms`, `5s4us`.
  static func formatSpan(microseconds: Int64) -> String {
    let whole = microseconds / 1_000_000
    let ms = microseconds / 1000 % 1000
    let us = microseconds % 1000
    var out = whole > 0 || microseconds == 0 ? formatSpan(whole) : ""
    if out == "0s" { out = "" }
    if ms > 0 { out += "\(ms)ms" }
    if us > 0 { out += "\(us)us" }
    return out.isEmpty ? "0s" : out
  }

  /// `1h30m`, `45s`, `2h`.
  static func formatSpan(_ seconds: Int64) -> String {
    var out = ""
    let h = seconds / 3600
    let m = seconds / 60 % 60
    let s = seconds % 60
    if h > 0 { out += "\(h)h" }
    if m > 0 { out += "\(m)m" }
    if s > 0 || out.isEmpty { out += "\(s)s" }
    return out
  }
}

extension String {
  /// The text with `-` turned into `_`, except a minus sign before a digit (elevation values).
  fileprivate func replacingHyphens() -> String {
    var out = ""
    var previous: Character? = nil
    for c in self {
      if c == "-", previous != ":" { out.append("_") } else { out.append(c) }
      previous = c
    }
    return out
  }
}
