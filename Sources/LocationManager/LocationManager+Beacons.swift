import LocClient
import LocCore
import LocProtocol

// The beacon types the library's API speaks in (see Exports.swift for the rest).
@_exported import struct LocCore.BeaconConstraint
@_exported import struct LocCore.BeaconIdentity
@_exported import enum LocCore.BeaconProximity
@_exported import enum LocCore.BeaconRegionEvent
@_exported import enum LocCore.BeaconRegionState
@_exported import struct LocCore.BeaconUUID
@_exported import struct LocCore.BluetoothAddress
@_exported import struct LocCore.DecibelMilliwatts

/// Core Location's CLBeaconIdentityConstraint: a UUID, optionally a major, and with it
/// optionally a minor; what is left out is a wildcard, so many beacons act as one.
public typealias BeaconIdentityConstraint = BeaconConstraint

/// One beacon of a ranging list, as Core Location's CLBeacon has it (docs/BEACONS.md,
/// "Ranging"): its identity, the transmitter's address, the smoothed RSSI, the distance
/// estimate and the proximity derived from it, and when it was last heard.
public struct Beacon: Sendable, Hashable {
  /// UUID, major and minor.
  public var identity: BeaconIdentity
  /// The transmitter's address (two transmitters sending one identity are two beacons).
  public var address: BluetoothAddress
  /// The smoothed RSSI; nil when the beacon was not heard within the smoothing window (it
  /// is then `unknown`, before it drops out of the list).
  public var rssi: DecibelMilliwatts?
  /// The distance estimate ("accuracy" in Core Location); nil when unknown (CLBeacon's −1).
  public var accuracy: Meters?
  /// Immediate, near, far or unknown.
  public var proximity: BeaconProximity
  /// When it was last heard, UTC.
  public var timestamp: Instant

  /// The proximity UUID.
  public var uuid: BeaconUUID { identity.uuid }
  /// The major value.
  public var major: UInt16 { identity.major }
  /// The minor value.
  public var minor: UInt16 { identity.minor }

  /// The beacon in `view`.
  init(_ view: BeaconView) {
    identity = view.identity
    address = view.address
    rssi = view.rssi
    accuracy = view.accuracy
    proximity = view.proximity
    timestamp = view.lastHeard
  }
}

// MARK: Ranging and monitoring beacons

extension LocationManager {
  /// Starts ranging the beacons that satisfy `constraint` (Core Location's
  /// `startRangingBeacons(satisfying:)`): about once a second a `beaconsRanged` event with
  /// the matching beacons, nearest first, while the app is in use (or always, with always
  /// authorization). Starting again restarts it. Throws `not-authorized` when the app may
  /// not have the location, `precise-location-required` with reduced accuracy, `failed`
  /// beyond 32 beacon requests.
  public func startRangingBeacons(satisfying constraint: BeaconIdentityConstraint)
    async throws(ControlClient.Failure)
  {
    _ = try await link.call(.rangeBeacons(constraint), timeout: timeout)
  }

  /// Stops ranging `constraint`; throws `not-found` when it was not ranged (or locd ended
  /// it because the app's authorization changed).
  public func stopRangingBeacons(satisfying constraint: BeaconIdentityConstraint)
    async throws(ControlClient.Failure)
  {
    _ = try await link.call(.stopRangingBeacons(constraint), timeout: timeout)
  }

  /// Starts monitoring the beacon region `constraint` names (Core Location's
  /// `startMonitoring(for:)` with a CLBeaconRegion): `beaconRegion` events when it is
  /// entered (a matching beacon heard) and exited (none heard for `exitAfter`, nil: 30 s),
  /// delivered by the apps rules (in use; out of use too with always). Returns the region's
  /// state now (`unknown` for a new monitor). Throws as `startRangingBeacons(satisfying:)`,
  /// and `invalid-params` for an `exitAfter` not above zero.
  @discardableResult
  public func startMonitoring(for constraint: BeaconIdentityConstraint, exitAfter: Duration? = nil)
    async throws(ControlClient.Failure) -> BeaconRegionState
  {
    try await link.call(.monitorBeacons(constraint, exitAfter: exitAfter), timeout: timeout).state
  }

  /// Stops monitoring the beacon region `constraint` names; throws `not-found` when it was
  /// not monitored.
  public func stopMonitoring(for constraint: BeaconIdentityConstraint) async throws(ControlClient.Failure) {
    _ = try await link.call(.stopMonitoringBeacons(constraint), timeout: timeout)
  }
}

extension LocationManagerEvent {
  /// The library's case for a beacon event from locd; nil for other events.
  init?(beacon data: EventData) {
    switch data {
    case .beaconsRanged(let e): self = .beaconsRanged(e.constraint, e.beacons.map(Beacon.init))
    case .beaconRegion(let e):
      let event: BeaconRegionEvent =
        switch e.event {
        case .entered: .entered
        case .exited: .exited
        case .determinedOutside: .determinedOutside
        }
      self = .beaconRegion(e.constraint, event, state: e.state)
    default: return nil
    }
  }
}
