import LocCore

/// The authorization object (docs/PROTOCOL.md, "authorization"): who the app is, how that is
/// known, and what it may have. In the hello reply, the replies of `request-authorization`,
/// `set-activity` and `start-updates`, and `authorization` events.
public struct AppStatusView: WireCodable {
  /// The app id.
  public var app: String
  /// Its user.
  public var uid: UInt32
  /// How the id is known: `flatpak`, `systemd` or `claimed`.
  public var verified: OpenEnum<AppIdentity.Verification>
  /// The peer's unit, if it is in one.
  public var unit: String?
  /// `not-determined`, `restricted`, `denied`, `when-in-use` or `always`.
  public var status: OpenEnum<AuthorizationStatus>
  /// `full` or `reduced`.
  public var accuracy: OpenEnum<AccuracyAuthorization>
  /// Provisional always (acts as when-in-use until upgraded).
  public var provisional: Bool
  /// Allow Once (lasts while the app is in use).
  public var once: Bool
  /// Full accuracy until the app is no longer in use, over a reduced decision (since 1.10;
  /// false when a locd before it leaves it out).
  public var temporaryFullAccuracy: Bool
  /// Where its request stands: `none`, `asking`, `no-agent`, `no-answer`.
  public var prompt: OpenEnum<PromptState>
  /// Whether this session is in use now.
  public var inUse: Bool
  /// `policy`, `agent`, `user`, or nil.
  public var decidedBy: String?

  /// The wire form of `r`.
  public init(_ r: AppStatusReport) {
    app = r.identity.key.app.rawValue
    uid = r.identity.key.uid
    verified = .known(r.identity.verification)
    unit = r.identity.unit
    status = .known(r.authorization.status)
    accuracy = .known(r.authorization.accuracy)
    provisional = r.authorization.provisional
    once = r.authorization.once
    temporaryFullAccuracy = r.authorization.temporaryFullAccuracy
    prompt = .known(r.prompt)
    inUse = r.inUse
    decidedBy = r.decidedBy
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    app = try o.string("app")
    uid = try o.uid("uid")
    verified = try o.open("verified")
    unit = try o.optionalString("unit")
    status = try o.open("status")
    accuracy = try o.open("accuracy")
    provisional = try o.bool("provisional")
    once = try o.bool("once")
    temporaryFullAccuracy = try o.optionalBool("temporaryFullAccuracy") ?? false
    prompt = try o.open("prompt")
    inUse = try o.bool("inUse")
    decidedBy = try o.optionalString("decidedBy")
  }

  public var json: JSON {
    .object([
      "app": .string(app), "uid": .number(Double(uid)), "verified": .string(verified.word),
      "unit": unit.map(JSON.string) ?? .null, "status": .string(status.word),
      "accuracy": .string(accuracy.word),
      "provisional": .bool(provisional), "once": .bool(once),
      "temporaryFullAccuracy": .bool(temporaryFullAccuracy), "prompt": .string(prompt.word),
      "inUse": .bool(inUse),
      "decidedBy": decidedBy.map(JSON.string) ?? .null,
    ])
  }
}

/// One app in `list-apps` and `change-app` (`locctl apps`).
public struct AppListingView: WireCodable {
  /// The app id.
  public var app: String
  /// Its user.
  public var uid: UInt32
  /// The authorization in effect.
  public var status: OpenEnum<AuthorizationStatus>
  /// `full` or `reduced`.
  public var accuracy: OpenEnum<AccuracyAuthorization>
  /// Provisional always.
  public var provisional: Bool
  /// Allow Once.
  public var once: Bool
  /// Full accuracy until the app is no longer in use, over a reduced decision (since 1.10).
  public var temporaryFullAccuracy: Bool
  /// `policy`, `agent`, `user`, or nil.
  public var decidedBy: String?
  /// The policy file that decides or caps it.
  public var policyFile: String?
  /// Sessions connected now.
  public var sessions: Int
  /// Whether one of them is in use.
  public var inUse: Bool
  /// Whether it receives positions now.
  public var using: Bool
  /// When it last received a position, to the second.
  public var lastUsed: Instant?
  /// How its id was known when last seen in this run (nil: not seen).
  public var verified: OpenEnum<AppIdentity.Verification>?
  /// Its unit when last seen.
  public var unit: String?
  /// The purpose it gave.
  public var purpose: String?
  /// Event kinds it registered for while not connected.
  public var registrations: [String]

