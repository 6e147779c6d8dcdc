/// Kinds of pushed events a session can subscribe to.
public enum EventKind: String, Sendable, Hashable, CaseIterable, Comparable {
  /// Each accepted fix, and each change of the resolved position's tier.
  case location
  /// A significant move (or a change of zone).
  case significantChange = "significant-change"
  /// The time zone changed.
  case timezoneChanged = "timezone-changed"
  /// Solar days were recomputed.
  case solarRegenerated = "solar-regenerated"
  /// A timer fired.
  case timerFired = "timer-fired"
  /// A source connected, was lost, or failed.
  case sourceStatus = "source-status"
  /// Acquisition changed phase (idle, acquiring, settled), with the reason.
  case acquisition
  /// A source's sky changed (at most once a second per source).
  case sky
  /// An app's own authorization changed (app sessions only).
  case authorization
  /// A prompt for the agent (sessions registered as an agent only).
  case agentPrompt = "agent-prompt"
  /// The session's own access changed (a reload); also sent, unasked, to a session that
  /// loses a subscription through the change.
  case accessChanged = "access-changed"
  /// The replay of `locd --clock replay` reached its end.
  case simulationFinished = "simulation-finished"
  /// One of the app's own regions was entered, left or dwelled in (app sessions only).
  case region
  /// The device arrived at or left a place it stays at (apps that monitor visits).
  case visit
  public static func < (a: EventKind, b: EventKind) -> Bool { a.rawValue < b.rawValue }
}

/// A pushed event's payload.
public enum Notice: Sendable, Hashable {
  /// The resolved position, after a fix or a tier change.
  case location(ResolvedPosition, fix: Fix?)
  /// Moved from `from` to `to` by `distance`.
  case significantChange(from: Position?, to: Position, distance: Meters?)
  /// A source changed state.
  case sourceStatus(SourceSnapshot)
  /// The time zone in effect or its UTC offset changed.
  case timezoneChanged(ZoneChange)
  /// Today's and tomorrow's solar days were recomputed.
  case solarRegenerated(SolarRegeneration)
  /// A timer fired; `zone` is the zone its deadline was planned in, `local` the deadline on
  /// that zone's wall clock.
  case timerFired(TimerFiring, zone: String, local: LocalDateTime)
  /// Acquisition changed phase.
  case acquisition(AcquisitionChange)
  /// A source's satellites changed.
  case sky(SourceSky)
  /// An app's authorization, as it is told.
  case authorization(AppStatusReport)
  /// A prompt put to an agent.
  case agentPrompt(AppPrompt)
  /// A prompt taken back from an agent, and why.
  case agentPromptWithdrawn(PromptID, reason: String)
  /// The receiving session's access changed.
  case accessChanged(AccessChange)
  /// A monitored beacon region changed (sent to the session that monitors it).
  case beaconRegion(BeaconConstraint, BeaconRegionEvent, state: BeaconRegionState)
  /// A ranging list, nearest first (sent to the session that ranges).
  case beaconsRanged(BeaconConstraint, [RangedBeacon])
  /// The replay of `locd --clock replay` reached its end.
  case simulationFinished(SimulationReport)
  /// One of an app's regions changed (sent to that app's sessions only).
  case region(RegionNotice)
  /// A visit began or ended (sent to the apps that monitor visits).
  case visit(VisitEvent)
  /// The compass's heading (sent to the session that started heading updates).
  case heading(HeadingReading)
  /// A user's light/dark schedule changed (sent to the sessions that follow it).
  case lightDark(LightDarkSchedule, reason: LightDarkReason)

  /// The kind a subscriber asks for to get this; nil for notices that go to the session
  /// that asked for them (beacons), not to subscribers.
  public var kind: EventKind? {
    switch self {
    case .beaconRegion, .beaconsRanged, .heading, .lightDark: return nil
    case .location: return .location
    case .significantChange: return .significantChange
    case .sourceStatus: return .sourceStatus
    case .timezoneChanged: return .timezoneChanged
    case .solarRegenerated: return .solarRegenerated
    case .timerFired: return .timerFired
    case .acquisition: return .acquisition
    case .sky: return .sky
    case .authorization: return .authorization
    case .agentPrompt, .agentPromptWithdrawn: return .agentPrompt
    case .accessChanged: return .accessChanged
    case .simulationFinished: return .simulationFinished
    case .region: return .region
    case .visit: return .visit
    }
  }
}
