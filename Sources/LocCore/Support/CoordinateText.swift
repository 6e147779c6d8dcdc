/// The one coordinate syntax of locctl (locctl(1), COORDINATES; decision 0045): latitude
/// then longitude, WGS84, in any of
///
/// - decimal degrees, north and east positive: `59.91,10.75`, `59.91, 10.75`, `59.91 10.75`;
/// - with hemisphere letters before or after each number instead of a sign: `59.91N 10.75E`,
///   `N59.91 E10.75`, `33.92S,18.42E` (N or S on the latitude, E or W on the longitude,
///   either case);
/// - degrees, minutes and seconds, each part with its mark: `59°54'50"N 10°45'8"E`,
///   `59°54.83'N`, `59d54m50sN`, the primes `′` and `″`;
/// - a `geo:` URI (RFC 5870): `geo:59.91,10.75`, `geo:59.91,10.75,12;u=35;crs=wgs84`.
///
/// Given as command-line words, a coordinate is one word or two (`read(_:from:)`): a word
/// that holds only a latitude takes the next one. `CoordinateScanner`, `locctl tz -`'s byte
/// reader, reads the plain decimal forms to the same doubles.
public enum CoordinateText {
  /// A coordinate read from text, with what a `geo:` URI can add to it.
  public struct Reading: Sendable, Hashable {
    /// The place.
    public var coordinate: Coordinate
    /// The altitude a `geo:` URI gave (its third number), in metres.
    public var altitude: Meters?
    /// The uncertainty a `geo:` URI gave (`;u=`), in metres: an accuracy radius.
    public var uncertainty: Meters?

    /// A reading of `coordinate`, with an altitude and uncertainty if the text had them.
    public init(coordinate: Coordinate, altitude: Meters? = nil, uncertainty: Meters? = nil) {
      self.coordinate = coordinate
      self.altitude = altitude
      self.uncertainty = uncertainty
    }
  }

  /// Reads `text`, one coordinate in any of the forms.
  public static func parse(_ text: some StringProtocol) throws(Problem) -> Reading {
    let trimmed = Substring(text).drop(while: \.isWhitespace)
    if trimmed.prefix(4).lowercased() == "geo:" { return try geoURI(trimmed) }
    let chars = Array(trimmed)
    let angles = try group(try tokens(chars), chars)
    return Reading(coordinate: try coordinate(angles[0], angles[1], chars))
  }

  /// Reads the coordinate that starts at `words[index]`: that word alone, or with the next one
  /// when it holds only a latitude (`59.91` `10.75`, `59.91,` `10.75`, `59°54'50"N`
  /// `10°45'8"E`). Returns the reading and how many words it took (1 or 2).
  public static func read(_ words: [String], from index: Int = 0) throws(Problem) -> (
    reading: Reading, words: Int
  ) {
    guard index < words.count else { throw .empty }
    do throws(Problem) {
      return (try parse(words[index]), 1)
    } catch  where error.isIncomplete && index + 1 < words.count {
      return (try parse(words[index] + " " + words[index + 1]), 2)
    }
  }

  /// Whether `word` holds only a latitude, so that a command reading it should take the next
  /// word as the longitude.
  public static func wantsAnotherWord(_ word: String) -> Bool {
    do throws(Problem) { _ = try parse(word) } catch { return error.isIncomplete }
    return false
  }

  /// The mark after a number: `°` (or `d`, `º`), `'` (or `′`, `’`, `m`), `"` (or `″`, `”`,
  /// `''`, and `s` after minutes). Ordered: degrees, then minutes, then seconds.
  enum Mark: Int, Comparable {
    case degrees, minutes, seconds

    /// Whether `a` comes before `b` in an angle.
    static func < (a: Mark, b: Mark) -> Bool { a.rawValue < b.rawValue }
  }

  /// A piece of a plain (not `geo:`) coordinate, with where it is in the text.
  struct Token {
    /// What the piece is.
    enum Kind {
      /// A number: its sign, its digits (with at most one point), its mark.
      case number(sign: Character?, digits: String, mark: Mark?)
      /// A hemisphere letter, upper case.
      case letter(Character)
      /// The comma between latitude and longitude.
      case comma
    }
    /// What it is.
    var kind: Kind
    /// The characters it was read from.
    var range: Range<Int>
  }

