import LocCore
import LocHost

/// Timer rules and solar event names as the command line takes them: `sunset-30m Mon-Fri`,
/// `civil-dusk`, `civil_dusk`, `07:30`; a mistyped event name gets a suggestion.
enum RuleText {
  /// The named solar events, written as rules write them (`civil-dusk`).
  static let eventNames = SolarEvent.named.map(TimerRule.ruleName)

  /// Parses a rule (the words joined by spaces); a mistyped event name gets a suggestion.
  static func rule(_ text: String) throws(UsageError) -> TimerRule {
    do { return try TimerRule(parsing: text) } catch {
      var message = "\(error)"
      if let name = eventPart(text), SolarEvent(name: normalized(name)) == nil,
        let match = Suggestion.closest(to: name, among: eventNames)
      {
        message += "; did you mean '\(match)'?"
      }
      throw UsageError(message)
    }
  }

  /// The event name of a rule's first word without its offset (`sunest` of `sunest-30m`),
  /// or nil for a wall time or an elevation.
  static func eventPart(_ text: String) -> String? {
    guard let word = text.split(separator: " ").first, let first = word.first, !first.isNumber,
      !word.hasPrefix("elevation:")
    else { return nil }
    // The offset starts at the last sign followed by a digit.
    var name = Substring(word)
    if let sign = word.lastIndex(where: { $0 == "+" || $0 == "-" }),
      word[word.index(after: sign)...].first?.isNumber == true
    {
      name = word[..<sign]
    }
    return String(name)
  }

  /// A solar event by name, with `-` or `_` (`civil-dusk`, `civil_dusk`), or
  /// `elevation:DEGREES:morning|evening`.
  static func event(_ text: String) throws(UsageError) -> SolarEvent {
    if let e = SolarEvent(name: normalized(text)) ?? SolarEvent(name: text) { return e }
    throw UsageError(
      "'\(text)' is not a solar event" + Suggestion.hint(for: text, among: eventNames)
        + "; events: \(eventNames.joined(separator: ", ")), elevation:DEGREES:morning|evening")
  }

  /// `civil-dusk` as `civil_dusk`, leaving an elevation's minus sign alone.
  static func normalized(_ name: String) -> String {
    var out = ""
    var previous: Character? = nil
    for c in name {
      out.append(c == "-" && previous != ":" ? "_" : c)
      previous = c
    }
    return out
  }
}
