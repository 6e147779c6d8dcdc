import LocCore

/// `heading` event data (1.x, decision 0054), sent to the session that started heading
/// updates: the compass's heading in degrees clockwise from magnetic north (rounded to a
/// tenth), the true heading (null: locd ships no declination model), when it was measured
/// and the source (`compass:`).
public struct HeadingEvent: WireCodable {
  /// Degrees clockwise from magnetic north, 0 up to 360.
  public var magneticHeading: Double
  /// Degrees clockwise from true north; nil (null) without a declination model.
  public var trueHeading: Double?
  /// When the compass reported it.
  public var time: Instant
  /// The source's URI.
  public var source: String

  /// The wire form of a reading.
  public init(_ r: HeadingReading) {
    magneticHeading = WireFormat.round(r.magneticHeading, 1)
    trueHeading = r.trueHeading.map { WireFormat.round($0, 1) }
    time = WireFormat.truncate(r.time, 3)
    source = r.source
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    magneticHeading = try Self.heading(o.number("magneticHeading"), path.member("magneticHeading"))
    if let n = try o.optionalNumber("trueHeading") {
      trueHeading = try Self.heading(n, path.member("trueHeading"))
    } else {
      trueHeading = nil
    }
    time = try o.instant("time")
    source = try o.string("source")
  }

  private static func heading(_ n: Double, _ path: WirePath) throws(WireDecodingError) -> Double {
    // 360 is what 359.96 rounds to.
    guard n.isFinite, n >= 0, n <= 360 else {
      throw WireDecodingError(path, "expected a heading in degrees, 0 to 360, got \(n)")
    }
    return n
  }

  public var json: JSON {
    .object([
      "magneticHeading": .number(magneticHeading), "trueHeading": trueHeading.map { .number($0) } ?? .null,
      "time": WireFormat.time(time, 3), "source": .string(source),
    ])
  }
}