  /// The wire form of `l`.
  public init(_ l: AppListing) {
    app = l.key.app.rawValue
    uid = l.key.uid
    status = .known(l.authorization.status)
    accuracy = .known(l.authorization.accuracy)
    provisional = l.authorization.provisional
    once = l.authorization.once
    temporaryFullAccuracy = l.authorization.temporaryFullAccuracy
    decidedBy = l.decidedBy
    policyFile = l.policyFile
    sessions = l.sessions
    inUse = l.inUse
    using = l.using
    lastUsed = l.lastUsed.map { WireFormat.truncate($0, 0) }
    verified = l.verification.map { .known($0) }
    unit = l.unit
    purpose = l.purpose
    registrations = l.registrations.sorted().map(\.rawValue)
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    app = try o.string("app")
    uid = try o.uid("uid")
    status = try o.open("status")
    accuracy = try o.open("accuracy")
    provisional = try o.bool("provisional")
    once = try o.bool("once")
    temporaryFullAccuracy = try o.optionalBool("temporaryFullAccuracy") ?? false
    decidedBy = try o.optionalString("decidedBy")
    policyFile = try o.optionalString("policyFile")
    sessions = try o.int("sessions")
    inUse = try o.bool("inUse")
    using = try o.bool("using")
    lastUsed = try o.optionalInstant("lastUsed")
    verified = try o.optionalOpen("verified")
    unit = try o.optionalString("unit")
    purpose = try o.optionalString("purpose")
    registrations = try o.strings("registrations")
  }

  public var json: JSON {
    .object([
      "app": .string(app), "uid": .number(Double(uid)), "status": .string(status.word),
      "accuracy": .string(accuracy.word), "provisional": .bool(provisional), "once": .bool(once),
      "temporaryFullAccuracy": .bool(temporaryFullAccuracy), "decidedBy": decidedBy.map(JSON.string) ?? .null,
      "policyFile": policyFile.map(JSON.string) ?? .null,
      "sessions": .number(Double(sessions)), "inUse": .bool(inUse), "using": .bool(using),
      "lastUsed": WireFormat.time(lastUsed, 0), "verified": verified.map { .string($0.word) } ?? .null,
      "unit": unit.map(JSON.string) ?? .null, "purpose": purpose.map(JSON.string) ?? .null,
      "registrations": .array(registrations.map(JSON.string)),
    ])
  }
}

/// A question put to an agent (`agent-prompt` events): which app of which user asks for
/// what, why, and until when the agent may answer.
public struct AgentPromptView: WireCodable {
  /// The prompt's number, for `agent-answer`.
  public var prompt: UInt64
  /// `authorization`, `upgrade` or `temporary-full-accuracy`.
  public var kind: OpenEnum<AppPrompt.Kind>
  /// The app id.
  public var app: String
  /// Its user.
  public var uid: UInt32
  /// How the id is known: `flatpak`, `systemd` or `claimed`.
  public var verified: OpenEnum<AppIdentity.Verification>
  /// The app's unit, if it is in one.
  public var unit: String?
  /// What the app asked for: `when-in-use` or `always`.
  public var requested: OpenEnum<AuthorizationLevel>
  /// The app's purpose, as it gave it.
  public var purpose: String?
  /// The most accuracy the policy lets the agent grant.
  public var maxAccuracy: OpenEnum<AccuracyAuthorization>
  /// When the prompt is withdrawn if not answered, to the second.
  public var deadline: Instant?

  /// The wire form of `p`.
  public init(_ p: AppPrompt) {
    prompt = p.id.raw
    kind = .known(p.kind)
    app = p.identity.key.app.rawValue
    uid = p.identity.key.uid
    verified = .known(p.identity.verification)
    unit = p.identity.unit
    requested = .known(p.requested)
    purpose = p.purpose
    maxAccuracy = .known(p.maxAccuracy)
    deadline = p.deadline.map { WireFormat.truncate($0, 0) }
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    prompt = try o.promptID("prompt")
    kind = try o.open("kind")
    app = try o.string("app")
    uid = try o.uid("uid")
    verified = try o.open("verified")
    unit = try o.optionalString("unit")
    requested = try o.open("requested")
    purpose = try o.optionalString("purpose")
    maxAccuracy = try o.open("maxAccuracy")
    deadline = try o.optionalInstant("deadline")
  }

  public var json: JSON {
    .object([
      "prompt": .number(Double(prompt)), "kind": .string(kind.word), "app": .string(app),
      "uid": .number(Double(uid)), "verified": .string(verified.word), "unit": unit.map(JSON.string) ?? .null,
      "requested": .string(requested.word), "purpose": purpose.map(JSON.string) ?? .null,
      "maxAccuracy": .string(maxAccuracy.word), "deadline": WireFormat.time(deadline, 0),
    ])
  }
}