  /// One of the two angles: its numbers (degrees, then perhaps minutes and seconds) and its
  /// hemisphere letter.
  struct Angle {
    /// The numbers, degrees first, each with its sign, digits and mark.
    var parts: [(sign: Character?, digits: String, mark: Mark?)] = []
    /// N, S, E or W, before or after the numbers.
    var letter: Character? = nil
    /// The characters it was read from, letter included.
    var range: Range<Int>
  }

  /// The tokens of `s`. Blanks separate; a word that is none of the pieces is named.
  static func tokens(_ s: [Character]) throws(Problem) -> [Token] {
    var out: [Token] = []
    var i = 0
    while i < s.count {
      let c = s[i]
      if c.isWhitespace {
        i += 1
      } else if c == "," {
        out.append(Token(kind: .comma, range: i..<i + 1))
        i += 1
      } else if startsNumber(s, i) {
        let start = i
        var sign: Character? = nil
        if c == "-" || c == "+" {
          sign = c
          i += 1
        }
        let first = i
        while i < s.count, isDigit(s[i]) || s[i] == "." { i += 1 }
        let digits = String(s[first..<i])
        guard digits.filter({ $0 == "." }).count <= 1, digits.contains(where: isDigit) else {
          throw .notANumber(word(s, start))
        }
        var mark: Mark? = nil
        if i < s.count {
          let afterMinutes: Bool
          if case .number(_, _, .minutes)? = out.last?.kind {
            afterMinutes = true
          } else {
            afterMinutes = false
          }
          switch s[i] {
          case "°", "º", "d": mark = .degrees
          case "'" where i + 1 < s.count && s[i + 1] == "'":
            mark = .seconds
            i += 1
          case "'", "′", "’", "m": mark = .minutes
          case "\"", "″", "”": mark = .seconds
          case "s" where afterMinutes: mark = .seconds
          default: break
          }
          if mark != nil { i += 1 }
        }
        out.append(Token(kind: .number(sign: sign, digits: digits, mark: mark), range: start..<i))
      } else if "NSEWnsew".contains(c) {
        // A letter between two numbers with nothing between (`1e3`, `59.91N10.75E`) or
        // inside a word (`nan`) is not a hemisphere.
        let glued = out.last.map { $0.range.upperBound == i && !isComma($0) } ?? false
        let next = i + 1 < s.count ? s[i + 1] : " "
        guard !(glued && startsNumber(s, i + 1)), !next.isLetter else { throw .notANumber(word(s, i)) }
        out.append(Token(kind: .letter(Character(c.uppercased())), range: i..<i + 1))
        i += 1
      } else {
        throw .notANumber(word(s, i))
      }
    }
    return out
  }

  /// The two angles of the tokens, latitude first: at most one comma, between them.
  static func group(_ tokens: [Token], _ s: [Character]) throws(Problem) -> [Angle] {
    guard !tokens.isEmpty else { throw .empty }
    var angles: [Angle] = []
    var k = 0
    while k < tokens.count {
      guard angles.count < 2 else {
        if case .comma = tokens[k].kind { throw .shape }
        throw .tooMany
      }
      angles.append(try angle(tokens, &k, s))
      if k < tokens.count, case .comma = tokens[k].kind {
        guard angles.count == 1 else { throw .shape }
        k += 1
      }
    }
    guard angles.count == 2 else { throw .incomplete(trimmed(s)) }
    return angles
  }

  /// One angle from `tokens[k...]`: a letter before or after, degrees, then perhaps minutes
  /// and seconds, each with its mark.
  static func angle(_ tokens: [Token], _ k: inout Int, _ s: [Character]) throws(Problem) -> Angle {
    var angle = Angle(range: tokens[k].range)
    if case .letter(let l) = tokens[k].kind {
      angle.letter = l
      k += 1
    }
    guard k < tokens.count, case .number(let sign, let digits, let mark) = tokens[k].kind else {
      if k >= tokens.count, angle.letter != nil { throw .incomplete(trimmed(s)) }
      throw .shape
    }
    angle.parts.append((sign, digits, mark))
    angle.range = angle.range.lowerBound..<tokens[k].range.upperBound
    k += 1
    if let mark, mark != .degrees {
      throw .angle(
        text(s, angle.range), "\(mark == .minutes ? "minutes" : "seconds") need degrees before them")
    }
    while mark == .degrees, k < tokens.count,
      case .number(let partSign, let partDigits, let next?) = tokens[k].kind,
      let last = angle.parts.last?.mark, next > last
    {
      angle.parts.append((partSign, partDigits, next))
      angle.range = angle.range.lowerBound..<tokens[k].range.upperBound
      k += 1
    }
    if angle.letter == nil, k < tokens.count, case .letter(let l) = tokens[k].kind {
      angle.letter = l
      angle.range = angle.range.lowerBound..<tokens[k].range.upperBound
      k += 1
    }
    return angle
  }

