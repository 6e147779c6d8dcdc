import LocCore

/// The position object (docs/PROTOCOL.md, "position"): where, how accurate, when and from
/// which source. Coordinates are full precision in events and `locate`, rounded to what the
/// accuracy justifies in `status`.
public struct PositionView: WireCodable {
  /// Where (`lat`, `lon`).
  public var coordinate: Coordinate
  /// Horizontal accuracy, to 0.1 m.
  public var accuracy: Meters?
  /// Altitude above mean sea level, to 0.1 m.
  public var altitude: Meters?
  /// The fix's UTC time (for a manual location: when it was set), to the millisecond.
  public var time: Instant
  /// A source URI, `manual` or `state-file`.
  public var source: String
  /// The name given with `set-location` (the member is absent otherwise).
  public var name: String?

  /// A view from its parts, as they are on the wire.
  public init(
    coordinate: Coordinate, accuracy: Meters?, altitude: Meters?, time: Instant, source: String,
    name: String? = nil
  ) {
    self.coordinate = coordinate
    self.accuracy = accuracy
    self.altitude = altitude
    self.time = time
    self.source = source
    self.name = name
  }

  /// The wire form of `p`; `rounded` keeps only the decimals its accuracy justifies, else 7.
  public init(_ p: Position, rounded: Bool) {
    let decimals = rounded ? WireFormat.decimalsFor(accuracy: p.accuracy) : 7
    coordinate =
      Coordinate(
        lat: WireFormat.round(p.coordinate.latitude.value, decimals),
        lon: WireFormat.round(p.coordinate.longitude.value, decimals)) ?? p.coordinate
    accuracy = p.accuracy.map(WireFormat.radius)
    altitude = p.altitude.map(WireFormat.tenths)
    time = WireFormat.truncate(p.time, 3)
    source = p.source
    name = p.name
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    try self.init(o)
  }

  init(_ o: WireObject) throws(WireDecodingError) {
    coordinate = try o.coordinate()
    accuracy = try o.optionalMeters("accuracy")
    altitude = try o.optionalMeters("altitude")
    time = try o.instant("time")
    source = try o.string("source")
    name = try o.optionalString("name")
  }

  public var json: JSON { writtenJSON }

  /// The members, without the braces (a resolved position adds its own after them).
  func writeMembers(to s: inout some JSONSink) {
    s.member("lat", .number(coordinate.latitude.value))
    s.member("lon", .number(coordinate.longitude.value))
    s.member("accuracy", WireFormat.meters(accuracy))
    s.member("altitude", WireFormat.meters(altitude))
    s.member("time", WireFormat.time(time, 3))
    s.member("source", .string(source))
    if let name { s.member("name", .string(name)) }
  }
}

/// The resolver's answer (the position object with `tier`, `age`, `reason`, `remedy`):
/// always there; in degraded mode (`tier` none) without a position but with the reason and
/// what to do.
public struct ResolvedPositionView: WireCodable {
  /// Which rung of the fallback ladder answered.
  public var tier: PositionTier
  /// The position; nil only for tier `none` (`lat` and `lon` are null then).
  public var position: PositionView?
  /// Time since locd received it, to 0.1 s.
  public var age: Duration?
  /// Why it is not a fresh fix.
  public var reason: String?
  /// In degraded mode: what to do.
  public var remedy: String?
  /// What the position came from (open: `gnss`, `wifi`, `ip`, `static`, `manual`,
  /// `cached`); nil with tier `none`, and from a daemon before protocol 1.8.
  public var provenance: OpenEnum<PositionProvenance>?

  /// A view from its parts, as they are on the wire.
  public init(
    tier: PositionTier, position: PositionView?, age: Duration?, reason: String?, remedy: String?,
    provenance: OpenEnum<PositionProvenance>? = nil
  ) {
    self.provenance = provenance
    self.tier = tier
    self.position = position
    self.age = age
    self.reason = reason
    self.remedy = remedy
  }

  /// The wire form of `r`; `rounded` as for `PositionView`.
  public init(_ r: ResolvedPosition, rounded: Bool) {
    tier = r.tier
    position = r.position.map { PositionView($0, rounded: rounded) }
    age = r.age.map { WireFormat.seconds($0, 1) }
    reason = r.reason
    remedy = r.remedy
    provenance = r.provenance.map { .known($0) }
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    tier = try o.word("tier")
    position = o.value("lat") == nil ? nil : try PositionView(o)
    age = try o.optionalSeconds("age")
    reason = try o.optionalString("reason")
    remedy = try o.optionalString("remedy")
    provenance = try o.optionalOpen("provenance")
  }

  public var json: JSON { writtenJSON }
}

extension PositionView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    writeMembers(to: &s)
    s.closeObject()
  }
}

extension ResolvedPositionView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    if let position {
      position.writeMembers(to: &s)
    } else {
      s.member("lat", .null)
      s.member("lon", .null)
      s.member("accuracy", .null)
    }
    s.member("tier", .string(tier.rawValue))
    s.member("provenance", .optional(provenance?.word))
    s.member("age", WireFormat.seconds(age))
    s.member("reason", .optional(reason))
    s.member("remedy", .optional(remedy))
    s.closeObject()
  }
}
