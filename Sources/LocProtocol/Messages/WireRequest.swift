import LocCore

/// A request line: a `hello`, or a request for the engine. The daemon decodes it
/// (`decode`), clients encode it (`line(id:)`), and `decode(line(id: i)) == (i, self)` for
/// every request a client can make (durations to the millisecond, runtime timers).
public enum WireRequest: Sendable, Hashable {
  /// The client's handshake: the protocol major version it speaks, the app id it says it is
  /// (nil: not an app; docs/APPS.md) and its name for logs.
  case hello(protocolMajor: Int, app: String?, client: String?)
  /// Anything else, for the engine.
  case request(Request)

  /// Every method name, for `unknown-method` answers and the docs.
  public static let methods = [
    "hello", "status", "subscribe", "unsubscribe", "set-location", "clear-location", "reload", "list-timers",
    "show-timer", "add-timer", "remove-timer", "locate", "refresh", "request-authorization",
    "request-temporary-full-accuracy", "set-activity",
    "start-updates", "stop-updates", "agent-register", "agent-answer", "list-apps", "change-app",
    "range-beacons", "stop-ranging-beacons",
    "monitor-beacons", "stop-monitoring-beacons", "wait", "register-region", "unregister-region",
    "region-state", "monitor-visits", "set-launch-unit", "sky", "start-heading", "stop-heading",
    "light-dark", "set-mode",
  ]

  /// The method's name.
  public var method: String {
    guard case .request(let r) = self else { return "hello" }
    switch r {
    case .status: return "status"
    case .subscribe: return "subscribe"
    case .unsubscribe: return "unsubscribe"
    case .setLocation: return "set-location"
    case .clearLocation: return "clear-location"
    case .reload: return "reload"
    case .listTimers: return "list-timers"
    case .sky: return "sky"
    case .showTimer: return "show-timer"
    case .addTimer: return "add-timer"
    case .removeTimer: return "remove-timer"
    case .locate: return "locate"
    case .refresh: return "refresh"
    case .requestAuthorization: return "request-authorization"
    case .requestTemporaryFullAccuracy: return "request-temporary-full-accuracy"
    case .setActivity: return "set-activity"
    case .startUpdates: return "start-updates"
    case .stopUpdates: return "stop-updates"
    case .registerAgent: return "agent-register"
    case .answerPrompt: return "agent-answer"
    case .listApps: return "list-apps"
    case .changeApp: return "change-app"
    case .rangeBeacons: return "range-beacons"
    case .stopRangingBeacons: return "stop-ranging-beacons"
    case .monitorBeacons: return "monitor-beacons"
    case .stopMonitoringBeacons: return "stop-monitoring-beacons"
    case .wait: return "wait"
    case .registerRegion: return "register-region"
    case .unregisterRegion: return "unregister-region"
    case .regionState: return "region-state"
    case .monitorVisits: return "monitor-visits"
    case .setLaunchUnit: return "set-launch-unit"
    case .startHeading: return "start-heading"
    case .stopHeading: return "stop-heading"
    case .lightDark: return "light-dark"
    case .setMode: return "set-mode"
    }
  }

  /// The `params` object.
  public var params: JSONObject {
    switch self {
    case .hello(let major, let app, let client):
      var o: JSONObject = ["protocol": .int(major)]
      if let app { o["app"] = .string(app) }
      if let client { o["client"] = .string(client) }
      return o
    case .request(let r): return WireRequest.params(r)
    }
  }

  /// The request line for id `id`, without its newline.
  public func line(id: RequestID) -> String {
    JSON.object(["id": id.json, "method": .string(method), "params": .object(params)]).serialized
  }

  static func params(_ r: Request) -> JSONObject {
    switch r {
    case .status, .clearLocation, .reload, .listTimers, .refresh, .stopUpdates, .registerAgent, .sky,
      .stopHeading:
      return [:]
    case .startHeading(let filter): return ["filter": .number(filter)]
    case .lightDark, .setMode: return lightDarkParams(r)
    case .requestAuthorization, .requestTemporaryFullAccuracy, .setActivity, .startUpdates, .answerPrompt,
      .listApps, .changeApp:
      return appParams(r)
    case .subscribe(let kinds), .unsubscribe(let kinds):
      if kinds == Set(EventKind.allCases) { return ["events": .string("all")] }
      return ["events": .array(kinds.sorted().map { .string($0.rawValue) })]
    case .setLocation(let c, let name, let accuracy):
      var o: JSONObject = ["lat": .number(c.latitude.value), "lon": .number(c.longitude.value)]
      if let name { o["name"] = .string(name) }
      if let accuracy { o["accuracy"] = .number(accuracy.value) }
      return o
    case .showTimer(let name), .removeTimer(let name): return ["name": .string(name)]
    case .addTimer(let t):
      var o: JSONObject = ["name": .string(t.name), "rule": .string(t.rule.description)]
      switch t.action {
      case .event: break
      case .startUnit(let unit): o["unit"] = .string(unit)
      // Sent as asked; the daemon refuses it (runtime timers have no commands).
      case .command(let argv, _): o["command"] = .array(argv.map { .string($0) })
      }
      if t.missed != .skip { o["missed"] = .string(t.missed.rawValue) }
      return o
    case .rangeBeacons(let c), .stopRangingBeacons(let c), .stopMonitoringBeacons(let c):
      return ["constraint": .string(c.description)]
    case .monitorBeacons(let c, let exitAfter):
      var o: JSONObject = ["constraint": .string(c.description)]
      if let exitAfter { o["exitAfter"] = .number(exitAfter.seconds) }
      return o
    case .locate(let timeout, let accuracy):
      var o = JSONObject()
      if let timeout { o["timeout"] = .number(timeout.seconds) }
      if let accuracy { o["accuracy"] = .number(accuracy.value) }
      return o
    case .wait(.rule(let rule)): return ["rule": .string(rule.description)]
    case .wait(.timezoneChange): return ["event": .string(EventKind.timezoneChanged.rawValue)]
    case .registerRegion, .unregisterRegion, .regionState, .monitorVisits, .setLaunchUnit:
      return regionParams(r)
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
