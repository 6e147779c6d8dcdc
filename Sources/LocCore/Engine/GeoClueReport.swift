/// The GeoClue2 face (docs/GEOCLUE.md) as the shell reports it in `status`, while
/// `[GeoClue] Enable=yes`: whether it owns the bus name or why not, its clients and agents, and
/// its counters. The engine only passes it on; the face lives in the shell. No app names and
/// no positions: clients are counted, agents named by uid.
public struct GeoClueReport: Sendable, Hashable {
  /// Where the face stands.
  public enum State: String, Sendable, Hashable, CaseIterable {
    /// Connected to the system bus, waiting for the answer to RequestName.
    case starting
    /// Owns org.freedesktop.GeoClue2 and serves.
    case serving
    /// Another connection owns the name (geoclue itself, most likely).
    case nameTaken = "name-taken"
    /// The bus refused the name (its policy has no rule for locd: the policy file is missing).
    case nameRefused = "name-refused"
    /// No connection to the system bus (it could not be reached, or was lost); retried.
    case noBus = "no-bus"
    /// Stopped.
    case off
  }

  /// Where it stands.
  public var state: State
  /// Why it does not serve, in words (nil while starting or serving).
  public var reason: String?
  /// Client objects (GetClient, CreateClient) that exist now.
  public var clients: Int
  /// Those of them that are active (started, receiving locations).
  public var activeClients: Int
  /// The uids with a registered agent (AddAgent), in order.
  public var agents: [UInt32]
  /// The face's counters, in a fixed order (docs/PROTOCOL.md, "status").
  public var counters: [Counter]

  /// A report.
  public init(
    state: State, reason: String?, clients: Int, activeClients: Int, agents: [UInt32], counters: [Counter]
  ) {
    self.state = state
    self.reason = reason
    self.clients = clients
    self.activeClients = activeClients
    self.agents = agents
    self.counters = counters
  }
}
