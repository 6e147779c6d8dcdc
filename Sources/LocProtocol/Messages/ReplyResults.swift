import LocCore

// The `result` objects of the replies whose result is not a view of its own
// (docs/PROTOCOL.md, "Methods"); `status` answers with `StatusView`, `locate` with
// `LocateView`.

/// The answer to `hello`: the session's number, its access level and the server's version.
public struct HelloResult: WireCodable {
  /// The session's number, unique for the daemon's lifetime.
  public var session: UInt64
  /// What the session may do.
  public var access: AccessLevel
  /// The protocol version the server speaks.
  public var version: ProtocolVersion
  /// For an app's session: who it is and its authorization (1.2).
  public var app: AppStatusView?
  /// The peer's systemd unit, when it is in one (1.2).
  public var unit: String?
  /// The daemon's now, to the microsecond: the clock its times are on, simulated under
  /// `locd --clock replay` (1.6; nil from an older daemon).
  public var now: Instant?

  /// A result.
  public init(
    session: UInt64, access: AccessLevel, version: ProtocolVersion = .current, app: AppStatusView? = nil,
    unit: String? = nil, now: Instant? = nil
  ) {
    self.session = session
    self.access = access
    self.version = version
    self.app = app
    self.unit = unit
    self.now = now
  }

  /// The wire form of the engine's answer.
  public init(_ a: HelloAnswer) {
    self.init(
      session: a.session.raw, access: a.access, app: a.app.map(AppStatusView.init), unit: a.unit, now: a.now)
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    let n = try o.int("session")
    guard n >= 0 else { throw o.error("session", "must not be negative") }
    session = UInt64(n)
    access = try o.word("access", AccessLevel.Name.self).level
    version = try ProtocolVersion(o.object("protocol"))
    app = try o.optionalDecode("app")
    unit = try o.optionalString("unit")
    now = try o.optionalInstant("now")
  }

  public var json: JSON {
    var o: JSONObject = [
      "session": .number(Double(session)), "access": .string(AccessLevel.Name(access).rawValue),
      "protocol": version.json,
    ]
    if let app { o["app"] = app.json }
    if let unit { o["unit"] = .string(unit) }
    if let now { o["now"] = WireFormat.time(now, 6) }
    return .object(o)
  }
}

extension AccessLevel {
  /// The access level's name on the wire: `none`, `read`, `admin`.
  public enum Name: String, Sendable, Hashable, CaseIterable {
    case none, read, admin

    /// The name of `level`.
    public init(_ level: AccessLevel) {
      switch level {
      case .none: self = .none
      case .read: self = .read
      case .admin: self = .admin
      }
    }

    /// The level it names.
    public var level: AccessLevel {
      switch self {
      case .none: return .none
      case .read: return .read
      case .admin: return .admin
      }
    }
  }
}

/// `{}`: the answer to `reload` and `remove-timer`.
public struct EmptyResult: WireCodable {
  /// The empty result.
  public init() {}

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    _ = try WireObject(json, path: path)
  }

  public var json: JSON { .object([:]) }
}

/// The answer to `subscribe` and `unsubscribe`: the session's kinds now.
public struct SubscriptionsResult: WireCodable {
  /// The kinds subscribed to (kinds this build does not know are left out).
  public var events: Set<EventKind>

  /// A result.
  public init(events: Set<EventKind>) { self.events = events }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    events = Set(try o.strings("events").compactMap(EventKind.init(rawValue:)))
  }

  public var json: JSON { .object(["events": .array(events.sorted().map { .string($0.rawValue) })]) }
}

/// The answer to `set-location` and `clear-location`: the manual location in effect and,
/// since 1.2, the one before (null when there was none), full precision.
public struct ManualLocationResult: WireCodable {
  /// The manual location, nil after clearing.
  public var manual: PositionView?
  /// The manual location before the request; nil when none was set (also from a 1.1 daemon).
  public var previous: PositionView?

