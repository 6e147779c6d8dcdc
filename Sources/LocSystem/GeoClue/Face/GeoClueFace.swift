import LocCore

/// The GeoClue2 face's rules, without the bus (issue 22): which peer gets a client object,
/// what a property write does, whether a Start is allowed (the app's decision, the user's
/// agent and its MaxAccuracyLevel), the limits per user, which location each client is
/// signalled and when (its thresholds), and what the engine is told. `GeoClueService`
/// turns bus traffic into `Input`s and carries out the `Action`s; the contract is
/// docs/GEOCLUE.md, the reasons decisions 0020, 0026, 0032, 0033 and 0041.
public struct GeoClueFace {
  /// A bus call the adapter holds until an action answers it.
  public typealias CallID = UInt64
  /// A client object, by the number its path ends with.
  public typealias ClientNumber = UInt64
  /// A call to an agent on its way.
  public typealias AgentCallID = UInt64

  /// What the adapter saw, already looked up (credentials, the app identity).
  public enum Input {
    /// GetClient (`reuse`) or CreateClient from `sender`, who is `peer`.
    case getClient(CallID, sender: String, peer: Peer, admin: Bool, reuse: Bool)
    /// The client object could not be put on the bus.
    case exportFailed(ClientNumber, CallID, String)
    /// DeleteClient of `path`.
    case deleteClient(CallID, sender: String, path: String)
    /// A write of a client's property (answered at once: reply or fail).
    case setProperty(CallID, ClientNumber, sender: String, name: String, Value)
    /// Start, with the app the DesktopId names (nil when DesktopId is not set).
    case start(CallID, ClientNumber, sender: String, identity: Result<AppIdentity, RequestError>?)
    /// Stop.
    case stop(CallID, ClientNumber, sender: String)
    /// AddAgent from `sender` (`peer`, nil when not looked up), with its desktop id (nil: none).
    case addAgent(CallID, sender: String, peer: Peer?, desktopID: String?)
    /// AddAgent's caller could not be looked up (why, in words).
    case addAgentFailed(CallID, String)
    /// An agent answered a call, or the bus answered for it.
    case agentAnswered(AgentCallID, AgentAnswer)
    /// An agent's PropertiesChanged said MaxAccuracyLevel.
    case agentLevelChanged(name: String, level: UInt32)
    /// A timer an action armed went off.
    case timerFired(Timer)
    /// A connection left the bus.
    case peerVanished(String)
    /// The engine answered a client's session: its hello refused, or its updates.
    case engineAnswered(ClientNumber, Result<Response, RequestError>)
    /// A location from the engine for these clients' sessions.
    case location(GeoClueLocationValues, [ClientNumber])
    /// These clients' app may no longer use the location (its status now).
    case appLost([ClientNumber], AuthorizationStatus)
    /// The compass's heading (degrees from magnetic north) for these clients' sessions.
    case heading(Double, [ClientNumber])
    /// The face stops or lost its connection: everything tied to it goes.
    case stopped(String)
  }

