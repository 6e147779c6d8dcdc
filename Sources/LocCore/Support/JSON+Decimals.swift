extension JSON {
  /// Appends `value` rounded half away from zero to `decimals` places (0...6), exactly as
  /// `JSON.number(r).write(to:)` writes that rounded double r = (value × 10^d).rounded() / 10^d
  /// (the wire's `WireFormat.round`): `14.2`, `0.013`, `-3`. The text is made from the digits of
  /// the rounded integer, without the double's shortest-digits search: the decimal k / 10^d is
  /// the shortest text that reads back as r, because any shorter decimal lies at least 10^-d
  /// away while r is within a fraction of its unit in the last place (|k| < 10^12). Larger
  /// values, those below 10^-4 (written with an exponent), NaN and infinities take the general
  /// path.
  public static func writeNumber(_ value: Double, decimals: Int, to out: inout [UInt8]) {
    precondition((0...6).contains(decimals), "decimals out of range")
    let scale = exactPowersOfTen[decimals]
    let scaled = (value * scale).rounded()
    // Below 1e-4 the double's text takes an exponent (`1e-05`): the general path.
    guard abs(scaled) < 1e12, scaled == 0 || abs(scaled) >= scale * 1e-4 else {
      JSON.number(scaled / scale).write(to: &out)
      return
    }
    var k = Int64(scaled)
    if k < 0 {
      out.append(UInt8(ascii: "-"))
      k = -k
    }
    let unit = Int64(scale)
    writeDigits(k / unit, width: 1, to: &out)
    var fraction = k % unit
    guard fraction != 0 else { return }
    var width = decimals
    while fraction % 10 == 0 {
      fraction /= 10
      width -= 1
    }
    out.append(UInt8(ascii: "."))
    writeDigits(fraction, width: width, to: &out)
  }

  /// Appends an integer as `JSON.int(value)` writes it (|value| < 2^53).
  public static func writeInteger(_ value: Int, to out: inout [UInt8]) {
    guard abs(value) < 9_007_199_254_740_992 else {
      JSON.int(value).write(to: &out)
      return
    }
    if value < 0 { out.append(UInt8(ascii: "-")) }
    writeDigits(Int64(abs(value)), width: 1, to: &out)
  }

  /// Appends `value` (≥ 0) in decimal, zero-padded to at least `width` digits.
  @inline(__always)
  static func writeDigits(_ value: Int64, width: Int, to out: inout [UInt8]) {
    var divisor: Int64 = 1
    var n = 1
    while n < width || divisor <= value / 10 {
      divisor *= 10
      n += 1
    }
    var v = value
    while divisor > 0 {
      out.append(UInt8(truncatingIfNeeded: 48 + v / divisor))
      v %= divisor
      divisor /= 10
    }
  }
}
