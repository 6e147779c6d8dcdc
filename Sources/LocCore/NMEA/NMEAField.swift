/// One comma-separated field of an NMEA sentence, viewed in place (no copy). Its parsers
/// return `nil` for an empty field and throw for a malformed or out-of-range one: missing is
/// never zero. Numbers are parsed by hand: no `String`, no allocation.
public struct NMEAField {
  /// The field's bytes (without the commas); valid only while the line is.
  public let bytes: UnsafeRawBufferPointer
  /// Field number, 1 for the first field after the address.
  public let number: Int

  /// A field over `bytes`.
  @inlinable public init(_ bytes: UnsafeRawBufferPointer, number: Int) {
    self.bytes = bytes
    self.number = number
  }

  /// Whether the field is empty.
  @inlinable public var isEmpty: Bool { bytes.isEmpty }

  @inlinable func fail(_ reason: NMEAFieldError.Reason) -> NMEAFieldError {
    NMEAFieldError(field: number, reason: reason)
  }

  /// Powers of ten that a `Double` holds exactly (10^0 ... 10^22).
  @usableFromInline static let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
  ]

  /// The single character of a one-letter field (status, hemisphere, unit).
  @inlinable public func character() throws(NMEAFieldError) -> UInt8? {
    if bytes.isEmpty { return nil }
    guard bytes.count == 1 else { throw fail(.malformed) }
    return bytes[0]
  }

  /// A non-negative integer (`07`, `12`); more than 9 digits is malformed.
  @inlinable public func unsignedInteger() throws(NMEAFieldError) -> Int? {
    let n = bytes.count
    if n == 0 { return nil }
    guard n <= 9 else { throw fail(.malformed) }
    var v = 0
    for i in 0..<n {
      let d = bytes[i] &- 0x30
      guard d < 10 else { throw fail(.malformed) }
      v = v &* 10 &+ Int(d)
    }
    return v
  }

  /// A decimal number: optional sign, digits, optional fraction (`-12.50`, `.5`, `3.`).
  /// Up to 19 significant digits are kept and fraction digits past the 22nd dropped (no
  /// overflow, far below NMEA's resolution); more than 19 integer digits are out of range.
  /// Exponents are not NMEA.
  @inlinable public func decimal() throws(NMEAFieldError) -> Double? {
    let n = bytes.count
    if n == 0 { return nil }
    var i = 0
    var negative = false
    let first = bytes[0]
    if first == 0x2D || first == 0x2B {  // - +
      negative = first == 0x2D
      i = 1
    }
    var mantissa: UInt64 = 0
    var digits = 0  // significant digits in `mantissa`
    var fractionDigits = 0  // of them, after the point (with leading zeros)
    var seenPoint = false
    var anyDigit = false
    while i < n {
      let c = bytes[i]
      let d = c &- 0x30
      if d < 10 {
        anyDigit = true
        if !seenPoint {
          guard digits < 19 else { throw fail(.outOfRange) }
          mantissa = mantissa &* 10 &+ UInt64(d)
          if mantissa != 0 { digits += 1 }
        } else if digits < 19 && fractionDigits < 22 {
          mantissa = mantissa &* 10 &+ UInt64(d)
          if mantissa != 0 { digits += 1 }
          fractionDigits += 1
        }
      } else if c == 0x2E, !seenPoint {  // .
        seenPoint = true
      } else {
        throw fail(.malformed)
      }
      i += 1
    }
    guard anyDigit else { throw fail(.malformed) }
    // Both operands are exact doubles (mantissa < 2^53 for up to 15 digits), so the quotient is
    // correctly rounded; longer mantissas round once more, far below NMEA's resolution.
    let value = Double(mantissa) / NMEAField.exactPowersOfTen[fractionDigits]
    return negative ? -value : value
  }

  /// A decimal that must not be negative (speeds, DOPs, sigmas).
  @inlinable public func nonNegativeDecimal() throws(NMEAFieldError) -> Double? {
    guard let v = try decimal() else { return nil }
    guard v >= 0 else { throw fail(.outOfRange) }
    return v
  }

  /// A UTC time `hhmmss` with an optional fraction (`hhmmss.sss`); digits past microseconds
  /// are dropped. Hours over 23, minutes or seconds over 59 are out of range.
  @inlinable public func timeOfDay() throws(NMEAFieldError) -> TimeOfDay? {
    let n = bytes.count
    if n == 0 { return nil }
    guard n >= 6 else { throw fail(.malformed) }
    var parts = (0, 0, 0)
    for k in 0..<3 {
      let a = bytes[2 * k] &- 0x30
      let b = bytes[2 * k + 1] &- 0x30
      guard a < 10, b < 10 else { throw fail(.malformed) }
      let v = Int(a) * 10 + Int(b)
      switch k {
      case 0: parts.0 = v
      case 1: parts.1 = v
      default: parts.2 = v
      }
    }
    var micro = 0
    if n > 6 {
      guard bytes[6] == 0x2E else { throw fail(.malformed) }
      var scale = 100_000
      var i = 7
      while i < n {
        let d = bytes[i] &- 0x30
        guard d < 10 else { throw fail(.malformed) }
        micro += Int(d) * scale
        scale /= 10
        i += 1
      }
    }
    guard let t = TimeOfDay(hour: parts.0, minute: parts.1, second: parts.2, microsecond: micro) else {
      throw fail(.outOfRange)
    }
    return t
  }

  /// A date `ddmmyy` (RMC). Two-digit years pivot at 1980, the GPS epoch: 80...99 are 19xx,
  /// 00...79 are 20xx. A day that does not exist is out of range.
  @inlinable public func date() throws(NMEAFieldError) -> CivilDate? {
    let n = bytes.count
    if n == 0 { return nil }
    guard n == 6 else { throw fail(.malformed) }
    var v = (0, 0, 0)
    for k in 0..<3 {
      let a = bytes[2 * k] &- 0x30
      let b = bytes[2 * k + 1] &- 0x30
      guard a < 10, b < 10 else { throw fail(.malformed) }
      let x = Int(a) * 10 + Int(b)
      switch k {
      case 0: v.0 = x
      case 1: v.1 = x
      default: v.2 = x
      }
    }
    let year = v.2 >= 80 ? 1900 + v.2 : 2000 + v.2
    guard let d = CivilDate(year: year, month: v.1, day: v.0) else { throw fail(.outOfRange) }
    return d
  }

  /// An angle `dddmm.mmmm` (degrees and decimal minutes) with its hemisphere field
  /// (`N`/`S` or `E`/`W`). `limit` is 90 for latitude, 180 for longitude. Both fields empty
  /// is `nil`; one without the other, minutes of 60 or more, or an angle past `limit` throw.
  @inlinable public func angle(hemisphere: NMEAField, positive: UInt8, negative: UInt8, limit: Int)
    throws(NMEAFieldError) -> Double?
  {
    let n = bytes.count
    if n == 0 {
      guard hemisphere.isEmpty else { throw fail(.missing) }
      return nil
    }
    guard hemisphere.bytes.count == 1 else {
      throw hemisphere.fail(hemisphere.isEmpty ? .missing : .malformed)
    }
    let h = hemisphere.bytes[0]
    guard h == positive || h == negative else { throw hemisphere.fail(.malformed) }
    var whole = 0
    var i = 0
    while i < n {
      let d = bytes[i] &- 0x30
      if d >= 10 { break }
      guard i < 6 else { throw fail(.outOfRange) }
      whole = whole * 10 + Int(d)
      i += 1
    }
    guard i >= 3 else { throw fail(.malformed) }  // at least d + mm
    var fraction: UInt64 = 0
    var fractionDigits = 0
    if i < n {
      guard bytes[i] == 0x2E else { throw fail(.malformed) }
      i += 1
      while i < n {
        let d = bytes[i] &- 0x30
        guard d < 10 else { throw fail(.malformed) }
        if fractionDigits < 15 {
          fraction = fraction * 10 + UInt64(d)
          fractionDigits += 1
        }
        i += 1
      }
    }
    let degrees = whole / 100
    let wholeMinutes = whole % 100
    guard wholeMinutes < 60, degrees <= limit else { throw fail(.outOfRange) }
    let minutes = Double(wholeMinutes) + Double(fraction) / NMEAField.exactPowersOfTen[fractionDigits]
    let value = Double(degrees) + minutes / 60
    guard value <= Double(limit) else { throw fail(.outOfRange) }
    return h == negative ? -value : value
  }
}
