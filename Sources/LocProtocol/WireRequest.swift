import LocCore

/// A request line decoded: a `hello`, or a request for the engine.
public enum WireRequest: Sendable, Hashable {
  /// The client's handshake: the protocol major version it speaks and its name.
  case hello(protocolMajor: Int, app: String?)
  /// Anything else, for the engine.
  case request(Request)

  /// Every method name, for `unknown-method` answers and the docs.
  public static let methods = [
    "hello", "status", "subscribe", "unsubscribe", "set-location", "clear-location", "reload", "list-timers",
    "show-timer", "add-timer", "remove-timer", "locate", "refresh",
  ]

  /// Decodes one request line (without its newline). On failure returns the id if one
  /// could be read, so the error can still be matched to the request.
  public static func decode(_ line: some Collection<UInt8>) -> Result<
    (RequestID, WireRequest), WireRequestFailure
  > {
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
    func fail(_ code: ErrorCode, _ message: String) -> Result<(RequestID, WireRequest), WireRequestFailure> {
      .failure(WireRequestFailure(id: id, error: RequestError(code, message)))
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
    switch method {
    case "hello":
      guard let major = params["protocol"]?.number, major == major.rounded(), major >= 0, major < 1000 else {
        return fail(.invalidParams, "hello needs \"protocol\": the major version the client speaks")
      }
      let app = params["app"]?.string.map { String($0.prefix(64)) }
      return .success((id, .hello(protocolMajor: Int(major), app: app)))
    case "status":
      return .success((id, .request(.status)))
    case "subscribe", "unsubscribe":
      var kinds = Set<EventKind>()
      switch params["events"] {
      case nil, .string("all")?:
        kinds = Set(EventKind.allCases)
      case .array(let names)?:
        for name in names {
          guard let s = name.string, let kind = EventKind(rawValue: s) else {
            let known = EventKind.allCases.map(\.rawValue).joined(separator: ", ")
            return fail(.invalidParams, "unknown event kind \(name.serialized); known: \(known)")
          }
          kinds.insert(kind)
        }
      default:
        return fail(.invalidParams, "\"events\" must be \"all\" or an array of event kinds")
      }
      return .success((id, .request(method == "subscribe" ? .subscribe(kinds) : .unsubscribe(kinds))))
    case "set-location":
      guard let lat = params["lat"]?.number, let lon = params["lon"]?.number else {
        return fail(.invalidParams, "set-location needs \"lat\" and \"lon\" in degrees")
      }
      guard let coordinate = Coordinate(lat: lat, lon: lon) else {
        return fail(.invalidParams, "latitude must be -90..90 and longitude -180..180")
      }
      var name: String? = nil
      if let n = params["name"], !n.isNull {
        guard let s = n.string, s.utf8.count <= 128 else {
          return fail(.invalidParams, "\"name\" must be a string of at most 128 bytes")
        }
        name = s
      }
      var accuracy: Meters? = nil
      if let a = params["accuracy"], !a.isNull {
        guard let m = a.number, m >= 0, m <= 20_000_000 else {
          return fail(.invalidParams, "\"accuracy\" must be 0..20000000 metres")
        }
        accuracy = Meters(m)
      }
      return .success((id, .request(.setLocation(coordinate, name: name, accuracy: accuracy))))
    case "clear-location":
      return .success((id, .request(.clearLocation)))
    case "reload":
      return .success((id, .request(.reload)))
    case "list-timers":
      return .success((id, .request(.listTimers)))
    case "locate":
      for key in params.keys where !["timeout", "accuracy"].contains(key) {
        return fail(.invalidParams, "unknown parameter \"\(key)\"; locate takes \"timeout\" and \"accuracy\"")
      }
      var timeout: Duration? = nil
      if let t = params["timeout"], !t.isNull {
        guard let seconds = t.number, seconds >= 0, seconds <= 3600 else {
          return fail(.invalidParams, "\"timeout\" must be 0..3600 seconds")
        }
        timeout = .milliseconds(Int64((seconds * 1000).rounded()))
      }
      var accuracy: Meters? = nil
      if let a = params["accuracy"], !a.isNull {
        guard let m = a.number, m > 0, m <= 20_000_000 else {
          return fail(.invalidParams, "\"accuracy\" must be above 0 and at most 20000000 metres")
        }
        accuracy = Meters(m)
      }
      return .success((id, .request(.locate(timeout: timeout, accuracy: accuracy))))
    case "refresh":
      return .success((id, .request(.refresh)))
    case "show-timer", "remove-timer", "add-timer":
      guard let name = params["name"]?.string, TimerDefinition.isValidName(name) else {
        return fail(.invalidParams, "\"name\" must be a timer name: letters, digits, _ . @ -, at most 64")
      }
      if method == "show-timer" { return .success((id, .request(.showTimer(name)))) }
      if method == "remove-timer" { return .success((id, .request(.removeTimer(name)))) }
      guard let text = params["rule"]?.string, text.utf8.count <= 256 else {
        return fail(.invalidParams, "add-timer needs \"rule\", e.g. \"sunset-30m Mon-Fri\"")
      }
      let rule: TimerRule
      do { rule = try TimerRule(parsing: text) } catch { return fail(.invalidParams, error.description) }
      var action = TimerAction.event
      if let u = params["unit"], !u.isNull {
        guard let unit = u.string, TimerAction.isValidUnitName(unit) else {
          return fail(.invalidParams, "\"unit\" must be a unit name such as night-mode.service")
        }
        action = .startUnit(unit)
      }
      var missed = MissedEventPolicy.skip
      if let m = params["missed"], !m.isNull {
        guard let p = m.string.flatMap(MissedEventPolicy.init(rawValue:)) else {
          return fail(.invalidParams, "\"missed\" must be skip, once or all")
        }
        missed = p
      }
      for key in params.keys where !["name", "rule", "unit", "missed"].contains(key) {
        return fail(.invalidParams, "unknown parameter \"\(key)\" (runtime timers have no commands)")
      }
      let definition = TimerDefinition(
        name: name, rule: rule, action: action, missed: missed, origin: .runtime)
      return .success((id, .request(.addTimer(definition))))
    default:
      return fail(
        .unknownMethod, "unknown method '\(method.prefix(64))'; known: \(methods.joined(separator: ", "))")
    }
  }
}

/// A request line that could not be decoded.
public struct WireRequestFailure: Error, Sendable, Hashable {
  /// The request's id, if it could be read.
  public var id: RequestID?
  /// The error to answer with.
  public var error: RequestError
}
