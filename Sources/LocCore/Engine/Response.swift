/// A successful answer.
public enum Response: Sendable, Hashable {
  /// The status report.
  case status(StatusReport)
  /// The session's subscriptions after the change.
  case subscriptions(Set<EventKind>)
  /// The manual location now in effect (nil after clearing), and the one before.
  case manualLocation(Position?, previous: Position?)
  /// Done, nothing to report.
  case done
  /// Every timer, the problems of timer files that could not be loaded, and the engine's now
  /// (the simulated one under `--clock replay`) the deadlines are planned against.
  case timers([TimerStatus], problems: [String], now: Instant)
  /// One timer.
  case timer(TimerStatus)
  /// Each source's latest sky (`sky`).
  case skies([SourceSky])
  /// The answer to `locate`.
  case located(LocateAnswer)
  /// The acquisition state (after `refresh`).
  case acquisition(AcquisitionReport)
  /// The answer to `hello`.
  case hello(HelloAnswer)
  /// An app's authorization.
  case appStatus(AppStatusReport)
  /// The agent is registered for `uid`; `pending` prompts wait.
  case agent(uid: UInt32, pending: Int)
  /// Apps, in key order.
  case apps([AppListing])
  /// One app after a change.
  case app(AppListing)
  /// Ranging of the constraint started (or went on).
  case beaconRanging(BeaconConstraint)
  /// Monitoring of the constraint started (or restarted): the region's state now.
  case beaconMonitor(BeaconConstraint, state: BeaconRegionState, exitAfter: Duration)
  /// What a `wait` waited for happened.
  case waited(WaitOutcome)
  /// An app's regions with their states (`register-region`, `region-state`).
  case regions([RegionMonitor.Monitored])
  /// A user's light/dark schedule (`light-dark`, `set-mode`).
  case lightDark(LightDarkSchedule)
}

/// The answer to `hello`.
public struct HelloAnswer: Sendable, Hashable {
  /// The session's number.
  public var session: SessionID
  /// What it may do (for an app session: what its uid may do without an app id; apps get
  /// the position only through their authorization).
  public var access: AccessLevel
  /// For an app session: who it is and its authorization.
  public var app: AppStatusReport?
  /// The peer's unit, when it is in one (shown to plain sessions too).
  public var unit: String?
  /// The engine's now (simulated under `--clock replay`); nil only in answers made outside
  /// the engine.
  public var now: Instant? = nil
}
