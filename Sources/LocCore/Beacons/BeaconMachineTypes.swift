/// Identifies one beacon monitor or ranging request; the engine maps it to its session.
public struct BeaconSubscriptionID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// A number the host chooses, unique among live subscriptions.
  public var raw: UInt64
  /// An id.
  public init(_ raw: UInt64) { self.raw = raw }
  public static func < (a: BeaconSubscriptionID, b: BeaconSubscriptionID) -> Bool { a.raw < b.raw }
  public var description: String { "beacon subscription \(raw)" }
}

/// What a subscription asks for.
public enum BeaconSubscription: Hashable, Sendable {
  /// Region monitoring: entered when a matching beacon is heard, exited after `exitAfter`
  /// without one (CLBeaconRegion monitoring).
  case monitor(BeaconConstraint, exitAfter: Duration)
  /// Ranging: the matching beacons, nearest first, about once a second.
  case range(BeaconConstraint)

  /// The constraint either way.
  public var constraint: BeaconConstraint {
    switch self {
    case .monitor(let c, _), .range(let c): return c
    }
  }

  /// Core Location's default: a region is left after 30 s without a matching beacon.
  public static let defaultExitAfter: Duration = .seconds(30)
}

/// Where a monitored region stands.
public enum BeaconRegionState: String, Hashable, Sendable {
  /// Not yet known: no matching beacon heard, and `exitAfter` has not passed since the
  /// monitor started.
  case unknown
  /// A matching beacon was heard within `exitAfter`.
  case inside
  /// None was heard for `exitAfter`.
  case outside
}

/// A change of a monitored region.
public enum BeaconRegionEvent: String, Hashable, Sendable {
  /// A matching beacon was heard while the region was unknown or outside.
  case entered
  /// No matching beacon was heard for `exitAfter` while inside.
  case exited
  /// The first determination was "outside" (`exitAfter` without a matching beacon since the
  /// monitor started): the state is now known, nobody left anything.
  case determinedOutside
}

/// One beacon of a ranging list (CLBeacon).
public struct RangedBeacon: Hashable, Sendable {
  /// UUID, major, minor.
  public var identity: BeaconIdentity
  /// The transmitter's address (two devices sending one identity are two entries).
  public var address: BluetoothAddress
  /// The smoothed RSSI (`RSSIMedianFilter`); `nil` when nothing was heard within the window.
  public var rssi: DecibelMilliwatts?
  /// The distance estimate (`BeaconDistanceModel`); `nil` when unknown (Core Location and
  /// the wire say -1).
  public var accuracy: Meters?
  /// Immediate, near, far or unknown.
  public var proximity: BeaconProximity
  /// When it was last heard.
  public var lastHeard: Instant

  /// A ranged beacon.
  public init(
    identity: BeaconIdentity, address: BluetoothAddress, rssi: DecibelMilliwatts?, accuracy: Meters?,
    proximity: BeaconProximity, lastHeard: Instant
  ) {
    self.identity = identity
    self.address = address
    self.rssi = rssi
    self.accuracy = accuracy
    self.proximity = proximity
    self.lastHeard = lastHeard
  }

  /// The order of a ranging list: by proximity (immediate, near, far, unknown); within one,
  /// by accuracy (closest first); unknown ones by RSSI (strongest first, none last); then by
  /// identity and address, so the order is total and stable.
  public static func rangingOrder(_ a: RangedBeacon, _ b: RangedBeacon) -> Bool {
    if a.proximity != b.proximity { return a.proximity < b.proximity }
    if a.accuracy != b.accuracy {
      guard let x = a.accuracy else { return false }
      guard let y = b.accuracy else { return true }
      return x < y
    }
    if a.rssi != b.rssi {
      guard let x = a.rssi else { return false }
      guard let y = b.rssi else { return true }
      return x > y
    }
    if a.identity != b.identity { return a.identity < b.identity }
    return a.address < b.address
  }
}

/// Why a subscription was refused.
public enum BeaconRefusal: String, Hashable, Sendable {
  /// `BeaconMachine.Limits.subscriptions` are live already.
  case tooManySubscriptions
  /// An `exitAfter` that is not positive.
  case invalidExitAfter
}

/// An input of `BeaconMachine`; the instant comes with it.
public enum BeaconInput: Hashable, Sendable {
  /// A monitor or ranging request starts (an existing id is replaced).
  case subscribe(BeaconSubscriptionID, BeaconSubscription)
  /// It ends.
  case unsubscribe(BeaconSubscriptionID)
  /// A beacon advertisement was received now.
  case heard(BeaconSighting)
  /// Time passed: exits and ranging lists that are due.
  case tick
}

/// An output of `BeaconMachine`, for the host to deliver.
public enum BeaconOutput: Hashable, Sendable {
  /// A monitored region changed.
  case region(BeaconSubscriptionID, BeaconRegionEvent)
  /// A ranging list, nearest first (possibly empty: nothing matching in range).
  case ranged(BeaconSubscriptionID, [RangedBeacon])
  /// Whether scanning is needed changed: true while any subscription lives.
  case scanning(needed: Bool)
  /// A subscription was refused and not added.
  case refused(BeaconSubscriptionID, BeaconRefusal)
}
