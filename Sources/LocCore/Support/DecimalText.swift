/// A decimal number written in a text file, read strictly: an optional sign (`-` or `+`),
/// digits with an optional fraction (`59`, `59.9139`, `.5`, `5.`), an optional exponent
/// (`5e-05`, which a script's `str()` writes). That is the decimal form strtod(3) reads, which
/// geoclue reads /etc/geolocation with (g_ascii_strtod, refusing ERANGE); of the rest strtod
/// reads, hexadecimal (`0x3b` is 59), `inf`, `infinity` and `nan` are refused, and so is a
/// number too large for a double or too close to 0 for one (geoclue's ERANGE). Nothing
/// around it: the caller trims blanks and comments.
public enum DecimalText {
  /// What a word is.
  public enum Reading: Sendable, Hashable {
    /// A decimal number: the double nearest to it.
    case number(Double)
    /// Hexadecimal (`0x3b`, `-0X1p4`): a number to C, never a decimal one.
    case hexadecimal
    /// Decimal, but beyond what a double holds: its magnitude overflows (`1e400`) or is
    /// below the smallest normal double, 2.2e-308, without being 0 (`1e-400`, `1e-310`).
    case outOfRange
    /// Not a decimal number at all (`ten`, `nan`, `inf`, `59.9N`, `1,5`, empty).
    case notANumber
  }

  /// Reads `word`.
  public static func read(_ word: Substring) -> Reading {
    let bytes = Array(word.utf8)
    var i = 0
    func digits() -> Int {
      let start = i
      while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
      return i - start
    }
    if i < bytes.count, bytes[i] == 0x2D || bytes[i] == 0x2B { i += 1 }  // - +
    if i + 1 < bytes.count, bytes[i] == 0x30, bytes[i + 1] | 0x20 == 0x78 { return .hexadecimal }  // 0x 0X
    let whole = digits()
    var fraction = 0
    if i < bytes.count, bytes[i] == 0x2E {  // .
      i += 1
      fraction = digits()
    }
    guard whole + fraction > 0 else { return .notANumber }
    if i < bytes.count, bytes[i] | 0x20 == 0x65 {  // e E
      i += 1
      if i < bytes.count, bytes[i] == 0x2D || bytes[i] == 0x2B { i += 1 }
      guard digits() > 0 else { return .notANumber }
    }
    guard i == bytes.count, let value = Double(String(word)) else { return .notANumber }
    guard value.isFinite else { return .outOfRange }
    if value == 0 || abs(value) < Double.leastNormalMagnitude {
      // 0 written as 0 (any zeros, any exponent) is 0; anything else that reads as 0 or as a
      // subnormal is beyond a double's range, as strtod's ERANGE says.
      let mantissa = bytes.prefix { $0 | 0x20 != 0x65 }
      if mantissa.contains(where: { $0 >= 0x31 && $0 <= 0x39 }) { return .outOfRange }
    }
    return .number(value)
  }
}