  /// What the adapter does, in order.
  public enum Action {
    /// Answers a call with these values.
    case reply(CallID, [Value])
    /// Answers a call with a D-Bus error.
    case fail(CallID, name: String, text: String)
    /// Puts client `number` of `owner` on the bus, then answers the call with its path.
    case exportClient(ClientNumber, owner: String, CallID)
    /// Takes a client and its Location objects off the bus.
    case unexportClient(ClientNumber)
    /// PropertiesChanged of a client, to its owner.
    case clientChanged(ClientNumber, [Property])
    /// A new Location object, LocationUpdated, then the Location property; `supersedeAtOnce`:
    /// the current object goes in a few seconds too (another accuracy).
    case publishLocation(ClientNumber, GeoClueLocationValues, supersedeAtOnce: Bool)
    /// The current Location object's values updated in place.
    case refreshLocation(ClientNumber, GeoClueLocationValues)
    /// The Manager's InUse changed.
    case inUseChanged
    /// Calls an agent.
    case callAgent(AgentCallID, to: String, AgentQuestion)
    /// Watches the PropertiesChanged of the agent `name` of `uid` (replacing that uid's watch).
    case watchAgent(uid: UInt32, name: String)
    /// Drops the watch on the agent of `uid` (it left).
    case unwatchAgent(uid: UInt32)
    /// Arms a timer to fire after `after`.
    case arm(Timer, after: Duration)
    /// Cancels a timer.
    case cancel(Timer)
    /// Nothing is kept for this connection any more.
    case forgetPeer(String)
    /// Opens the client's engine session as `identity`, in use, with its updates at `accuracy`.
    case openSession(ClientNumber, Peer, AppIdentity, AccuracyAuthorization)
    /// Starts the session's updates again at `accuracy`.
    case restartUpdates(ClientNumber, AccuracyAuthorization)
    /// Asks the engine for temporary full accuracy for the session's app, saying why: the
    /// client asked a level above its app's reduced decision (decision 0067).
    case askFullAccuracy(ClientNumber, purpose: String)
    /// Closes the client's engine session.
    case closeSession(ClientNumber)
    /// Remembers an agent's answer as the app's decision.
    case remember(AppKey, AppChange)
    /// Logs a line.
    case log(LogLevel, String)
  }

  /// A property value as the bus carries it.
  public enum Value: Hashable, Sendable {
    case bool(Bool)
    case uint32(UInt32)
    case string(String)
    case objectPath(String)
  }

  /// A property's name and value.
  public struct Property: Hashable, Sendable {
    /// The name.
    public var name: String
    /// The value.
    public var value: Value
  }

  /// What the face asks an agent.
  public enum AgentQuestion: Hashable, Sendable {
    /// AuthorizeApp(desktop id, level).
    case authorize(String, GeoClueAccuracyLevel)
    /// Properties.Get of MaxAccuracyLevel.
    case maxLevel
  }

  /// An agent's answer as the adapter read it.
  public enum AgentAnswer: Hashable, Sendable {
    /// AuthorizeApp's answer: the level it allows (none for no).
    case authorized(GeoClueAccuracyLevel)
    /// The MaxAccuracyLevel read.
    case maxLevel(UInt32)
    /// An error reply or a reply of another shape, in words.
    case failed(String)
    /// The call could not be sent, in words.
    case notSent(String)
  }

  /// The face's timers.
  public enum Timer: Hashable, Sendable {
    /// A Start waits for its user's agent to register.
    case agentWait(ClientNumber)
    /// A caller's wait for an agent's answer.
    case agentTimeout(AgentCallID)
  }

  /// The limits (locd.conf `[GeoClue]`).
  public var limits: Limits {
    didSet {
      clientSlots.maxClients = limits.maxClients
      clientSlots.reservedForAdmin = limits.reservedAdminClients
      clientSlots.maxPerUser = limits.maxClientsPerUser
      agentCalls.maxTotal = limits.maxAgentCalls
      agentCalls.maxPerUser = limits.maxAgentCallsPerUser
    }
  }
  /// What happened, counted.
  public internal(set) var counters = Counters()
  /// The client objects.
  var clients: [ClientNumber: Client] = [:]
  /// Client objects by uid, with the reserve for administrators.
  var clientSlots: ClientSlots
  /// One agent per uid.
  var agents: [UInt32: Agent] = [:]
  /// Unanswered calls to agents by uid.
  var agentCalls: GeoClueAgentCalls
  /// Calls to agents without an answer yet.
  var calls: [AgentCallID: AgentCall] = [:]
  /// The next client's number, and the next agent call's.
  var next = (client: ClientNumber(1), call: AgentCallID(1))
  /// InUse as last published.
  public internal(set) var inUse = false
  /// Lines a client can cause again and again.
  var logThrottle = LogThrottle(burst: 20, windowMicroseconds: 10_000_000)
  /// The apps model's decision for an app and who made it (the engine's query).
  let apps: (AppKey) -> (AppAuthorization, decidedBy: String?)

