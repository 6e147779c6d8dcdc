import LocCore

/// A beacon constraint on the wire: `UUID`, `UUID:MAJOR` or `UUID:MAJOR:MINOR`, as locctl
/// writes it (docs/PROTOCOL.md, "Beacons").
extension WireObject {
  /// The constraint in member `key`.
  func constraint(_ key: String) throws(WireDecodingError) -> BeaconConstraint {
    let text = try string(key)
    guard text.utf8.count <= 64, let c = BeaconConstraint(text) else {
      throw error(key, "must be UUID, UUID:MAJOR or UUID:MAJOR:MINOR (major and minor 0-65535)")
    }
    return c
  }
}

/// One beacon of a ranging list (docs/PROTOCOL.md, "beacon"): identity, address, smoothed
/// RSSI, accuracy (−1 when unknown, as CLBeacon says), proximity, when last heard.
public struct BeaconView: WireCodable {
  /// UUID, major, minor.
  public var identity: BeaconIdentity
  /// The transmitter's address (two devices sending one identity are two entries).
  public var address: BluetoothAddress
  /// The smoothed RSSI (dBm, to 0.1), nil when nothing was heard within the window.
  public var rssi: DecibelMilliwatts?
  /// The distance estimate (m, to the millimetre), nil when unknown (−1 on the wire).
  public var accuracy: Meters?
  /// Immediate, near, far or unknown.
  public var proximity: BeaconProximity
  /// When it was last heard (microseconds).
  public var lastHeard: Instant

  /// The wire form of a ranged beacon.
  public init(_ b: RangedBeacon) {
    identity = b.identity
    address = b.address
    rssi = b.rssi.map { DecibelMilliwatts(WireFormat.round($0.value, 1)) }
    accuracy = b.accuracy.map { Meters(WireFormat.round($0.value, 3)) }
    proximity = b.proximity
    lastHeard = WireFormat.truncate(b.lastHeard, 6)
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    guard let uuid = BeaconUUID(try o.string("uuid")) else { throw o.error("uuid", "not a UUID") }
    let major = try o.int("major")
    let minor = try o.int("minor")
    guard (0...65535).contains(major) else { throw o.error("major", "must be 0-65535") }
    guard (0...65535).contains(minor) else { throw o.error("minor", "must be 0-65535") }
    identity = BeaconIdentity(uuid: uuid, major: UInt16(major), minor: UInt16(minor))
    guard let a = BluetoothAddress(try o.string("address")) else {
      throw o.error("address", "not an address")
    }
    address = a
    rssi = try o.optionalNumber("rssi").map(DecibelMilliwatts.init)
    // -1 is "unknown" (CLBeacon's accuracy); null is read the same, and what a daemon of an
    // earlier build sent for an RSSI no radio reports (issue 28).
    let meters = try o.optionalNumber("accuracy") ?? -1
    accuracy = meters < 0 ? nil : Meters(meters)
    proximity = try o.word("proximity")
    lastHeard = try o.instant("lastHeard")
  }

  public var json: JSON {
    .object([
      "uuid": .string(identity.uuid.description), "major": .int(Int(identity.major)),
      "minor": .int(Int(identity.minor)), "address": .string(address.description),
      "rssi": rssi.map { .number($0.value) } ?? .null, "accuracy": .number(accuracy?.value ?? -1),
      "proximity": .string(proximity.rawValue), "lastHeard": WireFormat.time(lastHeard, 6),
    ])
  }
}

/// `beacons-ranged` event data: the constraint a session ranges and the matching beacons,
/// nearest first.
public struct BeaconsRangedEvent: WireCodable {
  /// The constraint, as the session asked.
  public var constraint: BeaconConstraint
  /// The beacons in ranging order.
  public var beacons: [BeaconView]

  /// The wire form.
  public init(constraint: BeaconConstraint, beacons: [BeaconView]) {
    self.constraint = constraint
    self.beacons = beacons
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    constraint = try o.constraint("constraint")
    beacons = try o.array("beacons")
  }

