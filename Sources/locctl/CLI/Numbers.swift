/// Numbers as locctl prints them: a fixed number of decimals, rounded half away from zero,
/// never `13.600000000000001`.
enum Numbers {
  /// `value` with `digits` decimals.
  static func fixed(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9e15 else { return "\(value)" }
    let whole = Int64(scaled)
    let unit = Int64(scale)
    var text = value < 0 && whole != 0 ? "-" : ""
    text += String(whole / unit)
    if digits > 0 {
      let frac = String(whole % unit)
      text += "." + String(repeating: "0", count: digits - frac.count) + frac
    }
    return text
  }

  /// `value` with at most `digits` decimals and no trailing zeros: `0.9`, `12`, `-8.25`.
  static func short(_ value: Double, _ digits: Int = 6) -> String {
    var text = fixed(value, digits)
    guard text.contains(".") else { return text }
    while text.last == "0" { text.removeLast() }
    if text.last == "." { text.removeLast() }
    return text == "-0" ? "0" : text
  }
}
