import LocCore

/// The wire's precision: how many decimals each kind of number keeps and how many fraction
/// digits each time has (docs/PROTOCOL.md). The conversions from the core's reports apply
/// it, so a view holds exactly what its JSON says and decodes back equal.
public enum WireFormat {
  /// Decimal places so that one unit of the last place is no larger than the accuracy
  /// (one degree of latitude is 111,320 m); 4 places (11 m) when accuracy is unknown.
  public static func decimalsFor(accuracy: Meters?) -> Int {
    guard let a = accuracy?.value, a > 0, a.isFinite else { return 4 }
    return max(0, min(6, Int(Maths.log10(111_320 / a).rounded(.up))))
  }

  /// `v` rounded half away from zero to `decimals` places.
  public static func round(_ v: Double, _ decimals: Int) -> Double {
    let scale = Maths.pow(10, Double(decimals))
    return (v * scale).rounded() / scale
  }

  /// Metres to a tenth (accuracies, altitudes, distances).
  public static func tenths(_ m: Meters) -> Meters { Meters(round(m.value, 1)) }

  /// An accuracy radius to a tenth, a positive one never written as 0: below 0.05 m it is
  /// 0.1 m, the wire's smallest step. A radius of 0 would claim a place known exactly (an
  /// RTK fix's 1 cm floor, decision 0059, is not that); rounding it up never claims more.
  public static func radius(_ m: Meters) -> Meters {
    m.value > 0 ? Meters(max(round(m.value, 1), 0.1)) : tenths(m)
  }

  /// A duration in seconds rounded to `decimals` places.
  public static func seconds(_ d: Duration, _ decimals: Int) -> Duration {
    .seconds(round(d.seconds, decimals))
  }

  /// `t` cut to `digits` fraction digits, as `Instant.iso8601(fractionDigits:)` writes it.
  public static func truncate(_ t: Instant, _ digits: Int) -> Instant {
    var unit: Int64 = 1
    for _ in 0..<(6 - min(6, max(0, digits))) { unit *= 10 }
    let us = t.microsecondsSinceEpoch
    let floored = us >= 0 ? us / unit * unit : -((-us + unit - 1) / unit) * unit
    return Instant(microsecondsSinceEpoch: floored)
  }

  /// `t` at `digits` fraction digits, as a JSON string.
  public static func time(_ t: Instant, _ digits: Int) -> JSON { .string(t.iso8601(fractionDigits: digits)) }

  /// `t` at `digits` fraction digits, or null.
  public static func time(_ t: Instant?, _ digits: Int) -> JSON {
    t.map { .string($0.iso8601(fractionDigits: digits)) } ?? .null
  }

  /// Metres as a number, or null.
  public static func meters(_ m: Meters?) -> JSON { m.map { .number($0.value) } ?? .null }

  /// A duration as seconds, or null.
  public static func seconds(_ d: Duration?) -> JSON { d.map { .number($0.seconds) } ?? .null }

  /// Named counters as one object, in order.
  public static func counters(_ list: [Counter]) -> JSON {
    var o = JSONObject()
    for c in list { o[c.name] = .int(c.value) }
    return .object(o)
  }
}
