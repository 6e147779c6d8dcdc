/// systemd-style time spans (systemd.time(7)), as locd.conf and timer offsets write them:
/// `10s`, `500ms`, `5min`, `1h 30min`, `2d`, `100us`, or a bare number of seconds.
public enum TimeSpan {
  /// Why a text is not a time span.
  public enum ParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nothing but spaces.
    case empty
    /// Where a number belongs there is none (a sign, a letter, `1.2.3`).
    case notANumber(String)
    /// The unit is none of systemd's.
    case unknownUnit(String)
    /// The terms add up to more than `TimeSpan.maximum`.
    case tooLong

    public var description: String {
      switch self {
      case .empty: return "empty"
      case .notANumber(let text): return "'\(text)' is not a number"
      case .unknownUnit(let unit): return "unknown unit '\(unit)'; the units are us, ms, s, min, h and d"
      case .tooLong: return "longer than about 285 years"
      }
    }
  }

  /// The longest span parsed: 9·10¹⁵ µs, about 285 years. Longer ones are refused rather than
  /// left to overflow the 64-bit microsecond counts `Instant` arithmetic works in.
  public static let maximum: Duration = .microseconds(9_000_000_000_000_000)

  /// Units and their length in microseconds; longer names first where one is a prefix.
  static let units: [(name: String, microseconds: Int64)] = [
    ("usec", 1), ("us", 1), ("msec", 1000), ("ms", 1000), ("seconds", 1_000_000),
    ("second", 1_000_000), ("sec", 1_000_000), ("s", 1_000_000), ("minutes", 60_000_000),
    ("minute", 60_000_000), ("min", 60_000_000), ("m", 60_000_000), ("hours", 3_600_000_000),
    ("hour", 3_600_000_000), ("hr", 3_600_000_000), ("h", 3_600_000_000),
    ("days", 86_400_000_000), ("day", 86_400_000_000), ("d", 86_400_000_000),
  ]

  /// The units `format` writes, largest first.
  static let formatUnits: [(name: String, microseconds: Int64)] = [
    ("d", 86_400_000_000), ("h", 3_600_000_000), ("min", 60_000_000), ("s", 1_000_000), ("ms", 1000),
    ("us", 1),
  ]

  /// Parses a span. Each term is a decimal number (digits and at most one point) and an
  /// optional unit (seconds without one); terms may be separated by spaces. Never traps: a
  /// sum past `maximum` is `.tooLong`.
  public static func parse(_ text: some StringProtocol) throws(ParseError) -> Duration {
    let maximum = maximum.components.seconds * 1_000_000
    var rest = Substring(text).drop(while: { $0 == " " })
    guard !rest.isEmpty else { throw .empty }
    var total: Int64 = 0
    while !rest.isEmpty {
      let number = rest.prefix(while: { ($0.isASCII && $0.isNumber) || $0 == "." })
      guard !number.isEmpty, let value = Double(number) else {
        throw .notANumber(String(rest.prefix(while: { $0 != " " })))
      }
      rest = rest.dropFirst(number.count).drop(while: { $0 == " " })
      let word = rest.prefix(while: { $0.isASCII && $0.isLetter })
      var scale: Int64 = 1_000_000
      if !word.isEmpty {
        guard let unit = units.first(where: { $0.name == word }) else { throw .unknownUnit(String(word)) }
        scale = unit.microseconds
      }
      rest = rest.dropFirst(word.count).drop(while: { $0 == " " })
      // Both at most 9e15, so the sum cannot overflow an Int64 (9.2e18) before it is checked.
      let micro = value * Double(scale)
      guard micro <= Double(maximum) else { throw .tooLong }
      total += Int64(micro.rounded())
      guard total <= maximum else { throw .tooLong }
    }
    return .microseconds(total)
  }

  /// The span as systemd writes it, largest units first: `10s`, `1min`, `1h 30min`, `500ms`,
  /// `0`. `parse` reads it back to the same microsecond.
  public static func format(_ span: Duration) -> String {
    let (seconds, attoseconds) = span.components
    var us = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    guard us > 0 else { return us == 0 ? "0" : "-" + format(.zero - span) }
    var parts: [String] = []
    for (name, length) in formatUnits where us >= length {
      parts.append("\(us / length)\(name)")
      us %= length
    }
    return parts.joined(separator: " ")
  }
}

extension Duration {
  /// A systemd-style time span (`TimeSpan.parse`), or `nil` for anything else.
  public init?(timeSpan text: some StringProtocol) {
    guard let span = try? TimeSpan.parse(text) else { return nil }
    self = span
  }
}
