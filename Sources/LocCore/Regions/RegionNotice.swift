/// A region event as an app gets it (CLLocationManagerDelegate's didEnterRegion,
/// didExitRegion, Android's GEOFENCE_TRANSITION_DWELL): which region, what happened, the
/// state after it, and when. Never the region's centre: the app knows it.
public struct RegionNotice: Sendable, Hashable {
  /// What happened.
  public enum Event: String, Sendable, Hashable, CaseIterable {
    /// The device entered the region (or was found inside it at the first fix).
    case enter
    /// The device left the region.
    case exit
    /// The device has stayed inside for the region's dwell time.
    case dwell
  }

  /// The app's id for the region.
  public var id: RegionID
  /// What happened.
  public var event: Event
  /// The region's state after it.
  public var state: RegionState
  /// When it was decided: the fix that confirmed the crossing (the tick, for a dwell).
  public var at: Instant
  /// The first fix on the new side (the crossing happened before it, after the last fix on
  /// the old side); for a dwell, when the stay began.
  public var since: Instant

  /// An event.
  public init(id: RegionID, event: Event, state: RegionState, at: Instant, since: Instant) {
    self.id = id
    self.event = event
    self.state = state
    self.at = at
    self.since = since
  }
}
