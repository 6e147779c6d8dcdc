import LocCore

// The `result` objects of the apps methods (docs/PROTOCOL.md, "Apps").

/// The answer to `request-authorization`, `set-activity` and `start-updates`: the app's
/// authorization now.
public struct AuthorizationResult: WireCodable {
  /// The authorization object.
  public var authorization: AppStatusView

  /// A result.
  public init(authorization: AppStatusView) { self.authorization = authorization }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    authorization = try WireObject(json, path: path).decode("authorization")
  }

  public var json: JSON { .object(["authorization": authorization.json]) }
}

/// The answer to `agent-register`: the user the agent answers for and the prompts waiting.
public struct AgentResult: WireCodable {
  /// The user.
  public var uid: UInt32
  /// Prompts waiting (the first comes as an `agent-prompt` event).
  public var pending: Int

  /// A result.
  public init(uid: UInt32, pending: Int) {
    self.uid = uid
    self.pending = pending
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    uid = try o.uid("uid")
    pending = try o.int("pending")
  }

  public var json: JSON { .object(["uid": .number(Double(uid)), "pending": .number(Double(pending))]) }
}

/// The answer to `list-apps`.
public struct AppListResult: WireCodable {
  /// The apps, by uid and app id.
  public var apps: [AppListingView]

  /// A result.
  public init(apps: [AppListingView]) { self.apps = apps }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    apps = try WireObject(json, path: path).array("apps")
  }

  public var json: JSON { .object(["apps": .array(apps.map(\.json))]) }
}

/// The answer to `change-app`: the app after the change.
public struct AppResult: WireCodable {
  /// The app.
  public var app: AppListingView

  /// A result.
  public init(app: AppListingView) { self.app = app }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    app = try WireObject(json, path: path).decode("app")
  }

  public var json: JSON { .object(["app": app.json]) }
}

extension Call where Result == AuthorizationResult {
  /// `request-authorization`: ask for `level`, saying why.
  public static func requestAuthorization(_ level: AuthorizationLevel, purpose: String) -> Call {
    Call(.request(.requestAuthorization(level, purpose: purpose)))
  }

  /// `request-temporary-full-accuracy`: full accuracy until the app is no longer in use, saying why.
  public static func requestTemporaryFullAccuracy(purpose: String) -> Call {
    Call(.request(.requestTemporaryFullAccuracy(purpose: purpose)))
  }
  /// `set-activity`: the app is in the foreground or not.
  public static func setActivity(_ activity: AppActivity) -> Call { Call(.request(.setActivity(activity))) }
  /// `start-updates`: location events with these options.
  public static func startUpdates(_ updates: AppSession.Updates = AppSession.Updates()) -> Call {
    Call(.request(.startUpdates(updates)))
  }
}

extension Call where Result == EmptyResult {
  /// `stop-updates`.
  public static var stopUpdates: Call { Call(.request(.stopUpdates)) }
  /// `agent-answer`: the person's answer to prompt `prompt`.
  public static func answerPrompt(_ prompt: UInt64, _ answer: AgentAnswer, precise: Bool = true) -> Call {
    Call(.request(.answerPrompt(PromptID(prompt), answer, precise: precise)))
  }
}

extension Call where Result == AgentResult {
  /// `agent-register`: this session answers prompts for its user.
  public static var registerAgent: Call { Call(.request(.registerAgent)) }
}

extension Call where Result == AppListResult {
  /// `list-apps`: the apps of `uid` (nil: the caller's; an administrator's: everyone's).
  public static func listApps(uid: UInt32? = nil) -> Call { Call(.request(.listApps(uid: uid))) }
}

extension Call where Result == AppResult {
  /// `change-app`: grant, deny or reset `app` of `uid` (nil: the caller).
  public static func changeApp(_ app: AppID, uid: UInt32? = nil, _ change: AppChange) -> Call {
    Call(.request(.changeApp(app, uid: uid, change)))
  }
}