  public var json: JSON {
    .object(["constraint": .string(constraint.description), "beacons": .array(beacons.map(\.json))])
  }
}

/// `beacon-region` event data: a monitored region was entered, exited, or first determined
/// outside.
public struct BeaconRegionChangeEvent: WireCodable {
  /// The region's event on the wire.
  public enum Change: String, Sendable, Hashable, CaseIterable {
    case entered, exited
    case determinedOutside = "determined-outside"
  }

  /// The constraint, as the session asked.
  public var constraint: BeaconConstraint
  /// What happened.
  public var event: Change
  /// The region's state after it.
  public var state: BeaconRegionState

  /// The wire form.
  public init(constraint: BeaconConstraint, event: BeaconRegionEvent, state: BeaconRegionState) {
    self.constraint = constraint
    switch event {
    case .entered: self.event = .entered
    case .exited: self.event = .exited
    case .determinedOutside: self.event = .determinedOutside
    }
    self.state = state
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    constraint = try o.constraint("constraint")
    event = try o.word("event")
    state = try o.word("state")
  }

  public var json: JSON {
    .object([
      "constraint": .string(constraint.description), "event": .string(event.rawValue),
      "state": .string(state.rawValue),
    ])
  }
}

/// The answer to `range-beacons`: the constraint now ranged.
public struct BeaconRangingResult: WireCodable {
  /// The constraint.
  public var constraint: BeaconConstraint

  /// A result.
  public init(constraint: BeaconConstraint) { self.constraint = constraint }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    constraint = try WireObject(json, path: path).constraint("constraint")
  }

  public var json: JSON { .object(["constraint": .string(constraint.description)]) }
}

/// The answer to `monitor-beacons`: the constraint, the region's state now, and ExitAfter.
public struct BeaconMonitorResult: WireCodable {
  /// The constraint.
  public var constraint: BeaconConstraint
  /// The region's state (`unknown` for a new monitor).
  public var state: BeaconRegionState
  /// Seconds without a matching beacon before the region is left (to the millisecond).
  public var exitAfter: Duration

  /// A result.
  public init(constraint: BeaconConstraint, state: BeaconRegionState, exitAfter: Duration) {
    self.constraint = constraint
    self.state = state
    self.exitAfter = WireFormat.seconds(exitAfter, 3)
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    constraint = try o.constraint("constraint")
    state = try o.word("state")
    exitAfter = try o.seconds("exitAfter")
  }

  public var json: JSON {
    .object([
      "constraint": .string(constraint.description), "state": .string(state.rawValue),
      "exitAfter": .number(exitAfter.seconds),
    ])
  }
}

/// `beacons` in `status`: scanning, live requests and transmitters, counters (no identity).
public struct BeaconStatusView: WireCodable {
  /// Whether some session monitors or ranges.
  public var scanning: Bool
  /// Region monitors live.
  public var monitors: Int
  /// Ranging requests live.
  public var ranging: Int
  /// Transmitters remembered for ranging.
  public var tracked: Int
  /// Named counters in the daemon's order.
  public var counters: [Counter]

  /// The wire form of `s`.
  public init(_ s: BeaconStatus) {
    scanning = s.scanning
    monitors = s.monitors
    ranging = s.ranging
    tracked = s.tracked
    counters = s.counters
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    scanning = try o.bool("scanning")
    monitors = try o.int("monitors")
    ranging = try o.int("ranging")
    tracked = try o.int("tracked")
    counters = try o.counters("counters")
  }

  public var json: JSON { writtenJSON }
}

extension BeaconStatusView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("scanning", .bool(scanning))
    s.member("monitors", .int(monitors))
    s.member("ranging", .int(ranging))
    s.member("tracked", .int(tracked))
    s.key("counters")
    s.counters(counters)
    s.closeObject()
  }
}
