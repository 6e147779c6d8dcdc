import LocCore

/// A region as `register-region` and `region-state` answer it (docs/PROTOCOL.md, "Regions
/// and visits"): what the app registered, and its state now.
public struct RegionView: WireCodable {
  /// The app's id for it.
  public var id: String
  /// The centre.
  public var centre: Coordinate
  /// The radius.
  public var radius: Meters
  /// The events asked for: `entry`, `exit`, `dwell`.
  public var notify: [String]
  /// The dwell time, if a dwell event was asked for.
  public var dwell: Duration?
  /// `unknown`, `inside` or `outside`.
  public var state: OpenEnum<RegionState>

  /// The wire form of a monitored region.
  public init(_ m: RegionMonitor.Monitored) {
    id = m.region.id.value
    centre = m.region.centre
    radius = m.region.radius
    notify = RegionView.words(m.region)
    dwell = m.region.dwell
    state = .known(m.state)
  }

  /// The words of the events a region asks for.
  static func words(_ r: CircularRegion) -> [String] {
    var w: [String] = []
    if r.notifyOnEntry { w.append("entry") }
    if r.notifyOnExit { w.append("exit") }
    if r.dwell != nil { w.append("dwell") }
    return w
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    id = try o.string("id")
    centre = try o.coordinate()
    radius = try o.meters("radius")
    notify = try o.strings("notify")
    dwell = try o.optionalSeconds("dwell")
    state = try o.open("state")
  }

  public var json: JSON {
    var o: JSONObject = [
      "id": .string(id), "lat": .number(centre.latitude.value), "lon": .number(centre.longitude.value),
      "radius": .number(radius.value), "notify": .array(notify.map { .string($0) }),
      "state": .string(state.word),
    ]
    if let dwell { o["dwell"] = .number(dwell.seconds) }
    return .object(o)
  }
}

/// The answer to `register-region` (the region, state `unknown`) and `region-state` (the
/// region asked for, or every region of the app).
public struct RegionsResult: WireCodable {
  /// The regions, by id.
  public var regions: [RegionView]

  /// A result.
  public init(regions: [RegionView]) { self.regions = regions }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    regions = try WireObject(json, path: path).array("regions")
  }

  public var json: JSON { .object(["regions": .array(regions.map(\.json))]) }
}

/// The data of a `region` event: one of the app's regions was entered, left, or dwelled in.
public struct RegionEventView: WireCodable {
  /// The region's id.
  public var id: String
  /// `enter`, `exit` or `dwell`.
  public var event: OpenEnum<RegionNotice.Event>
  /// The state after it.
  public var state: OpenEnum<RegionState>
  /// The first fix on the new side (the crossing happened before it); for a dwell, when
  /// the stay began.
  public var since: Instant

  /// The wire form of a region notice.
  public init(_ n: RegionNotice) {
    id = n.id.value
    event = .known(n.event)
    state = .known(n.state)
    since = WireFormat.truncate(n.since, 3)
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    id = try o.string("id")
    event = try o.open("event")
    state = try o.open("state")
    since = try o.instant("since")
  }

  public var json: JSON {
    .object([
      "id": .string(id), "event": .string(event.word), "state": .string(state.word),
      "since": WireFormat.time(since, 3),
    ])
  }
}

/// The data of a `visit` event: an arrival (no `departure`) or a departure.
public struct VisitEventView: WireCodable {
  /// `arrival` or `departure`.
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    case arrival, departure
  }

  /// Which.
  public var event: OpenEnum<Kind>
  /// The place: the mean of the fixes of the stay.
  public var coordinate: Coordinate
  /// How far the place may be from `coordinate` (68 %).
  public var accuracy: Meters
  /// The first fix at the place.
  public var arrival: Instant
  /// The last fix at the place (departures only).
  public var departure: Instant?

  /// The wire form of a visit event.
  public init(_ e: VisitEvent) {
    let v: Visit
    switch e {
    case .arrived(let visit):
      event = .known(.arrival)
      v = visit
    case .departed(let visit):
      event = .known(.departure)
      v = visit
    }
    let decimals = WireFormat.decimalsFor(accuracy: v.accuracy)
    coordinate =
      Coordinate(
        lat: WireFormat.round(v.coordinate.latitude.value, decimals),
        lon: WireFormat.round(v.coordinate.longitude.value, decimals)) ?? v.coordinate
    accuracy = WireFormat.radius(v.accuracy)
    arrival = WireFormat.truncate(v.arrival, 3)
    departure = v.departure.map { WireFormat.truncate($0, 3) }
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    event = try o.open("event")
    coordinate = try o.coordinate()
    accuracy = try o.meters("accuracy")
    arrival = try o.instant("arrival")
    departure = try o.optionalInstant("departure")
  }

  public var json: JSON {
    var o: JSONObject = [
      "event": .string(event.word), "lat": .number(coordinate.latitude.value),
      "lon": .number(coordinate.longitude.value), "accuracy": .number(accuracy.value),
      "arrival": WireFormat.time(arrival, 3),
    ]
    if let departure { o["departure"] = WireFormat.time(departure, 3) }
    return .object(o)
  }
}

/// `status`'s `regions` member: how many regions for how many apps, visits, when the next
/// fix for them is due and why, counters. No region and no place.
public struct RegionsStatusView: WireCodable {
  /// Regions monitored.
  public var regions: Int
  /// Apps with regions.
  public var apps: Int
  /// Apps that monitor visits.
  public var visitApps: Int
  /// A visit is in progress.
  public var visiting: Bool
  /// When the next fix for regions or visits is due.
  public var nextFixDue: Instant?
  /// Why then.
  public var because: String?
  /// Counters.
  public var counters: [Counter]

  /// The wire form of the engine's report.
  public init(_ r: RegionsReport) {
    regions = r.regions
    apps = r.apps
    visitApps = r.visitApps
    visiting = r.visiting
    nextFixDue = r.nextFixDue.map { WireFormat.truncate($0, 3) }
    because = r.because
    counters = r.counters
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    regions = try o.int("regions")
    apps = try o.int("apps")
    visitApps = try o.int("visitApps")
    visiting = try o.bool("visiting")
    nextFixDue = try o.optionalInstant("nextFixDue")
    because = try o.optionalString("because")
    counters = try o.counters("counters")
  }

  public var json: JSON {
    .object([
      "regions": .int(regions), "apps": .int(apps), "visitApps": .int(visitApps), "visiting": .bool(visiting),
      "nextFixDue": WireFormat.time(nextFixDue, 3), "because": .optional(because),
      "counters": WireFormat.counters(counters),
    ])
  }
}
