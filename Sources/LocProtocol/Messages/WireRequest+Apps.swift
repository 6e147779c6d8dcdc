import LocCore

// The apps methods' params (docs/PROTOCOL.md, "Apps"): encoded for clients, decoded for the
// daemon, every member checked and bounded.
extension WireRequest {
  /// The longest purpose string (bytes); longer ones are refused, not cut.
  public static let maxPurposeBytes = 512

  static func appParams(_ r: Request) -> JSONObject {
    switch r {
    case .requestAuthorization(let level, let purpose):
      return ["level": .string(level.rawValue), "purpose": .string(purpose)]
    case .requestTemporaryFullAccuracy(let purpose): return ["purpose": .string(purpose)]
    case .setActivity(let activity): return ["activity": .string(activity.rawValue)]
    case .startUpdates(let u):
      var o: JSONObject = ["background": .bool(u.background)]
      if let d = u.distanceFilter { o["distanceFilter"] = .number(d.value) }
      if let a = u.desiredAccuracy { o["desiredAccuracy"] = .number(a.value) }
      return o
    case .answerPrompt(let id, let answer, let precise):
      return [
        "prompt": .number(Double(id.raw)), "answer": .string(answer.rawValue), "precise": .bool(precise),
      ]
    case .listApps(let uid):
      var o = JSONObject()
      if let uid { o["uid"] = .number(Double(uid)) }
      return o
    case .changeApp(let app, let uid, let change):
      var o: JSONObject = ["app": .string(app.rawValue)]
      if let uid { o["uid"] = .number(Double(uid)) }
      switch change {
      case .grant(let level, let accuracy):
        o["change"] = .string("grant")
        o["level"] = .string(level.rawValue)
        o["accuracy"] = .string(accuracy.rawValue)
      case .deny: o["change"] = .string("deny")
      case .reset: o["change"] = .string("reset")
      }
      return o
    default: return [:]
    }
  }

  /// The apps request for `method`, nil if `method` is not one of them.
  static func decodeApp(method: String, params: JSONObject) -> Result<Request, RequestError>? {
    let known: [String: [String]] = [
      "request-authorization": ["level", "purpose"], "request-temporary-full-accuracy": ["purpose"],
      "set-activity": ["activity"],
      "start-updates": ["distanceFilter", "desiredAccuracy", "background"], "stop-updates": [],
      "agent-register": [], "agent-answer": ["prompt", "answer", "precise"], "list-apps": ["uid"],
      "change-app": ["app", "uid", "change", "level", "accuracy"],
    ]
    guard let allowed = known[method] else { return nil }
    for key in params.keys.sorted() where !allowed.contains(key) {
      let takes = allowed.isEmpty ? "nothing" : allowed.map { "\"\($0)\"" }.joined(separator: ", ")
      return .failure(
        RequestError(.invalidParams, "unknown parameter \"\(key.prefix(64))\"; \(method) takes \(takes)"))
    }
    do throws(RequestError) {
      return .success(try appRequest(method, params))
    } catch {
      return .failure(error)
    }
  }

  private static func appRequest(_ method: String, _ p: JSONObject) throws(RequestError) -> Request {
    switch method {
    case "request-authorization":
      let level = try word(p, "level", AuthorizationLevel.self, required: true)!
      return .requestAuthorization(level, purpose: try purpose(p))
    case "request-temporary-full-accuracy": return .requestTemporaryFullAccuracy(purpose: try purpose(p))
    case "set-activity": return .setActivity(try word(p, "activity", AppActivity.self, required: true)!)
    case "start-updates":
      let filter = try meters(p, "distanceFilter", above: -1)
      let accuracy = try meters(p, "desiredAccuracy", above: 0)
      return .startUpdates(
        AppSession.Updates(
          distanceFilter: filter, desiredAccuracy: accuracy, background: try flag(p, "background") ?? false))
    case "stop-updates": return .stopUpdates
    case "agent-register": return .registerAgent
    case "agent-answer":
      guard let n = p["prompt"]?.number, n == n.rounded(), n >= 1, n < 9e15 else {
        throw RequestError(.invalidParams, "\"prompt\" must be the number of a prompt")
      }
      let answer = try word(p, "answer", AgentAnswer.self, required: true)!
      return .answerPrompt(PromptID(UInt64(n)), answer, precise: try flag(p, "precise") ?? true)
    case "list-apps": return .listApps(uid: try uid(p))
    default:  // change-app
      guard let text = p["app"]?.string, let app = AppID(text) else {
        throw RequestError(.invalidParams, "\"app\" must be an app id: \(AppID.rule)")
      }
      let change: AppChange
      switch p["change"]?.string {
      case "grant"?:
        let level = try word(p, "level", AuthorizationLevel.self, required: false) ?? .whenInUse
        change = .grant(level, try word(p, "accuracy", AccuracyAuthorization.self, required: false) ?? .full)
      case "deny"?: change = .deny
      case "reset"?: change = .reset
      default: throw RequestError(.invalidParams, "\"change\" must be grant, deny or reset")
      }
      return .changeApp(app, uid: try uid(p), change)
    }
  }

  /// The `purpose` member: why the app asks, 1 to `maxPurposeBytes` bytes (never cut).
  private static func purpose(_ p: JSONObject) throws(RequestError) -> String {
    guard let purpose = p["purpose"]?.string, !purpose.isEmpty, purpose.utf8.count <= maxPurposeBytes else {
      throw RequestError(
        .invalidParams,
        "\"purpose\" must be a string of 1 to \(maxPurposeBytes) bytes saying why the app asks")
    }
    return purpose
  }

  private static func word<E: RawRepresentable & CaseIterable>(
    _ p: JSONObject, _ key: String, _: E.Type, required: Bool
  ) throws(RequestError) -> E? where E.RawValue == String {
    guard let v = p[key], !v.isNull else {
      if !required { return nil }
      throw RequestError(.invalidParams, "\"\(key)\" is required: \(words(E.self))")
    }
    guard let s = v.string, let e = E(rawValue: s) else {
      throw RequestError(
        .invalidParams, "\"\(key)\" must be \(words(E.self)), got \(v.serialized.prefix(64))")
    }
    return e
  }

  private static func words<E: RawRepresentable & CaseIterable>(_: E.Type) -> String
  where E.RawValue == String {
    let all = E.allCases.map(\.rawValue)
    return all.dropLast().joined(separator: ", ") + " or " + all.last!
  }

  private static func meters(_ p: JSONObject, _ key: String, above low: Double) throws(RequestError)
    -> Meters?
  {
    guard let v = p[key], !v.isNull else { return nil }
    guard let m = v.number, m > low, m <= 20_000_000 else {
      let range = low < 0 ? "0 to 20000000" : "above 0 and at most 20000000"
      throw RequestError(.invalidParams, "\"\(key)\" must be \(range) metres")
    }
    return Meters(m)
  }

  private static func flag(_ p: JSONObject, _ key: String) throws(RequestError) -> Bool? {
    guard let v = p[key], !v.isNull else { return nil }
    guard case .bool(let b) = v else {
      throw RequestError(.invalidParams, "\"\(key)\" must be true or false")
    }
    return b
  }

  private static func uid(_ p: JSONObject) throws(RequestError) -> UInt32? {
    guard let v = p["uid"], !v.isNull else { return nil }
    guard let n = v.number, n == n.rounded(), n >= 0, n < Double(UInt32.max) else {
      throw RequestError(.invalidParams, "\"uid\" must be a user id, 0 to 4294967294")
    }
    return UInt32(n)
  }
}
