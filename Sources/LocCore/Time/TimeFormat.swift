/// How locd writes instants, wall times, UTC offsets, ages, durations and distances, for
/// people and for the wire: every such format lives here, once.
public enum TimeFormat {
  /// `value` in decimal, zero-padded to `width` digits (`7` → `07`; a minus sign goes first).
  public static func padded(_ value: Int, width: Int) -> String {
    let s = String(value < 0 ? -value : value)
    let padded = s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    return value < 0 ? "-" + padded : padded
  }

  /// `HH:MM`, or `HH:MM:SS` with `seconds`, for a second of the day.
  public static func clock(secondOfDay s: Int, seconds: Bool = false) -> String {
    let hm = "\(padded(s / 3600, width: 2)):\(padded(s / 60 % 60, width: 2))"
    return seconds ? hm + ":\(padded(s % 60, width: 2))" : hm
  }

  /// `+02:00`, `-03:30`: a UTC offset in seconds east, as RFC 3339 writes it.
  public static func utcOffset(seconds: Int) -> String {
    let a = abs(seconds)
    return "\(seconds < 0 ? "-" : "+")\(padded(a / 3600, width: 2)):\(padded(a / 60 % 60, width: 2))"
  }

  /// A span for people: `0.5 s`, `45 s`, `15 min`, `2 h`, `1 h 30 min`, `3 d`.
  public static func duration(_ d: Duration) -> String {
    let seconds = d.seconds
    if seconds < 10, seconds != seconds.rounded() { return "\((seconds * 10).rounded() / 10) s" }
    let s = Int(seconds.rounded())
    if s < 120 && s % 60 != 0 { return "\(s) s" }
    if s < 3600 { return "\(s / 60) min" }
    if s < 172_800 { return s % 3600 / 60 == 0 ? "\(s / 3600) h" : "\(s / 3600) h \(s / 60 % 60) min" }
    return "\(s / 86_400) d"
  }

  /// A coarse age that changes rarely (systemd's STATUS= line): `<1 min`, `5 min`, `3 h`,
  /// `2 d`; `unknown` for nil.
  public static func coarseAge(_ age: Duration?) -> String {
    guard let s = age?.seconds else { return "unknown" }
    if s < 60 { return "<1 min" }
    if s < 3600 { return "\(Int(s / 60)) min" }
    if s < 172_800 { return "\(Int(s / 3600)) h" }
    return "\(Int(s / 86_400)) d"
  }

  /// A distance for people: `50 m`, `1.5 km`.
  public static func distance(_ m: Meters) -> String {
    m.value >= 1000 ? "\((m.value / 100).rounded() / 10) km" : "\(Int(m.value.rounded())) m"
  }

  /// Appends `value` (0 ≤ value < 10^width) as exactly `width` decimal digits.
  @inline(__always)
  static func put(_ value: Int, _ width: Int, _ out: inout [UInt8]) {
    var divisor = 1
    for _ in 1..<width { divisor *= 10 }
    var v = value
    while divisor > 0 {
      out.append(UInt8(truncatingIfNeeded: 48 + v / divisor % 10))
      v %= divisor
      divisor /= 10
    }
  }
}

extension Instant {
  /// ISO-8601 in UTC: `2026-06-21T01:23:45Z`, or with `fractionDigits` (1...6) `…:45.123Z`.
  public func iso8601(fractionDigits: Int = 0) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(27)
    writeISO8601(fractionDigits: fractionDigits, to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// Appends `iso8601(fractionDigits:)`'s text to `out`: the commands that print a line per
  /// input (`locctl sun --days`, `locctl decode`) write it straight into their output buffer.
  public func writeISO8601(fractionDigits: Int = 0, to out: inout [UInt8]) {
    let us = microsecondsSinceEpoch
    let days = us >= 0 ? us / 86_400_000_000 : -((-us + 86_399_999_999) / 86_400_000_000)
    let date = CivilDate(daysSinceEpoch: Int(days))
    let ofDay = us - days * 86_400_000_000
    let secs = Int(ofDay / 1_000_000)
    guard (0...9999).contains(date.year) else {
      // Outside four-digit years, the general (rare) path.
      let text =
        "\(date)T\(TimeFormat.padded(secs / 3600, width: 2)):\(TimeFormat.padded(secs / 60 % 60, width: 2)):\(TimeFormat.padded(secs % 60, width: 2))Z"
      out.append(contentsOf: text.utf8)
      return
    }
    // Digits written straight into the buffer: this runs for every pushed event.
    TimeFormat.put(date.year, 4, &out)
    out.append(0x2D)
    TimeFormat.put(date.month, 2, &out)
    out.append(0x2D)
    TimeFormat.put(date.day, 2, &out)
    out.append(0x54)
    TimeFormat.put(secs / 3600, 2, &out)
    out.append(0x3A)
    TimeFormat.put(secs / 60 % 60, 2, &out)
    out.append(0x3A)
    TimeFormat.put(secs % 60, 2, &out)
    if fractionDigits > 0 {
      let digits = min(fractionDigits, 6)
      var frac = Int(ofDay % 1_000_000)
      for _ in 0..<(6 - digits) { frac /= 10 }
      out.append(0x2E)
      TimeFormat.put(frac, digits, &out)
    }
    out.append(0x5A)
  }

  /// Parses ISO-8601 UTC (`YYYY-MM-DDTHH:MM:SS[.fff…]Z`, also with `+00:00`).
  public init?(iso8601 text: some StringProtocol) {
    // Over the string's own bytes where it keeps them together (a native string does): no
    // copy, no substrings.
    let parsed =
      text.utf8.withContiguousStorageIfAvailable { Instant(iso8601Bytes: $0) }
      ?? Array(text.utf8).withUnsafeBufferPointer { Instant(iso8601Bytes: $0) }
    guard let parsed else { return nil }
    self = parsed
  }

  init?(iso8601Bytes t: UnsafeBufferPointer<UInt8>) {
    guard t.count >= 20, t[10] == UInt8(ascii: "T") || t[10] == UInt8(ascii: " "),
      let date = CivilDate(isoBytes: UnsafeBufferPointer(rebasing: t[0..<10])),
      t[13] == UInt8(ascii: ":"), t[16] == UInt8(ascii: ":"),
      let h = CivilDate.decimal(t, 11, 13), let m = CivilDate.decimal(t, 14, 16),
      let s = CivilDate.decimal(t, 17, 19), h < 24, m < 60, s < 61
    else { return nil }
    var i = 19
    var micro = 0
    if i < t.count, t[i] == UInt8(ascii: ".") {
      i += 1
      var scale = 100_000
      let start = i
      while i < t.count, t[i] &- 48 < 10 {
        micro += Int(t[i] - 48) * scale
        scale /= 10
        i += 1
      }
      guard i > start else { return nil }
    }
    let rest = t.count - i
    let utc =
      (rest == 1 && t[i] == UInt8(ascii: "Z"))
      || (rest == 6 && t[i] == UInt8(ascii: "+") && t[i + 1] == 48 && t[i + 2] == 48
        && t[i + 3] == UInt8(ascii: ":") && t[i + 4] == 48 && t[i + 5] == 48)
    guard utc else { return nil }
    self.init(utc: date, hour: h, minute: m, second: s, microsecond: micro)
  }
}

extension LocalDateTime {
  /// `2026-06-21T21:22:03+02:00`: this wall time with a UTC offset (RFC 3339), whole seconds.
  public func rfc3339(offsetSeconds: Int) -> String {
    var l = self
    l.microsecond = 0
    return "\(l)\(TimeFormat.utcOffset(seconds: offsetSeconds))"
  }
}