/// The data of an `agent-prompt` event: a new question, or one taken back.
public enum AgentPromptEvent: WireCodable {
  /// Ask the person.
  case ask(AgentPromptView)
  /// The prompt is withdrawn (not answered in time, or the app went away); `reason` says which.
  case withdrawn(prompt: UInt64, reason: String)

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    if let reason = try o.optionalString("withdrawn") {
      self = .withdrawn(prompt: try o.promptID("prompt"), reason: reason)
    } else {
      self = .ask(try AgentPromptView(json: json, path: path))
    }
  }

  public var json: JSON {
    switch self {
    case .ask(let view): return view.json
    case .withdrawn(let prompt, let reason):
      return .object(["prompt": .number(Double(prompt)), "withdrawn": .string(reason)])
    }
  }
}

/// The `apps` member of `status`: who uses the location now (the counterpart of the
/// status-bar arrow), agents, prompts, counters and problems.
public struct AppsStatusView: WireCodable {
  /// One app using the location now.
  public struct Use: WireCodable {
    /// The app id.
    public var app: String
    /// Its user.
    public var uid: UInt32
    /// How the id is known.
    public var verified: OpenEnum<AppIdentity.Verification>
    /// `full` or `reduced`.
    public var accuracy: OpenEnum<AccuracyAuthorization>
    /// Whether it gets positions while not in the foreground.
    public var background: Bool

    /// The wire form of `u`.
    public init(_ u: AppUse) {
      app = u.key.app.rawValue
      uid = u.key.uid
      verified = .known(u.verification)
      accuracy = .known(u.accuracy)
      background = u.background
    }

    public init(json: JSON, path: WirePath) throws(WireDecodingError) {
      let o = try WireObject(json, path: path)
      app = try o.string("app")
      uid = try o.uid("uid")
      verified = try o.open("verified")
      accuracy = try o.open("accuracy")
      background = try o.bool("background")
    }

    public var json: JSON { writtenJSON }
  }

  /// Apps receiving positions now.
  public var using: [Use]
  /// App sessions connected.
  public var connected: Int
  /// Apps known.
  public var known: Int
  /// Users with an agent.
  public var agents: [UInt32]
  /// Prompts waiting.
  public var pendingPrompts: Int
  /// Counters.
  public var counters: [Counter]
  /// Problems of the policy files and apps.json.
  public var problems: [String]

  /// The wire form of `r`.
  public init(_ r: AppsReport) {
    using = r.using.map(Use.init)
    connected = r.connected
    known = r.known
    agents = r.agents
    pendingPrompts = r.pendingPrompts
    counters = r.counters
    problems = r.problems
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    using = try o.array("using")
    connected = try o.int("connected")
    known = try o.int("known")
    agents = try o.array("agents") { v, p throws(WireDecodingError) in try WireObject.uid(v, p) }
    pendingPrompts = try o.int("pendingPrompts")
    counters = try o.counters("counters")
    problems = try o.strings("problems")
  }

  public var json: JSON { writtenJSON }
}

extension AppsStatusView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.key("using")
    s.array(using) { s, use in use.write(to: &s) }
    s.member("connected", .number(Double(connected)))
    s.member("known", .number(Double(known)))
    s.key("agents")
    s.array(agents) { s, uid in s.value(.number(Double(uid))) }
    s.member("pendingPrompts", .number(Double(pendingPrompts)))
    s.key("counters")
    s.counters(counters)
    s.key("problems")
    s.array(problems) { s, problem in s.value(.string(problem)) }
    s.closeObject()
  }
}

extension AppsStatusView.Use: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("app", .string(app))
    s.member("uid", .number(Double(uid)))
    s.member("verified", .string(verified.word))
    s.member("accuracy", .string(accuracy.word))
    s.member("background", .bool(background))
    s.closeObject()
  }
}

extension WireObject {
  /// A user id member (0 to 2^32-2; 2^32-1 is (uid_t)-1, never a user).
  public func uid(_ key: String) throws(WireDecodingError) -> UInt32 {
    try Self.uid(value(key) ?? .null, path.member(key))
  }

  /// A user id value.
  static func uid(_ v: JSON, _ path: WirePath) throws(WireDecodingError) -> UInt32 {
    let n = try int(v, path)
    guard n >= 0, n < Int(UInt32.max) else {
      throw WireDecodingError(path, "must be a user id, 0 to 4294967294")
    }
    return UInt32(n)
  }

  /// A prompt number member.
  public func promptID(_ key: String) throws(WireDecodingError) -> UInt64 {
    let n = try int(key)
    guard n > 0 else { throw error(key, "must be a prompt number above 0") }
    return UInt64(n)
  }
}
