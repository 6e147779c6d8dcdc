/// What `locctl status` (and the `refresh` reply) shows about acquisition.
public struct AcquisitionReport: Sendable, Hashable {
  /// The policy in effect.
  public var policy: Acquisition.Policy
  /// `idle` or `acquiring`.
  public var phase: Acquisition.Stage
  /// When the current attempt began (acquiring only).
  public var since: Instant?
  /// When the current attempt gives up (nil: idle, or held open).
  public var deadline: Instant?
  /// What keeps acquisition going (sorted by name); empty when idle.
  public var reasons: [Acquisition.Trigger]
  /// The last change of phase.
  public var lastTransition: Acquisition.Transition?
  /// How the last attempt ended.
  public var lastOutcome: Acquisition.Outcome?
  /// When the next refresh is due (idle only).
  public var nextRefresh: Instant?
  /// Consecutive timeouts (the back-off counts them).
  public var failures: Int
  /// Attempts since the daemon started.
  public var attempts: Int
  /// Sessions subscribed to `location` (continuous updates), which hold acquisition open.
  public var subscribers: Int
  /// `locate` requests waiting for a fix.
  public var pendingLocates: Int

  /// Whether receivers are kept powered now.
  public var receiversActive: Bool { phase == .acquiring }
}

/// An `acquisition` event: a change of phase and the state after it.
public struct AcquisitionChange: Sendable, Hashable {
  /// The change.
  public var transition: Acquisition.Transition
  /// The state after it.
  public var report: AcquisitionReport

  /// A change.
  public init(transition: Acquisition.Transition, report: AcquisitionReport) {
    self.transition = transition
    self.report = report
  }
}
