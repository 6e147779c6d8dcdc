/// The `[GeoClue]` section's limits (docs/GEOCLUE.md, "Limits"): what the bus peers of one
/// user can make the face hold, and how long locd waits for a user's agent. `Enable=` stays
/// `DaemonConfig.geoClueEnabled`.
public struct GeoClueSettings: Sendable, Hashable {
  /// Most client objects at once, all users together.
  public var maxClients = 2048
  /// Of `maxClients`, the ones kept for peers with admin access (root, locd's uid,
  /// `AdminGroup=`), as `[Limits] ReservedAdminClients=` does for the socket.
  public var reservedAdminClients = 16
  /// Most client objects of one uid below admin access.
  public var maxClientsPerUser = 64
  /// How long a Start (or an AddAgent) waits for the agent's answer before it is answered
  /// without one. The call itself stays counted until the agent answers or leaves the bus:
  /// dbus-daemon holds it that long (its reply_timeout is "never" by default).
  public var agentTimeout: Duration = .seconds(20)
  /// Most calls to agents (AuthorizeApp, the MaxAccuracyLevel read) without an answer yet, all
  /// users together: below dbus-daemon's max_replies_per_connection (128 by default), which
  /// counts every unanswered call of locd's bus connection.
  public var maxAgentCalls = 64
  /// Most of them to one user's agent; that user's next Start without a decision is refused
  /// until one is answered.
  public var maxAgentCallsPerUser = 4

  /// The defaults.
  public init() {}
}