  /// A result.
  public init(manual: PositionView?, previous: PositionView? = nil) {
    self.manual = manual
    self.previous = previous
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    manual = try o.optionalDecode("manual")
    previous = try o.optionalDecode("previous")
  }

  public var json: JSON { .object(["manual": manual?.json ?? .null, "previous": previous?.json ?? .null]) }
}

/// The answer to `list-timers`: every timer, and the timer files that could not be used.
public struct TimerListResult: WireCodable {
  /// The timers.
  public var timers: [TimerView]
  /// Problems of timer files, each `file:line: message`.
  public var problems: [String]
  /// The daemon's now, to the microsecond, that the deadlines are planned against (simulated
  /// under `locd --clock replay`; 1.6, nil from an older daemon).
  public var now: Instant?

  /// A result.
  public init(timers: [TimerView], problems: [String], now: Instant? = nil) {
    self.timers = timers
    self.problems = problems
    self.now = now
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    timers = try o.array("timers")
    problems = try o.strings("problems")
    now = try o.optionalInstant("now")
  }

  public var json: JSON {
    var o: JSONObject = [
      "timers": .array(timers.map(\.json)), "problems": .array(problems.map { .string($0) }),
    ]
    if let now { o["now"] = WireFormat.time(now, 6) }
    return .object(o)
  }
}

/// The answer to `show-timer` and `add-timer`.
public struct TimerResult: WireCodable {
  /// The timer.
  public var timer: TimerView

  /// A result.
  public init(timer: TimerView) { self.timer = timer }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    timer = try WireObject(json, path: path).decode("timer")
  }

  public var json: JSON { .object(["timer": timer.json]) }
}

/// The answer to `refresh`: the acquisition object after the request.
public struct AcquisitionResult: WireCodable {
  /// The acquisition state.
  public var acquisition: AcquisitionView

  /// A result.
  public init(acquisition: AcquisitionView) { self.acquisition = acquisition }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    acquisition = try WireObject(json, path: path).decode("acquisition")
  }

  public var json: JSON { .object(["acquisition": acquisition.json]) }
}

extension Response {
  /// The reply's `result` object for this response, through its view.
  public var result: JSON {
    switch self {
    case .status(let report): return StatusView(report).json
    case .subscriptions(let kinds): return SubscriptionsResult(events: kinds).json
    case .manualLocation(let p, let previous):
      return ManualLocationResult(
        manual: p.map { PositionView($0, rounded: false) },
        previous: previous.map { PositionView($0, rounded: false) }
      ).json
    case .done: return EmptyResult().json
    case .timers(let list, let problems, let now):
      return TimerListResult(timers: list.map(TimerView.init), problems: problems, now: now).json
    case .timer(let status): return TimerResult(timer: TimerView(status)).json
    case .skies(let list): return SkyResult(skies: list.map(SkyView.init)).json
    case .located(let answer): return LocateView(answer).json
    case .acquisition(let report): return AcquisitionResult(acquisition: AcquisitionView(report)).json
    case .hello(let answer): return HelloResult(answer).json
    case .appStatus(let report): return AuthorizationResult(authorization: AppStatusView(report)).json
    case .agent(let uid, let pending): return AgentResult(uid: uid, pending: pending).json
    case .apps(let list): return AppListResult(apps: list.map(AppListingView.init)).json
    case .app(let listing): return AppResult(app: AppListingView(listing)).json
    case .beaconRanging(let c): return BeaconRangingResult(constraint: c).json
    case .beaconMonitor(let c, let state, let exitAfter):
      return BeaconMonitorResult(constraint: c, state: state, exitAfter: exitAfter).json
    case .waited(let outcome): return WaitResult(outcome).json
    case .regions(let list): return RegionsResult(regions: list.map(RegionView.init)).json
    case .lightDark(let schedule): return LightDarkView(schedule).json
    }
  }
}