  /// The coordinate of the two angles, checked: letters in their places, no letter with a
  /// sign, minutes and seconds below 60, decimals only in the last part, the ranges.
  static func coordinate(_ lat: Angle, _ lon: Angle, _ s: [Character]) throws(Problem) -> Coordinate {
    let latitude = try degrees(lat, first: true, s)
    let longitude = try degrees(lon, first: false, s)
    guard (-90.0...90.0).contains(latitude) else { throw .latitude(latitude) }
    guard (-180.0...180.0).contains(longitude) else { throw .longitude(longitude) }
    guard let c = Coordinate(lat: latitude, lon: longitude) else { throw .shape }
    return c
  }

  /// The signed degrees of `angle`, the latitude when `first`.
  static func degrees(_ angle: Angle, first: Bool, _ s: [Character]) throws(Problem) -> Double {
    let written = text(s, angle.range)
    if let letter = angle.letter {
      guard (first ? "NS" : "EW").contains(letter) else { throw .hemisphere(written, latitude: first) }
      guard angle.parts[0].sign == nil else { throw .letterAndSign(written) }
    }
    var seconds = 0.0
    for (n, part) in angle.parts.enumerated() {
      guard let value = Double(part.digits), value.isFinite else { throw .notANumber(written) }
      if n > 0, part.sign != nil { throw .angle(written, "only the degrees take a sign") }
      if n < angle.parts.count - 1, part.digits.contains(".") {
        throw .angle(written, "only the last part may have decimals")
      }
      if n > 0, value >= 60 {
        throw .angle(written, "\(part.mark == .minutes ? "minutes" : "seconds") must be below 60")
      }
      guard angle.parts.count > 1 else {
        // Plain degrees stay the number as written, the double `Double(String)` reads.
        seconds = value
        break
      }
      switch part.mark {
      case .degrees?, nil: seconds += value * 3600
      case .minutes?: seconds += value * 60
      case .seconds?: seconds += value
      }
    }
    let magnitude = angle.parts.count > 1 ? seconds / 3600 : seconds
    let negative = angle.parts[0].sign == "-" || angle.letter == "S" || angle.letter == "W"
    return negative ? -magnitude : magnitude
  }

  /// Whether `s[i...]` starts a number: a digit, a point and a digit, or a sign before either.
  static func startsNumber(_ s: [Character], _ i: Int) -> Bool {
    var j = i
    if j < s.count, s[j] == "-" || s[j] == "+" { j += 1 }
    guard j < s.count else { return false }
    if isDigit(s[j]) { return true }
    return s[j] == "." && j + 1 < s.count && isDigit(s[j + 1])
  }

  /// An ASCII digit.
  static func isDigit(_ c: Character) -> Bool { c.isASCII && c.isNumber }

  /// Whether `t` is the comma.
  static func isComma(_ t: Token) -> Bool {
    if case .comma = t.kind { return true } else { return false }
  }

  /// The word around `s[i]`: the characters between blanks or commas.
  static func word(_ s: [Character], _ i: Int) -> String {
    let stop: (Character) -> Bool = { $0.isWhitespace || $0 == "," }
    var start = i
    while start > 0, !stop(s[start - 1]) { start -= 1 }
    var end = i
    while end < s.count, !stop(s[end]) { end += 1 }
    return String(s[start..<end])
  }

  /// The characters of `range`.
  static func text(_ s: [Character], _ range: Range<Int>) -> String { String(s[range]) }

  /// `s` without blanks at either end.
  static func trimmed(_ s: [Character]) -> String {
    String(s.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
  }
}
