import LocCore

extension WireRequest {
  /// The outcome of decoding one request line.
  public typealias Decoded = Result<(RequestID, WireRequest), WireRequestFailure>

  /// Decodes one request line (without its newline). On failure returns the id if one
  /// could be read, so the error can still be matched to the request.
  public static func decode(_ line: some Collection<UInt8>) -> Decoded {
    let json: JSON
    do { json = try JSON.parse(line, maxDepth: 8) } catch {
      return .failure(
        WireRequestFailure(id: nil, error: RequestError(.invalidJSON, "not valid JSON: \(error)")))
    }
    guard let object = json.object else {
      return .failure(
        WireRequestFailure(id: nil, error: RequestError(.invalidRequest, "a request is a JSON object")))
    }
    let id: RequestID
    switch object["id"] {
    case .number(let n)? where n == n.rounded() && abs(n) < 9e15: id = .number(Int64(n))
    case .string(let s)? where s.utf8.count <= 128: id = .string(s)
    default:
      return .failure(
        WireRequestFailure(
          id: nil,
          error: RequestError(.invalidRequest, "\"id\" must be an integer or a string of at most 128 bytes")))
    }
    let fail = { (code: ErrorCode, message: String) in
      Decoded.failure(WireRequestFailure(id: id, error: RequestError(code, message)))
    }
    guard let method = object["method"]?.string else {
      return fail(.invalidRequest, "\"method\" must be a string")
    }
    let params: JSONObject
    switch object["params"] {
    case nil, .null?: params = JSONObject()
    case .object(let o)?: params = o
    default: return fail(.invalidParams, "\"params\" must be an object")
    }
    for key in object.keys where !["id", "method", "params"].contains(key) {
      return fail(.invalidRequest, "unknown member \"\(key)\"")
    }
    switch decode(method: method, params: params) {
    case .success(let request): return .success((id, request))
    case .failure(let error): return .failure(WireRequestFailure(id: id, error: error))
    }
  }

  /// The request for `method` with `params`, or why not.
  static func decode(method: String, params: JSONObject) -> Result<WireRequest, RequestError> {
    func ok(_ r: Request) -> Result<WireRequest, RequestError> { .success(.request(r)) }
    switch method {
    case "hello":
      guard let major = params["protocol"]?.number, major == major.rounded(), major >= 0, major < 1000 else {
        return .failure(
          RequestError(.invalidParams, "hello needs \"protocol\": the major version the client speaks"))
      }
      var app: String? = nil
      if let a = params["app"], !a.isNull {
        guard let s = a.string, s.utf8.count <= AppID.maxBytes else {
          return .failure(RequestError(.invalidParams, "\"app\" must be an app id: \(AppID.rule)"))
        }
        app = s
      }
      let client = params["client"]?.string.map { String($0.prefix(64)) }
      return .success(.hello(protocolMajor: Int(major), app: app, client: client))
    case "status": return ok(.status)
    case "subscribe", "unsubscribe":
      return eventKinds(params).map { .request(method == "subscribe" ? .subscribe($0) : .unsubscribe($0)) }
    case "set-location": return setLocation(params).map(WireRequest.request)
    case "clear-location": return ok(.clearLocation)
    case "reload": return ok(.reload)
    case "list-timers": return ok(.listTimers)
    case "sky": return ok(.sky)
    case "locate": return locate(params).map(WireRequest.request)
    case "refresh": return ok(.refresh)
    case "wait": return wait(params).map(WireRequest.request)
    case "show-timer", "remove-timer", "add-timer": return timer(method, params).map(WireRequest.request)
    case "range-beacons", "stop-ranging-beacons", "monitor-beacons", "stop-monitoring-beacons":
      return beacons(method, params).map(WireRequest.request)
    default:
      if let app = decodeApp(method: method, params: params) { return app.map(WireRequest.request) }
      if let region = decodeRegion(method: method, params: params) { return region.map(WireRequest.request) }
      if let heading = decodeHeading(method: method, params: params) {
        return heading.map(WireRequest.request)
      }
      if let lightDark = decodeLightDark(method: method, params: params) {
        return lightDark.map(WireRequest.request)
      }
      return .failure(
        RequestError(
          .unknownMethod, "unknown method '\(method.prefix(64))'; known: \(methods.joined(separator: ", "))"))
    }
  }

