import LocCore

/// The `nmeaOut` member of `status` (since 1.8; present only while `[NMEAOut] Enable=yes`):
/// the NMEA pseudo-terminal (docs/NMEAOUT.md).
public struct NMEAOutStatusView: WireCodable {
  /// The stable link.
  public var link: String
  /// The pty it points at (null: it could not be made).
  public var pty: String?
  /// Whether a program has it open.
  public var reading: Bool
  /// Its counters.
  public var counters: [Counter]

  /// The wire form of `r`.
  public init(_ r: NMEAOutReport) {
    link = r.link
    pty = r.pty
    reading = r.reading
    counters = r.counters
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    link = try o.string("link")
    pty = try o.optionalString("pty")
    reading = try o.bool("reading")
    counters = try o.counters("counters")
  }

  public var json: JSON {
    .object([
      "link": .string(link), "pty": .optional(pty), "reading": .bool(reading),
      "counters": WireFormat.counters(counters),
    ])
  }
}
