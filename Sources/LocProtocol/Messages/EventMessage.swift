import LocCore

/// A pushed event: `{"type":"event","event":KIND,"time":...,"data":{...}}`, where `time`
/// is when locd emitted it (UTC, microseconds) and `data` depends on the kind.
public struct EventMessage: Hashable, Sendable {
  /// When locd emitted the event.
  public var time: Instant
  /// The kind and its data.
  public var data: EventData

  /// An event.
  public init(time: Instant, data: EventData) {
    self.time = time
    self.data = data
  }

  /// The wire form of a core notice emitted at `time`.
  public init(_ notice: Notice, at time: Instant) {
    self.time = time
    data = EventData(notice)
  }

  /// The message's members after `type`.
  var members: JSONObject {
    [
      "type": .string("event"), "event": .string(data.name), "time": WireFormat.time(time, 6),
      "data": data.json,
    ]
  }

  /// The message as one line with its newline, written once for all its recipients: a
  /// location event (the one every fix sends) straight from its views, other kinds through
  /// their data's tree. The bytes are those of `ServerMessage.event(self).lineBytes`' tree.
  public var lineBytes: [UInt8] {
    var out = JSONBytes(capacity: 768)
    out.openObject()
    out.member("type", .string("event"))
    out.member("event", .string(data.name))
    out.member("time", WireFormat.time(time, 6))
    out.key("data")
    if case .location(let location) = data { location.write(to: &out) } else { out.value(data.json) }
    out.closeObject()
    out.bytes.append(0x0A)
    return out.bytes
  }

  init(_ o: WireObject) throws(WireDecodingError) {
    time = try o.instant("time")
    data = try EventData(name: o.string("event"), json: o.value("data") ?? .null, path: o.path.member("data"))
  }
}

/// An event's kind with its data.
public enum EventData: Hashable, Sendable {
  /// `location`.
  case location(LocationEvent)
  /// `significant-change`.
  case significantChange(SignificantChangeEvent)
  /// `source-status`: the source object.
  case sourceStatus(SourceView)
  /// `timezone-changed`.
  case timezoneChanged(TimezoneChangedEvent)
  /// `solar-regenerated`.
  case solarRegenerated(SolarRegeneratedEvent)
  /// `timer-fired`.
  case timerFired(TimerFiredEvent)
  /// `acquisition`.
  case acquisition(AcquisitionEvent)
  /// `sky` (1.7): a source's satellites changed.
  case sky(SkyView)
  /// `authorization`: the app's authorization object.
  case authorization(AppStatusView)
  /// `agent-prompt`: a question for the agent, or one taken back.
  case agentPrompt(AgentPromptEvent)
  /// `access-changed`.
  case accessChanged(AccessChangedEvent)
  /// `beacons-ranged`: sent to the session that ranges, not by subscription.
  case beaconsRanged(BeaconsRangedEvent)
  /// `beacon-region`: sent to the session that monitors, not by subscription.
  case beaconRegion(BeaconRegionChangeEvent)
  /// `heading` (1.x): the compass's heading, sent to the session that started heading
  /// updates, not by subscription.
  case heading(HeadingEvent)
  /// `light-dark` (1.10): the session's user's light/dark schedule changed; sent to the
  /// sessions that follow it (`light-dark` with `follow`), not by subscription.
  case lightDark(LightDarkEvent)
  /// `simulation-finished`: the simulation object.
  case simulationFinished(SimulationView)
  /// `region`: one of the app's regions changed.
  case region(RegionEventView)
  /// `visit`: an arrival or a departure.
  case visit(VisitEventView)
  /// A kind from a newer minor version, kept as it came; clients ignore it.
  case other(name: String, data: JSON)

  /// The wire form of a core notice.
  public init(_ notice: Notice) {
    switch notice {
    case .location(let resolved, let fix): self = .location(LocationEvent(resolved, fix: fix))
    case .significantChange(let from, let to, let distance):
      self = .significantChange(SignificantChangeEvent(from: from, to: to, distance: distance))
    case .sourceStatus(let s): self = .sourceStatus(SourceView(s))
    case .timezoneChanged(let c): self = .timezoneChanged(TimezoneChangedEvent(c))
    case .solarRegenerated(let r): self = .solarRegenerated(SolarRegeneratedEvent(r))
    case .timerFired(let f, let zone, let local):
      self = .timerFired(TimerFiredEvent(f, zone: zone, local: local))
    case .acquisition(let c): self = .acquisition(AcquisitionEvent(c))
    case .sky(let s): self = .sky(SkyView(s))
    case .authorization(let r): self = .authorization(AppStatusView(r))
    case .agentPrompt(let p): self = .agentPrompt(.ask(AgentPromptView(p)))
    case .agentPromptWithdrawn(let id, let reason):
      self = .agentPrompt(.withdrawn(prompt: id.raw, reason: reason))
    case .accessChanged(let c): self = .accessChanged(AccessChangedEvent(c))
    case .beaconsRanged(let c, let list):
      self = .beaconsRanged(BeaconsRangedEvent(constraint: c, beacons: list.map(BeaconView.init)))
    case .beaconRegion(let c, let event, let state):
      self = .beaconRegion(BeaconRegionChangeEvent(constraint: c, event: event, state: state))
    case .simulationFinished(let r): self = .simulationFinished(SimulationView(r))
    case .region(let n): self = .region(RegionEventView(n))
    case .visit(let e): self = .visit(VisitEventView(e))
    case .heading(let r): self = .heading(HeadingEvent(r))
    case .lightDark(let s, let reason): self = .lightDark(LightDarkEvent(s, reason: reason))
    }
  }