  static func eventKinds(_ params: JSONObject) -> Result<Set<EventKind>, RequestError> {
    switch params["events"] {
    case nil, .string("all")?:
      return .success(Set(EventKind.allCases))
    case .array(let names)?:
      var kinds = Set<EventKind>()
      for name in names {
        guard let s = name.string, let kind = EventKind(rawValue: s) else {
          let known = EventKind.allCases.map(\.rawValue).joined(separator: ", ")
          return .failure(
            RequestError(.invalidParams, "unknown event kind \(name.serialized); known: \(known)"))
        }
        kinds.insert(kind)
      }
      return .success(kinds)
    default:
      return .failure(RequestError(.invalidParams, "\"events\" must be \"all\" or an array of event kinds"))
    }
  }

  static func setLocation(_ params: JSONObject) -> Result<Request, RequestError> {
    guard let lat = params["lat"]?.number, let lon = params["lon"]?.number else {
      return .failure(RequestError(.invalidParams, "set-location needs \"lat\" and \"lon\" in degrees"))
    }
    guard let coordinate = Coordinate(lat: lat, lon: lon) else {
      return .failure(RequestError(.invalidParams, "latitude must be -90..90 and longitude -180..180"))
    }
    var name: String? = nil
    if let n = params["name"], !n.isNull {
      guard let s = n.string, s.utf8.count <= 128 else {
        return .failure(RequestError(.invalidParams, "\"name\" must be a string of at most 128 bytes"))
      }
      name = s
    }
    var accuracy: Meters? = nil
    if let a = params["accuracy"], !a.isNull {
      guard let m = a.number, m >= 0, m <= 20_000_000 else {
        return .failure(RequestError(.invalidParams, "\"accuracy\" must be 0..20000000 metres"))
      }
      accuracy = Meters(m)
    }
    return .success(.setLocation(coordinate, name: name, accuracy: accuracy))
  }

  static func locate(_ params: JSONObject) -> Result<Request, RequestError> {
    for key in params.keys where !["timeout", "accuracy"].contains(key) {
      return .failure(
        RequestError(
          .invalidParams, "unknown parameter \"\(key)\"; locate takes \"timeout\" and \"accuracy\""))
    }
    var timeout: Duration? = nil
    if let t = params["timeout"], !t.isNull {
      guard let seconds = t.number, seconds >= 0, seconds <= 3600 else {
        return .failure(RequestError(.invalidParams, "\"timeout\" must be 0..3600 seconds"))
      }
      timeout = .milliseconds(Int64((seconds * 1000).rounded()))
    }
    var accuracy: Meters? = nil
    if let a = params["accuracy"], !a.isNull {
      guard let m = a.number, m > 0, m <= 20_000_000 else {
        return .failure(
          RequestError(.invalidParams, "\"accuracy\" must be above 0 and at most 20000000 metres"))
      }
      accuracy = Meters(m)
    }
    return .success(.locate(timeout: timeout, accuracy: accuracy))
  }

