import LocCore

/// The `geoclue` member of `status` (since 1.4; present only while `[GeoClue] Enable=yes`):
/// whether locd owns org.freedesktop.GeoClue2 or why not, its clients and agents, and the
/// face's counters (docs/PROTOCOL.md, "status"; docs/GEOCLUE.md).
public struct GeoClueStatusView: WireCodable {
  /// Where the face stands; newer minor versions may add states.
  public typealias State = GeoClueReport.State

  /// `starting`, `serving`, `name-taken`, `name-refused`, `no-bus` or `off`.
  public var state: OpenEnum<State>
  /// Why it does not serve, in words; nil while starting or serving.
  public var reason: String?
  /// Client objects that exist.
  public var clients: Int
  /// Those of them that are active.
  public var activeClients: Int
  /// Users with a registered agent.
  public var agents: [UInt32]
  /// The face's counters.
  public var counters: [Counter]

  /// The wire form of `r`.
  public init(_ r: GeoClueReport) {
    state = .known(r.state)
    reason = r.reason
    clients = r.clients
    activeClients = r.activeClients
    agents = r.agents
    counters = r.counters
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    state = try o.open("state")
    reason = try o.optionalString("reason")
    clients = try o.int("clients")
    activeClients = try o.int("activeClients")
    agents = try o.array("agents") { v, p throws(WireDecodingError) in try WireObject.uid(v, p) }
    counters = try o.counters("counters")
  }

  public var json: JSON {
    .object([
      "state": .string(state.word), "reason": .optional(reason), "clients": .int(clients),
      "activeClients": .int(activeClients), "agents": .array(agents.map { .number(Double($0)) }),
      "counters": WireFormat.counters(counters),
    ])
  }
}
