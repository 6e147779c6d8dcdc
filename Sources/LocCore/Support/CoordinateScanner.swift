/// Coordinates read straight from bytes, for `locctl tz -`'s millions of lines: `LAT,LON` or
/// `LAT LON` as two decimal numbers (an optional sign, digits with at most one point; no
/// exponent, no `nan` or `inf`), separated by a comma, blanks or both, with optional blanks
/// and a carriage return around them. No String is made.
///
/// A number of at most 15 digits (its mantissa below 2^53) and at most 22 decimals is
/// `mantissa / 10^decimals`: one correctly rounded division of two exact doubles, so it is
/// the double strtod(3) reads. Longer numbers go through `Double(String)`.
public enum CoordinateScanner {
  /// 10^0 ... 10^22, each exact in a Double.
  @usableFromInline static let powers: [Double] = (0...22).map { n in (0..<n).reduce(1.0) { x, _ in x * 10 } }

  /// The coordinate of the bytes `p[start..<stop]` (one line without its newline), or nil
  /// when they are not one (wrong shape, or out of range).
  @inlinable
  public static func coordinate(_ p: UnsafePointer<UInt8>, _ start: Int, _ stop: Int) -> Coordinate? {
    guard let (lat, lon) = numbers(p, start, stop) else { return nil }
    return Coordinate(lat: lat, lon: lon)
  }

  /// The two numbers of a line, before any range check.
  @inlinable
  public static func numbers(_ p: UnsafePointer<UInt8>, _ start: Int, _ stop: Int) -> (Double, Double)? {
    var i = skipBlanks(p, start, stop)
    guard let (lat, afterLat) = number(p, i, stop) else { return nil }
    i = skipBlanks(p, afterLat, stop)
    var separated = i > afterLat
    if i < stop, p[i] == 0x2C {
      separated = true
      i = skipBlanks(p, i + 1, stop)
    }
    guard separated, let (lon, afterLon) = number(p, i, stop) else { return nil }
    i = skipBlanks(p, afterLon, stop)
    if i < stop, p[i] == 0x0D { i += 1 }
    guard i == stop else { return nil }
    return (lat, lon)
  }

  /// The index of the first byte at or after `i` that is not a space or a tab.
  @inlinable
  static func skipBlanks(_ p: UnsafePointer<UInt8>, _ i: Int, _ stop: Int) -> Int {
    var i = i
    while i < stop, p[i] == 0x20 || p[i] == 0x09 { i += 1 }
    return i
  }

  /// A number starting at `start`, and the index after it.
  @inlinable
  static func number(_ p: UnsafePointer<UInt8>, _ start: Int, _ stop: Int) -> (Double, Int)? {
    var i = start
    var negative = false
    if i < stop, p[i] == 0x2D || p[i] == 0x2B {
      negative = p[i] == 0x2D
      i += 1
    }
    var mantissa: UInt64 = 0
    var digits = 0
    var decimals = 0
    var point = false
    while i < stop {
      let d = p[i] &- 0x30
      if d < 10 {
        if digits < 19 { mantissa = mantissa &* 10 &+ UInt64(d) }
        digits += 1
        if point { decimals += 1 }
      } else if p[i] == 0x2E, !point {
        point = true
      } else {
        break
      }
      i += 1
    }
    guard digits > 0 else { return nil }
    if digits <= 15, decimals <= 22 {
      let value = Double(mantissa) / powerOfTen(decimals)
      return (negative ? -value : value, i)
    }
    return slow(p, start, i).map { ($0, i) }
  }

  /// 10^n for 0 ≤ n ≤ 22, exact.
  @inlinable
  static func powerOfTen(_ n: Int) -> Double {
    switch n {
    case 0: return 1
    case 1: return 10
    case 2: return 100
    case 3: return 1000
    case 4: return 10000
    case 5: return 100_000
    case 6: return 1_000_000
    case 7: return 10_000_000
    case 8: return 100_000_000
    default: return powers[n]
    }
  }

  /// A number of more digits than a double holds exactly, read by the standard library.
  @usableFromInline
  static func slow(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
    Double(String(decoding: UnsafeBufferPointer(start: p + start, count: end - start), as: UTF8.self))
  }
}
