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
  /// The system time zone as locd sets it, while `[TimeZone] SetSystemTimeZone=yes` (1.10;
  /// the member is absent otherwise).
  public var system: SystemZoneView?

  /// A view from its parts, as they are on the wire.
  public init(zone: ZoneView, reason: String?, borderDistance: Meters?, system: SystemZoneView? = nil) {
    self.zone = zone
    self.reason = reason
    self.borderDistance = borderDistance
    self.system = system
  }

  /// The wire form of `z`, with the system zone `system` as locd sets it.
  public init(_ z: ZoneReport, system: SystemZoneReport? = nil) {
    zone = ZoneView(z)
    reason = z.reason
    borderDistance = z.borderDistance.map { Meters($0.value.rounded()) }
    self.system = system.map(SystemZoneView.init)
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    zone = try ZoneView(o)
    reason = try o.optionalString("reason")
    borderDistance = try o.optionalMeters("borderDistance")
    system = try o.optionalDecode("system")
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
    if let system { s.member("system", system) }
    s.closeObject()
  }
}

/// `timezone.system` in `status` (1.10), while `[TimeZone] SetSystemTimeZone=yes`: the system's
/// zone as locd knows it (`zone`), the zone it asked timedated for that is not set yet
/// (`wanted`), when it last set one (`setAt`), and while the call fails, why (`problem`, in
/// timedated's or polkit's words), since when (`since`) and when it asks again (`retryAt`).
public struct SystemZoneView: WireCodable {
  /// The system's zone: as found at start, or as locd last set it.
  public var zone: String
  /// The zone asked for and not set yet.
  public var wanted: String?
  /// When locd last set the system zone, to the second.
  public var setAt: Instant?
  /// Why the call for `wanted` failed, while it does.
  public var problem: String?
  /// Since when it fails, to the second.
  public var since: Instant?
  /// When it is asked for again, to the second.
  public var retryAt: Instant?

  /// The wire form of `r`.
  public init(_ r: SystemZoneReport) {
    zone = r.zone
    wanted = r.wanted
    setAt = r.setAt.map { WireFormat.truncate($0, 0) }
    problem = r.problem
    since = r.failingSince.map { WireFormat.truncate($0, 0) }
    retryAt = r.retryAt.map { WireFormat.truncate($0, 0) }
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    zone = try o.string("zone")
    wanted = try o.optionalString("wanted")
    setAt = try o.optionalInstant("setAt")
    problem = try o.optionalString("problem")
    since = try o.optionalInstant("since")
    retryAt = try o.optionalInstant("retryAt")
  }

  public var json: JSON { writtenJSON }
}

extension SystemZoneView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("zone", .string(zone))
    s.member("wanted", .optional(wanted))
    s.member("setAt", WireFormat.time(setAt, 0))
    s.member("problem", .optional(problem))
    s.member("since", WireFormat.time(since, 0))
    s.member("retryAt", WireFormat.time(retryAt, 0))
    s.closeObject()
  }
}