  /// Names of the events sent to the session that asked for them rather than to subscribers.
  public static let beaconsRangedName = "beacons-ranged"
  /// See `beaconsRangedName`.
  public static let beaconRegionName = "beacon-region"
  /// See `beaconsRangedName`.
  public static let headingName = "heading"
  /// See `beaconsRangedName`.
  public static let lightDarkName = "light-dark"

  /// Decodes the data of an event named `name`.
  public init(name: String, json: JSON, path: WirePath) throws(WireDecodingError) {
    if name == Self.beaconsRangedName {
      self = .beaconsRanged(try BeaconsRangedEvent(json: json, path: path))
      return
    }
    if name == Self.beaconRegionName {
      self = .beaconRegion(try BeaconRegionChangeEvent(json: json, path: path))
      return
    }
    if name == Self.headingName {
      self = .heading(try HeadingEvent(json: json, path: path))
      return
    }
    if name == Self.lightDarkName {
      self = .lightDark(try LightDarkEvent(json: json, path: path))
      return
    }
    switch EventKind(rawValue: name) {
    case .location?: self = .location(try LocationEvent(json: json, path: path))
    case .significantChange?: self = .significantChange(try SignificantChangeEvent(json: json, path: path))
    case .sourceStatus?: self = .sourceStatus(try SourceView(json: json, path: path))
    case .timezoneChanged?: self = .timezoneChanged(try TimezoneChangedEvent(json: json, path: path))
    case .solarRegenerated?: self = .solarRegenerated(try SolarRegeneratedEvent(json: json, path: path))
    case .timerFired?: self = .timerFired(try TimerFiredEvent(json: json, path: path))
    case .acquisition?: self = .acquisition(try AcquisitionEvent(json: json, path: path))
    case .sky?: self = .sky(try SkyView(json: json, path: path))
    case .authorization?: self = .authorization(try AppStatusView(json: json, path: path))
    case .agentPrompt?: self = .agentPrompt(try AgentPromptEvent(json: json, path: path))
    case .accessChanged?: self = .accessChanged(try AccessChangedEvent(json: json, path: path))
    case .simulationFinished?: self = .simulationFinished(try SimulationView(json: json, path: path))
    case .region?: self = .region(try RegionEventView(json: json, path: path))
    case .visit?: self = .visit(try VisitEventView(json: json, path: path))
    case nil: self = .other(name: name, data: json)
    }
  }

  /// The kind, nil for a kind this build does not know and for the beacon events (which
  /// no subscription asks for).
  public var kind: EventKind? {
    switch self {
    case .location: return .location
    case .significantChange: return .significantChange
    case .sourceStatus: return .sourceStatus
    case .timezoneChanged: return .timezoneChanged
    case .solarRegenerated: return .solarRegenerated
    case .timerFired: return .timerFired
    case .acquisition: return .acquisition
    case .sky: return .sky
    case .authorization: return .authorization
    case .agentPrompt: return .agentPrompt
    case .accessChanged: return .accessChanged
    case .simulationFinished: return .simulationFinished
    case .region: return .region
    case .visit: return .visit
    case .beaconsRanged, .beaconRegion, .heading, .lightDark, .other: return nil
    }
  }

  /// The kind's name on the wire (`event`).
  public var name: String {
    switch self {
    case .other(let name, _): return name
    case .beaconsRanged: return Self.beaconsRangedName
    case .beaconRegion: return Self.beaconRegionName
    case .heading: return Self.headingName
    case .lightDark: return Self.lightDarkName
    default: return kind?.rawValue ?? ""
    }
  }

  /// The `data` object.
  public var json: JSON {
    switch self {
    case .location(let e): return e.json
    case .significantChange(let e): return e.json
    case .sourceStatus(let e): return e.json
    case .timezoneChanged(let e): return e.json
    case .solarRegenerated(let e): return e.json
    case .timerFired(let e): return e.json
    case .acquisition(let e): return e.json
    case .sky(let e): return e.json
    case .authorization(let e): return e.json
    case .agentPrompt(let e): return e.json
    case .accessChanged(let e): return e.json
    case .beaconsRanged(let e): return e.json
    case .beaconRegion(let e): return e.json
    case .heading(let e): return e.json
    case .lightDark(let e): return e.json
    case .simulationFinished(let e): return e.json
    case .region(let e): return e.json
    case .visit(let e): return e.json
    case .other(_, let data): return data
    }
  }
}
