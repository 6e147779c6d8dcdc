import LocCore

/// A wall time with its UTC offset, as RFC 3339 writes it to the second:
/// `2026-06-21T22:00:00+02:00` (timer deadlines in local time).
public struct LocalTimestamp: Hashable, Sendable, CustomStringConvertible {
  /// The wall time, whole seconds.
  public var local: LocalDateTime
  /// The UTC offset in seconds east, whole minutes.
  public var offsetSeconds: Int

  /// `local` at `offsetSeconds`, cut to what RFC 3339 `+HH:MM` and whole seconds can say.
  public init(_ local: LocalDateTime, offsetSeconds: Int) {
    var l = local
    l.microsecond = 0
    self.local = l
    let minutes = abs(offsetSeconds) / 60
    self.offsetSeconds = (offsetSeconds < 0 ? -minutes : minutes) * 60
  }

  /// Parses `YYYY-MM-DDTHH:MM:SS±HH:MM` (or `Z`).
  public init?(rfc3339 text: String) {
    let t = Array(text.utf8)
    guard t.count == 20 || t.count == 25, t[10] == UInt8(ascii: "T"), t[13] == UInt8(ascii: ":"),
      t[16] == UInt8(ascii: ":"),
      let date = CivilDate(iso: String(decoding: t[0..<10], as: UTF8.self)),
      let h = Self.digits(t[11..<13]), let m = Self.digits(t[14..<16]), let s = Self.digits(t[17..<19]),
      let local = LocalDateTime(date: date, hour: h, minute: m, second: s)
    else { return nil }
    if t.count == 20 {
      guard t[19] == UInt8(ascii: "Z") else { return nil }
      self.init(local, offsetSeconds: 0)
      return
    }
    guard t[19] == UInt8(ascii: "+") || t[19] == UInt8(ascii: "-"), t[22] == UInt8(ascii: ":"),
      let oh = Self.digits(t[20..<22]), let om = Self.digits(t[23..<25]), oh < 24, om < 60
    else { return nil }
    let offset = oh * 3600 + om * 60
    self.init(local, offsetSeconds: t[19] == UInt8(ascii: "-") ? -offset : offset)
  }

  /// The instant this wall time names.
  public var instant: Instant {
    Instant(microsecondsSinceEpoch: local.microsecondsSinceLocalEpoch - Int64(offsetSeconds) * 1_000_000)
  }

  public var description: String { local.rfc3339(offsetSeconds: offsetSeconds) }

  private static func digits(_ bytes: ArraySlice<UInt8>) -> Int? {
    var v = 0
    for b in bytes {
      guard (48...57).contains(b) else { return nil }
      v = v * 10 + Int(b - 48)
    }
    return v
  }
}

extension WireObject {
  /// An RFC 3339 local time with offset that may be null or missing.
  func optionalLocalTimestamp(_ key: String) throws(WireDecodingError) -> LocalTimestamp? {
    guard let s = try optionalString(key) else { return nil }
    guard let t = LocalTimestamp(rfc3339: s) else {
      throw error(key, "not a local time with offset such as 2026-06-21T22:00:00+02:00: \"\(s.prefix(64))\"")
    }
    return t
  }

  /// An RFC 3339 local time with offset.
  func localTimestamp(_ key: String) throws(WireDecodingError) -> LocalTimestamp {
    guard let t = try optionalLocalTimestamp(key) else { throw error(key, "missing") }
    return t
  }
}
