/// A request after the protocol layer decoded and validated its shape.
public enum Request: Sendable, Hashable {
  /// The full status.
  case status
  /// Start pushing these kinds of events.
  case subscribe(Set<EventKind>)
  /// Stop pushing these kinds.
  case unsubscribe(Set<EventKind>)
  /// Set the manual location.
  case setLocation(Coordinate, name: String?, accuracy: Meters?)
  /// Forget the manual location.
  case clearLocation
  /// Reload the configuration file.
  case reload
  /// Every timer with its next deadline.
  case listTimers
  /// Each source's latest satellites.
  case sky
  /// One timer.
  case showTimer(String)
  /// Add a runtime timer (event and unit actions only).
  case addTimer(TimerDefinition)
  /// Remove a runtime timer.
  case removeTimer(String)
  /// The best position within `timeout` (nil: the policy's), waiting for a fresh fix at
  /// least `accuracy` accurate (nil: the policy's); answered when one comes or at the timeout.
  case locate(timeout: Duration?, accuracy: Meters?)
  /// Acquire a fresh fix now (`locctl refresh`).
  case refresh
  /// An app asks to use the location, saying why.
  case requestAuthorization(AuthorizationLevel, purpose: String)
  /// An app granted reduced accuracy asks for full accuracy until it is no longer in use,
  /// saying why (Core Location's requestTemporaryFullAccuracyAuthorization).
  case requestTemporaryFullAccuracy(purpose: String)
  /// An app says whether it is in the foreground.
  case setActivity(AppActivity)
  /// An app starts location updates.
  case startUpdates(AppSession.Updates)
  /// An app stops them.
  case stopUpdates
  /// The session becomes the agent of its user.
  case registerAgent
  /// The agent answers a prompt (`precise`: full accuracy).
  case answerPrompt(PromptID, AgentAnswer, precise: Bool)
  /// The apps of a user (nil: the caller's own; an admin's: everyone's).
  case listApps(uid: UInt32?)
  /// Grant, deny or reset an app of a user (nil: the caller).
  case changeApp(AppID, uid: UInt32?, AppChange)
  /// Start ranging beacons matching the constraint (about once a second, to this session).
  case rangeBeacons(BeaconConstraint)
  /// Stop ranging them.
  case stopRangingBeacons(BeaconConstraint)
  /// Start monitoring the beacon region of the constraint (nil: ExitAfter's default, 30 s).
  case monitorBeacons(BeaconConstraint, exitAfter: Duration?)
  /// Stop monitoring it.
  case stopMonitoringBeacons(BeaconConstraint)
  /// Answer when a rule's next occurrence comes, or the zone changes (`locctl wait`).
  case wait(WaitTarget)
  /// `register-region` (app sessions).
  case registerRegion(CircularRegion)
  /// `unregister-region` (app sessions).
  case unregisterRegion(RegionID)
  /// `region-state`: one region's state, or every region of the app (nil).
  case regionState(RegionID?)
  /// `monitor-visits`: start (true) or stop.
  case monitorVisits(Bool)
  /// `set-launch-unit`: the service started for an always app's waiting events (nil: none).
  case setLaunchUnit(String?)
  /// `start-heading`: the compass's heading to this session, each time it turned at least
  /// `filter` degrees (0: every reading) from the heading the session was last given.
  case startHeading(filter: Double)
  /// `stop-heading`.
  case stopHeading
  /// `light-dark`: the caller's light/dark schedule (docs/LIGHTDARK.md), after taking `rules`
  /// as its user's (nil: keep them); with `follow`, `light-dark` events to this session
  /// whenever it changes.
  case lightDark(rules: LightDarkRules?, follow: Bool)
  /// `set-mode`: the caller's mode set by hand until the next transition, toggled, or back to
  /// the schedule (`auto`).
  case setMode(ModeChange)
}

/// What `locctl apps grant|deny|reset` does to an app.
public enum AppChange: Sendable, Hashable {
  /// Grant `level` at `accuracy` (capped by the policy).
  case grant(AuthorizationLevel, AccuracyAuthorization)
  /// Deny.
  case deny
  /// Forget the decision and registrations: the app may ask again.
  case reset
}

extension Request {
  /// Whether the session asks to be told of changes to its light/dark schedule from now on
  /// (`light-dark` with `follow`): such a session waits for events, as an agent does.
  public var follows: Bool {
    if case .lightDark(_, follow: true) = self { return true }
    return false
  }

  /// Whether answering changes nothing in the engine (`status`, `sky`): such a request is
  /// answered without the end-of-event bookkeeping (`EngineEvent.needsBookkeeping`).
  var onlyReads: Bool {
    switch self {
    case .status, .sky: return true
    default: return false
    }
  }
}
