/// What an app is told about its authorization: in the hello reply, in the reply to
/// `request-authorization`, `set-activity` and `start-updates`, and in `authorization` events.
public struct AppStatusReport: Sendable, Hashable {
  /// Who it is and how that is known.
  public var identity: AppIdentity
  /// Its authorization in effect (policy first).
  public var authorization: AppAuthorization
  /// Where its request stands.
  public var prompt: PromptState
  /// Whether this session is in use now.
  public var inUse: Bool
  /// Who decided: `policy`, `agent`, `user`, or nil.
  public var decidedBy: String?
}

/// One app using the location now (the counterpart of the status-bar arrow).
public struct AppUse: Sendable, Hashable {
  /// The app and its user.
  public var key: AppKey
  /// How its id is known.
  public var verification: AppIdentity.Verification
  /// Full or reduced.
  public var accuracy: AccuracyAuthorization
  /// Whether it gets positions while not in the foreground.
  public var background: Bool
}

/// The apps part of `status`.
public struct AppsReport: Sendable, Hashable {
  /// Apps receiving positions now.
  public var using: [AppUse]
  /// App sessions connected.
  public var connected: Int
  /// Apps known (decided, registered or connected).
  public var known: Int
  /// Users with an agent registered.
  public var agents: [UInt32]
  /// Prompts waiting for an answer (or an agent).
  public var pendingPrompts: Int
  /// Counters: events dropped and why, prompts unanswered, refusals.
  public var counters: [Counter]
  /// Problems of the policy files and of apps.json.
  public var problems: [String]
}

/// One app in `list-apps` (`locctl apps`).
public struct AppListing: Sendable, Hashable {
  /// The app and its user.
  public var key: AppKey
  /// The authorization in effect.
  public var authorization: AppAuthorization
  /// Who decided: `policy`, `agent`, `user`, or nil.
  public var decidedBy: String?
  /// The policy file that decides or caps it, if one does.
  public var policyFile: String?
  /// Sessions connected now.
  public var sessions: Int
  /// Whether one of them is in use.
  public var inUse: Bool
  /// Whether it receives positions now.
  public var using: Bool
  /// When it last received a position.
  public var lastUsed: Instant?
  /// How its id was known when last seen (nil: not seen in this run).
  public var verification: AppIdentity.Verification?
  /// Its unit when last seen.
  public var unit: String?
  /// The purpose it gave.
  public var purpose: String?
  /// Kinds it registered for while not connected.
  public var registrations: Set<EventKind>
}

/// What the apps machines ask of the engine after an input.
enum AppsOutput: Sendable, Hashable {
  /// Tell an app session its authorization (it changed, or its request's state did).
  case authorization(SessionID, AppStatusReport)
  /// Put a prompt to an agent.
  case ask(AgentID, AppPrompt)
  /// Take a prompt back from an agent (timed out, or the app went away).
  case withdraw(AgentID, PromptID, reason: String)
  /// Deliver events that waited (held or queued) to sessions of their app.
  case deliver([SessionID], [WaitingEvent])
  /// A decision was made (for the log).
  case decided(AppKey, AppAuthorization, by: String)
  /// Waiting events of an app were dropped (for the log).
  case dropped(AppKey, count: Int, why: String)
  /// Start the app's launch unit: an event waits for it and it is not connected.
  case launch(AppKey, unit: String)
}
