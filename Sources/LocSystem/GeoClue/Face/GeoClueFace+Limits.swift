import LocCore

/// The face's limits and counters.
extension GeoClueFace {
  /// Limits on what bus peers can make the face hold (locd.conf `[GeoClue]`, docs/GEOCLUE.md).
  public struct Limits: Sendable {
    /// Most client objects at once (MaxClients=).
    public var maxClients: Int
    /// Of those, the ones only peers with admin access get (ReservedAdminClients=).
    public var reservedAdminClients: Int
    /// Most client objects of one uid below admin access (MaxClientsPerUser=).
    public var maxClientsPerUser: Int
    /// Most client objects of one connection.
    public var maxClientsPerConnection = 64
    /// How long Start waits for the user's agent to register before it is answered without
    /// one (GeoClue waits DEFAULT_AGENT_STARTUP_WAIT_SECS, 5 s, for agents starting with the session).
    public var agentWait: Duration = .seconds(5)
    /// How long a Start or AddAgent waits for the agent's answer (AgentTimeout=).
    public var agentTimeout: Duration
    /// Most unanswered calls to agents in all (MaxAgentCalls=).
    public var maxAgentCalls: Int
    /// Most unanswered calls to one user's agent (MaxAgentCallsPerUser=).
    public var maxAgentCallsPerUser: Int
    /// The limits `settings` says.
    public init(_ settings: GeoClueSettings) {
      maxClients = settings.maxClients
      reservedAdminClients = settings.reservedAdminClients
      maxClientsPerUser = settings.maxClientsPerUser
      agentTimeout = settings.agentTimeout
      maxAgentCalls = settings.maxAgentCalls
      maxAgentCallsPerUser = settings.maxAgentCallsPerUser
    }
  }

  /// What happened, counted (in `status`, as `geoclue.counters`).
  public struct Counters: Sendable, Hashable {
    /// Client objects made.
    public var clientsCreated = 0
    /// GetClient/CreateClient refused by a limit (any of them).
    public var clientsRefused = 0
    /// Of those, refused because the caller's uid holds MaxClientsPerUser clients.
    public var clientsRefusedPerUser = 0
    /// Of those, refused because only the clients kept for administrators were left.
    public var clientsRefusedReserved = 0
    /// Calls and property reads from a connection that does not own the object.
    public var strangersDenied = 0
    /// DesktopId values refused.
    public var invalidDesktopIDs = 0
    /// Start calls answered AccessDenied.
    public var startsDenied = 0
    /// Start calls refused because the DesktopId contradicts the app the peer's cgroup names.
    public var identitiesRefused = 0
    /// Start calls answered from a decision already made, without asking the agent.
    public var decidedBefore = 0
    /// Start calls that succeeded.
    public var starts = 0
    /// Agents registered.
    public var agentsAdded = 0
    /// AddAgent calls refused.
    public var agentsRefused = 0
    /// AuthorizeApp calls made.
    public var authorizeCalls = 0
    /// Starts and AddAgents refused because that user's agent (or all agents together) had
    /// too many calls unanswered (MaxAgentCallsPerUser=, MaxAgentCalls=).
    public var agentCallsRefused = 0
    /// Starts and AddAgents answered without the agent's answer after AgentTimeout=.
    public var agentTimeouts = 0
    /// AuthorizeApp answers that came after that (kept as decisions all the same).
    public var lateAgentAnswers = 0
    /// LocationUpdated signals sent.
    public var locationsSignalled = 0
    /// Starts (and raised caps) at street or exact of an app decided reduced, which asked
    /// the engine for temporary full accuracy (decision 0067).
    public var fullAccuracyAsked = 0
  }
}
