import LocClient
import LocCore
import LocProtocol

/// What a `LocationManager` hears from locd, in the order locd sent it (its `events`).
///
/// More kinds may come: each will get a case of its own. Until a kind has one, its events
/// arrive as `other` with their name and data as they were on the wire, so an app can use
/// them before the library names them. Switch over this enum with a `default:` branch: a
/// case added later then does not break it.
public enum LocationManagerEvent: Sendable {
  /// A position, after `startUpdatingLocation()` (and at once when updates start or the
  /// app is granted while they run).
  case location(Location)
  /// The app's authorization changed (granted, denied, provisional, once ended, a prompt's
  /// state moved on).
  case authorization(AppStatusView)
  /// The beacons satisfying a constraint the app ranges (`startRangingBeacons`), nearest
  /// first (proximity, then distance; unknown last), about once a second while the app may
  /// have them: Core Location's `didRange beacons: satisfying:`.
  case beaconsRanged(BeaconIdentityConstraint, [Beacon])
  /// A beacon region the app monitors (`startMonitoring(for:)`) was entered, exited, or
  /// first found outside, with its state after it: Core Location's `didEnterRegion`,
  /// `didExitRegion` and `didDetermineState` for a CLBeaconRegion.
  case beaconRegion(BeaconIdentityConstraint, BeaconRegionEvent, state: BeaconRegionState)
  /// Something went wrong without a request: locd pushed an error (e.g. `slow-consumer`),
  /// or the connection ended; after the latter the stream finishes.
  case error(ControlClient.Failure)
  /// One of the app's regions was entered, left or dwelled in (`startMonitoring(for:)`):
  /// its id, the event, the state after it, `at` (when locd decided it: the fix that
  /// confirmed the crossing) and `since` (the first fix on the new side; for a dwell, when
  /// the stay began).
  case region(RegionNotice)
  /// An arrival (`departure` nil) or a departure (`startMonitoringVisits()`).
  case visit(Visit)
  /// The compass's heading (`startUpdatingHeading(filter:)`): Core Location's
  /// `didUpdateHeading`.
  case heading(Heading)
  /// An event of a kind this library does not model yet, or a `location` event without a
  /// position (degraded mode): its wire name and `data` object (docs/PROTOCOL.md, "Events").
  case other(name: String, payload: JSON)
}

/// A position as an app is given it: where, how accurate, when, and from which rung of
/// locd's fallback ladder (a fresh fix, the last known one, the manual location).
public struct Location: Sendable, Hashable {
  /// Where.
  public var coordinate: Coordinate
  /// The radius (68 %) around `coordinate` the true position is in; for an app with reduced
  /// accuracy, the grid cell's (docs/APPS.md, "Reduced accuracy").
  public var horizontalAccuracy: Meters?
  /// Above mean sea level, when known (never with reduced accuracy).
  public var altitude: Meters?
  /// When the position was measured (a manual location: when it was set), UTC.
  public var timestamp: Instant
  /// `fix` (fresh), `cached` (the last known one) or `manual`.
  public var tier: PositionTier
  /// The source: a URI, `manual`, `static:PATH` or `state-file`.
  public var source: String
  /// What the position came from: `gnss`, `wifi`, `ip`, `static`, `manual` or `cached`
  /// (an open enumeration; nil from a daemon before protocol 1.8).
  public var provenance: OpenEnum<PositionProvenance>?

  /// The location in `view`; nil in degraded mode (no position).
  public init?(_ view: ResolvedPositionView) {
    guard let p = view.position else { return nil }
    coordinate = p.coordinate
    horizontalAccuracy = p.accuracy
    altitude = p.altitude
    timestamp = p.time
    tier = view.tier
    source = p.source
    provenance = view.provenance
  }
}
