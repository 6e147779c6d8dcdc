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

/// The `heading` member of `status` (1.9): the sessions that started heading updates, those
/// of them that may have heading now, whether the compass is claimed, and the counters.
public struct HeadingStatusView: WireCodable {
  /// Sessions that started heading updates.
  public var sessions: Int
  /// Those that may have heading now (read access; apps authorized and in use).
  public var eligible: Int
  /// Whether locd asks the compass sources to hold the compass.
  public var claimed: Bool
  /// Named counters in the daemon's order.
  public var counters: [Counter]

  /// The wire form of `r`.
  public init(_ r: HeadingReport) {
    sessions = r.sessions
    eligible = r.eligible
    claimed = r.claimed
    counters = r.counterList
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    sessions = try o.int("sessions")
    eligible = try o.int("eligible")
    claimed = try o.bool("claimed")
    counters = try o.counters("counters")
  }

  public var json: JSON {
    .object([
      "sessions": .int(sessions), "eligible": .int(eligible), "claimed": .bool(claimed),
      "counters": WireFormat.counters(counters),
    ])
  }
}
