/// What a beacon says it is: the UUID, major and minor of an iBeacon, or the 20-byte beacon
/// id of an AltBeacon read the same way (bytes 0...15 the UUID, 16...17 major, 18...19 minor,
/// big-endian, the split the AltBeacon reference library uses).
public struct BeaconIdentity: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The proximity UUID: whose beacons these are.
  public var uuid: BeaconUUID
  /// The major value: usually a site or group.
  public var major: UInt16
  /// The minor value: usually one beacon of the group.
  public var minor: UInt16

  /// An identity.
  @inlinable public init(uuid: BeaconUUID, major: UInt16, minor: UInt16) {
    self.uuid = uuid
    self.major = major
    self.minor = minor
  }

  @inlinable public static func < (a: BeaconIdentity, b: BeaconIdentity) -> Bool {
    (a.uuid, a.major, a.minor) < (b.uuid, b.major, b.minor)
  }

  /// `UUID:MAJOR:MINOR`, the form `locctl beacons` takes and prints.
  public var description: String { "\(uuid):\(major):\(minor)" }
}

/// The beacon formats locd decodes.
public enum BeaconFormat: String, Hashable, Sendable, CaseIterable {
  /// Apple's iBeacon: manufacturer data of company 0x004C, type 0x02, length 0x15.
  case iBeacon = "ibeacon"
  /// AltBeacon (github.com/AltBeacon/spec, v1.0): manufacturer data with beacon code 0xBEAC.
  case altBeacon = "altbeacon"
}
