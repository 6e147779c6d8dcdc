import LocCore

/// A request together with the type of its reply's `result`: what a client sends and what
/// it decodes the answer into (docs/PROTOCOL.md, "Methods"). `ControlClient` and the client
/// library take these, so no client reads a result member by its name.
public struct Call<Result: WireCodable>: Sendable, Hashable {
  /// The request.
  public var request: WireRequest

  /// A call of `request` whose result is a `Result`; the static members below pair each
  /// method with its result type.
  init(_ request: WireRequest) { self.request = request }

  /// Decodes the reply's `result`.
  public func result(_ json: JSON) throws(WireDecodingError) -> Result {
    try Result(json: json, path: WirePath().member("result"))
  }
}

extension Call where Result == HelloResult {
  /// `hello`: the major version the client speaks, the app id it says it is (nil: not an
  /// app) and its name for logs.
  public static func hello(
    protocolMajor: Int = ProtocolVersion.major, app: String? = nil, client: String? = nil
  )
    -> Call
  {
    Call(.hello(protocolMajor: protocolMajor, app: app, client: client))
  }
}

extension Call where Result == StatusView {
  /// `status`.
  public static var status: Call { Call(.request(.status)) }
}

extension Call where Result == SubscriptionsResult {
  /// `subscribe` to `events` (every kind: `"all"`).
  public static func subscribe(_ events: Set<EventKind>) -> Call { Call(.request(.subscribe(events))) }
  /// `unsubscribe` from `events`.
  public static func unsubscribe(_ events: Set<EventKind>) -> Call { Call(.request(.unsubscribe(events))) }
}

extension Call where Result == ManualLocationResult {
  /// `set-location` (admin).
  public static func setLocation(_ coordinate: Coordinate, name: String? = nil, accuracy: Meters? = nil)
    -> Call
  {
    Call(.request(.setLocation(coordinate, name: name, accuracy: accuracy)))
  }
  /// `clear-location` (admin).
  public static var clearLocation: Call { Call(.request(.clearLocation)) }
}

extension Call where Result == EmptyResult {
  /// `stop-ranging-beacons`; error `not-found` when the session does not range `constraint`.
  public static func stopRangingBeacons(_ constraint: BeaconConstraint) -> Call {
    Call(.request(.stopRangingBeacons(constraint)))
  }
  /// `stop-monitoring-beacons`; error `not-found` when the session does not monitor it.
  public static func stopMonitoringBeacons(_ constraint: BeaconConstraint) -> Call {
    Call(.request(.stopMonitoringBeacons(constraint)))
  }
  /// `reload` (admin).
  public static var reload: Call { Call(.request(.reload)) }
  /// `remove-timer` (admin).
  public static func removeTimer(_ name: String) -> Call { Call(.request(.removeTimer(name))) }
  /// `start-heading`: `heading` events each time the compass turned at least `filter`
  /// degrees (0: every reading; 0 to 180).
  public static func startHeading(filter: Double = WireRequest.defaultHeadingFilter) -> Call {
    Call(.request(.startHeading(filter: filter)))
  }
  /// `stop-heading`; error `not-found` when the session did not start heading updates.
  public static var stopHeading: Call { Call(.request(.stopHeading)) }
}

extension Call where Result == LightDarkView {
  /// `light-dark` (1.10): the caller's light/dark schedule, after making `rules` its user's
  /// (nil: keep them); with `follow`, `light-dark` events whenever it changes.
  public static func lightDark(rules: LightDarkRules? = nil, follow: Bool = false) -> Call {
    Call(.request(.lightDark(rules: rules, follow: follow)))
  }
  /// `set-mode` (1.10): the caller's mode by hand until the next transition, or back to the
  /// schedule (`auto`).
  public static func setMode(_ change: ModeChange) -> Call { Call(.request(.setMode(change))) }
}

extension Call where Result == SkyResult {
  /// `sky` (1.7): each source's latest satellites.
  public static var sky: Call { Call(.request(.sky)) }
}

extension Call where Result == TimerListResult {
  /// `list-timers`.
  public static var listTimers: Call { Call(.request(.listTimers)) }
}

extension Call where Result == TimerResult {
  /// `show-timer`.
  public static func showTimer(_ name: String) -> Call { Call(.request(.showTimer(name))) }
  /// `add-timer` (admin): a runtime timer that pushes `timer-fired` and optionally starts a unit.
  public static func addTimer(
    _ name: String, rule: TimerRule, unit: String? = nil, missed: MissedEventPolicy = .skip
  ) -> Call {
    let action = unit.map(TimerAction.startUnit) ?? .event
    return Call(.request(.addTimer(TimerDefinition(name: name, rule: rule, action: action, missed: missed))))
  }
}

extension Call where Result == LocateView {
  /// `locate`: nil takes the daemon's configured `Timeout=` and `Accuracy=`.
  public static func locate(timeout: Duration? = nil, accuracy: Meters? = nil) -> Call {
    Call(.request(.locate(timeout: timeout, accuracy: accuracy)))
  }
}

extension Call where Result == AcquisitionResult {
  /// `refresh`.
  public static var refresh: Call { Call(.request(.refresh)) }
}

extension Call where Result == BeaconRangingResult {
  /// `range-beacons`: `beacons-ranged` events about once a second until stopped.
  public static func rangeBeacons(_ constraint: BeaconConstraint) -> Call {
    Call(.request(.rangeBeacons(constraint)))
  }
}

extension Call where Result == BeaconMonitorResult {
  /// `monitor-beacons`: `beacon-region` events; nil takes the default ExitAfter (30 s).
  public static func monitorBeacons(_ constraint: BeaconConstraint, exitAfter: Duration? = nil) -> Call {
    Call(.request(.monitorBeacons(constraint, exitAfter: exitAfter)))
  }
}

extension Call where Result == WaitResult {
  /// `wait` (1.2): answered when the rule's next occurrence comes or the zone changes.
  public static func wait(_ target: WaitTarget) -> Call { Call(.request(.wait(target))) }
}

extension Call where Result == RegionsResult {
  /// `register-region` (1.3, app sessions): answered with the region, state `unknown`.
  public static func registerRegion(_ region: CircularRegion) -> Call {
    Call(.request(.registerRegion(region)))
  }
  /// `region-state` (1.3): one region's state now, or every region of the app (nil).
  public static func regionState(_ id: RegionID? = nil) -> Call { Call(.request(.regionState(id))) }
}

extension Call where Result == EmptyResult {
  /// `unregister-region` (1.3); error `not-found` when the app has no such region.
  public static func unregisterRegion(_ id: RegionID) -> Call { Call(.request(.unregisterRegion(id))) }
  /// `monitor-visits` (1.3): start (true) or stop `visit` events.
  public static func monitorVisits(_ on: Bool) -> Call { Call(.request(.monitorVisits(on))) }
  /// `set-launch-unit` (1.3): the service locd starts when an event waits for the app and it
  /// is not connected (nil: none).
  public static func setLaunchUnit(_ unit: String?) -> Call { Call(.request(.setLaunchUnit(unit))) }
}