  static func timer(_ method: String, _ params: JSONObject) -> Result<Request, RequestError> {
    guard let name = params["name"]?.string, TimerDefinition.isValidName(name) else {
      return .failure(
        RequestError(.invalidParams, "\"name\" must be a timer name: letters, digits, _ . @ -, at most 64"))
    }
    if method == "show-timer" { return .success(.showTimer(name)) }
    if method == "remove-timer" { return .success(.removeTimer(name)) }
    guard let text = params["rule"]?.string, text.utf8.count <= 256 else {
      return .failure(RequestError(.invalidParams, "add-timer needs \"rule\", e.g. \"sunset-30m Mon-Fri\""))
    }
    let rule: TimerRule
    do { rule = try TimerRule(parsing: text) } catch {
      return .failure(RequestError(.invalidParams, error.description))
    }
    var action = TimerAction.event
    if let u = params["unit"], !u.isNull {
      guard let unit = u.string, TimerAction.isValidUnitName(unit) else {
        return .failure(
          RequestError(.invalidParams, "\"unit\" must be a unit name such as night-mode.service"))
      }
      action = .startUnit(unit)
    }
    var missed = MissedEventPolicy.skip
    if let m = params["missed"], !m.isNull {
      guard let p = m.string.flatMap(MissedEventPolicy.init(rawValue:)) else {
        return .failure(RequestError(.invalidParams, "\"missed\" must be skip, once or all"))
      }
      missed = p
    }
    for key in params.keys where !["name", "rule", "unit", "missed"].contains(key) {
      return .failure(
        RequestError(.invalidParams, "unknown parameter \"\(key)\" (runtime timers have no commands)"))
    }
    let definition = TimerDefinition(name: name, rule: rule, action: action, missed: missed, origin: .runtime)
    return .success(.addTimer(definition))
  }

  static func beacons(_ method: String, _ params: JSONObject) -> Result<Request, RequestError> {
    let allowed = method == "monitor-beacons" ? ["constraint", "exitAfter"] : ["constraint"]
    for key in params.keys where !allowed.contains(key) {
      return .failure(
        RequestError(
          .invalidParams, "unknown parameter \"\(key)\"; \(method) takes \(allowed.joined(separator: ", "))"))
    }
    guard let text = params["constraint"]?.string, text.utf8.count <= 64, let c = BeaconConstraint(text)
    else {
      return .failure(
        RequestError(
          .invalidParams, "\(method) needs \"constraint\": UUID, UUID:MAJOR or UUID:MAJOR:MINOR (0-65535)"))
    }
    switch method {
    case "range-beacons": return .success(.rangeBeacons(c))
    case "stop-ranging-beacons": return .success(.stopRangingBeacons(c))
    case "stop-monitoring-beacons": return .success(.stopMonitoringBeacons(c))
    default: break
    }
    var exitAfter: Duration? = nil
    if let e = params["exitAfter"], !e.isNull {
      // At least 1 ms: the value is kept in milliseconds, and one that rounds to 0 would be
      // a monitor that exits at once (and a request its own client could not send again).
      guard let seconds = e.number, seconds >= 0.001, seconds <= 86400 else {
        return .failure(
          RequestError(.invalidParams, "\"exitAfter\" must be at least 0.001 and at most 86400 seconds"))
      }
      exitAfter = .milliseconds(Int64((seconds * 1000).rounded()))
    }
    return .success(.monitorBeacons(c, exitAfter: exitAfter))
  }

  /// `wait`: exactly one of `rule` (a timer rule) and `event` (`timezone-changed`).
  static func wait(_ params: JSONObject) -> Result<Request, RequestError> {
    for key in params.keys where !["rule", "event"].contains(key) {
      return .failure(
        RequestError(
          .invalidParams, "unknown parameter \"\(key.prefix(64))\"; wait takes \"rule\" or \"event\""))
    }
    switch (params["rule"], params["event"]) {
    case (let rule?, nil):
      guard let text = rule.string, text.utf8.count <= 256 else {
        return .failure(RequestError(.invalidParams, "\"rule\" must be a timer rule such as \"sunset-30m\""))
      }
      do { return .success(.wait(.rule(try TimerRule(parsing: text)))) } catch {
        return .failure(RequestError(.invalidParams, "\"rule\": \(error)"))
      }
    case (nil, .string(EventKind.timezoneChanged.rawValue)?):
      return .success(.wait(.timezoneChange))
    case (nil, let event?):
      return .failure(
        RequestError(
          .invalidParams,
          "\"event\" \(event.serialized.prefix(64)) cannot be waited for; use \"timezone-changed\""))
    default:
      return .failure(RequestError(.invalidParams, "wait needs one of \"rule\" and \"event\""))
    }
  }
}