  /// A face with no client and no agent.
  public init(limits: Limits, apps: @escaping (AppKey) -> (AppAuthorization, decidedBy: String?)) {
    self.limits = limits
    self.apps = apps
    clientSlots = ClientSlots(
      maxClients: limits.maxClients, reservedForAdmin: limits.reservedAdminClients,
      maxPerUser: limits.maxClientsPerUser)
    agentCalls = GeoClueAgentCalls(maxTotal: limits.maxAgentCalls, maxPerUser: limits.maxAgentCallsPerUser)
  }

  /// Takes in `input` at `now` and says what to do.
  public mutating func handle(_ input: Input, at now: Instant) -> [Action] {
    var out = Output(now: now)
    switch input {
    case .getClient(let call, let sender, let peer, let admin, let reuse):
      getClient(call, sender: sender, peer: peer, admin: admin, reuse: reuse, &out)
    case .exportFailed(let number, let call, let problem): exportFailed(number, call, problem, &out)
    case .deleteClient(let call, let sender, let path): deleteClient(call, sender: sender, path: path, &out)
    case .setProperty(let call, let number, let sender, let name, let value):
      setProperty(call, number, sender: sender, name: name, value, &out)
    case .start(let call, let number, let sender, let identity):
      start(call, number, sender: sender, identity: identity, &out)
    case .stop(let call, let number, let sender): stop(call, number, sender: sender, &out)
    case .addAgent(let call, let sender, let peer, let id):
      addAgent(call, sender: sender, peer: peer, id, &out)
    case .addAgentFailed(let call, let problem):
      counters.agentsRefused += 1
      out.append(.fail(call, name: BusError.Name.failed, text: problem))
    case .agentAnswered(let id, let answer): agentAnswered(id, answer, &out)
    case .agentLevelChanged(let name, let level): agentLevelChanged(name, level, &out)
    case .timerFired(.agentWait(let number)): agentWaitEnded(number, &out)
    case .timerFired(.agentTimeout(let id)): agentTimedOut(id, &out)
    case .peerVanished(let name): peerVanished(name, &out)
    case .engineAnswered(let number, let result): startAnswered(number, result, &out)
    case .location(let values, let numbers):
      for number in numbers { located(number, values, &out) }
    case .heading(let degrees, let numbers):
      for number in numbers { headed(number, degrees, &out) }
    case .appLost(let numbers, let status):
      for number in numbers { appLost(number, status, &out) }
    case .stopped(let why): stopped(why, &out)
    }
    return out.actions
  }

  /// The actions being gathered, and the instant they are for.
  struct Output {
    let now: Instant
    var actions: [Action] = []
    mutating func append(_ action: Action) { actions.append(action) }
  }

  /// Logs a line a client can cause as often as it likes: at most the throttle's burst per
  /// window, the next one saying how many were held back.
  mutating func logRepeatable(_ level: LogLevel, _ message: String, _ out: inout Output) {
    let micros = UInt64(max(0, out.now.microsecondsSinceEpoch))
    guard let held = logThrottle.admit(at: micros) else { return }
    out.append(.log(level, held > 0 ? "\(message) (\(held) similar lines held back)" : message))
  }

  // MARK: Queries

  /// The client `number`, if there is one.
  func client(_ number: ClientNumber) -> Client? { clients[number] }

  /// The lowest-numbered client `owner` has (GetClient reuses it).
  public func clientOwned(by owner: String) -> ClientNumber? {
    clients.values.filter { $0.owner == owner }.map(\.number).min()
  }

  /// A client's DesktopId, as its Start needs it looked up.
  public func desktopID(of number: ClientNumber) -> String? { clients[number]?.desktopID }

  /// The number of client objects, and of active ones.
  public var clientCounts: (all: Int, active: Int) {
    (clients.count, clients.values.filter(\.active).count)
  }

  /// The uids with an agent.
  public var agentUIDs: [UInt32] { agents.keys.sorted() }
}
