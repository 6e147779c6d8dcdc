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
  /// `simulation-finished`: the simulation object.
  case simulationFinished(SimulationView)
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
    case .simulationFinished(let r): self = .simulationFinished(SimulationView(r))
    }
  }

  /// Decodes the data of an event named `name`.
  public init(name: String, json: JSON, path: WirePath) throws(WireDecodingError) {
    switch EventKind(rawValue: name) {
    case .location?: self = .location(try LocationEvent(json: json, path: path))
    case .significantChange?: self = .significantChange(try SignificantChangeEvent(json: json, path: path))
    case .sourceStatus?: self = .sourceStatus(try SourceView(json: json, path: path))
    case .timezoneChanged?: self = .timezoneChanged(try TimezoneChangedEvent(json: json, path: path))
    case .solarRegenerated?: self = .solarRegenerated(try SolarRegeneratedEvent(json: json, path: path))
    case .timerFired?: self = .timerFired(try TimerFiredEvent(json: json, path: path))
    case .acquisition?: self = .acquisition(try AcquisitionEvent(json: json, path: path))
    case .simulationFinished?: self = .simulationFinished(try SimulationView(json: json, path: path))
    case nil: self = .other(name: name, data: json)
    }
  }

  /// The kind, nil for a kind this build does not know.
  public var kind: EventKind? {
    switch self {
    case .location: return .location
    case .significantChange: return .significantChange
    case .sourceStatus: return .sourceStatus
    case .timezoneChanged: return .timezoneChanged
    case .solarRegenerated: return .solarRegenerated
    case .timerFired: return .timerFired
    case .acquisition: return .acquisition
    case .simulationFinished: return .simulationFinished
    case .other: return nil
    }
  }

  /// The kind's name on the wire (`event`).
  public var name: String {
    if case .other(let name, _) = self { return name }
    return kind?.rawValue ?? ""
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
    case .simulationFinished(let e): return e.json
    case .other(_, let data): return data
    }
  }
}
