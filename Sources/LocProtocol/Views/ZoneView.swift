import LocCore

/// The zone object of `timezone-changed` events: `id`, `origin`, `offset` (seconds east),
/// `abbreviation`.
public struct ZoneView: WireCodable {
  /// IANA zone name, e.g. "Europe/Oslo".
  public var id: String
  /// How it was chosen; newer minor versions may add ways.
  public var origin: OpenEnum<ZoneReport.Origin>
  /// UTC offset now, seconds east, if the zone's rules are known.
  public var offset: Int?
  /// Abbreviation now, e.g. "CET", if known.
  public var abbreviation: String?

  /// A view from its parts, as they are on the wire.
  public init(id: String, origin: OpenEnum<ZoneReport.Origin>, offset: Int?, abbreviation: String?) {
    self.id = id
    self.origin = origin
    self.offset = offset
    self.abbreviation = abbreviation
  }

  /// The wire form of `z`.
  public init(_ z: ZoneReport) {
    self.init(id: z.id, origin: .known(z.origin), offset: z.offsetSeconds, abbreviation: z.abbreviation)
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    try self.init(WireObject(json, path: path))
  }

  init(_ o: WireObject) throws(WireDecodingError) {
    id = try o.string("id")
    origin = try o.open("origin")
    offset = try o.optionalInt("offset")
    abbreviation = try o.optionalString("abbreviation")
  }

  /// The members, without the braces (the zone in status adds its own after them).
  func writeMembers(to s: inout some JSONSink) {
    s.member("id", .string(id))
    s.member("origin", .string(origin.word))
    s.member("offset", .optional(offset))
    s.member("abbreviation", .optional(abbreviation))
  }

  public var json: JSON { writtenJSON }
}

/// The zone in `status` (`timezone`): the zone object plus why this zone (`reason`) and how
/// far the nearest zone border is (`borderDistance`, metres, when under 10 km).
public struct ZoneStatusView: WireCodable {
  /// The zone.
  public var zone: ZoneView
  /// Why this zone, in words, if there is more to say.
  public var reason: String?
  /// The distance to the nearest zone border, to the metre, when it is close.
  public var borderDistance: Meters?

  /// A view from its parts, as they are on the wire.
  public init(zone: ZoneView, reason: String?, borderDistance: Meters?) {
    self.zone = zone
    self.reason = reason
    self.borderDistance = borderDistance
  }

  /// The wire form of `z`.
  public init(_ z: ZoneReport) {
    zone = ZoneView(z)
    reason = z.reason
    borderDistance = z.borderDistance.map { Meters($0.value.rounded()) }
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    zone = try ZoneView(o)
    reason = try o.optionalString("reason")
    borderDistance = try o.optionalMeters("borderDistance")
  }

  public var json: JSON { writtenJSON }
}

extension ZoneView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    writeMembers(to: &s)
    s.closeObject()
  }
}

extension ZoneStatusView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    zone.writeMembers(to: &s)
    s.member("reason", .optional(reason))
    s.member("borderDistance", WireFormat.meters(borderDistance))
    s.closeObject()
  }
}
