/// Which beacons a monitor or a ranging request is about, like Core Location's
/// CLBeaconIdentityConstraint: a UUID, optionally a major, and with it optionally a minor.
/// What is left out is a wildcard, so many beacons can act as one region.
public struct BeaconConstraint: Hashable, Sendable, CustomStringConvertible {
  /// The proximity UUID, always given.
  public let uuid: BeaconUUID
  /// The major, or `nil` for any.
  public let major: UInt16?
  /// The minor, or `nil` for any; only given together with a major.
  public let minor: UInt16?

  /// A constraint; `nil` when a minor is given without a major (Core Location has no such
  /// constraint either).
  public init?(uuid: BeaconUUID, major: UInt16? = nil, minor: UInt16? = nil) {
    guard minor == nil || major != nil else { return nil }
    self.uuid = uuid
    self.major = major
    self.minor = minor
  }

  /// Parses `UUID`, `UUID:MAJOR` or `UUID:MAJOR:MINOR` (major and minor decimal, 0...65535);
  /// `nil` for anything else.
  public init?(_ text: some StringProtocol) {
    let parts = String(text).split(separator: ":", omittingEmptySubsequences: false)
    guard (1...3).contains(parts.count), let uuid = BeaconUUID(parts[0]) else { return nil }
    func number(_ s: Substring) -> UInt16? {
      guard !s.isEmpty, s.count <= 5, s.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
      return UInt16(s)
    }
    var major: UInt16?
    var minor: UInt16?
    if parts.count >= 2 {
      guard let m = number(parts[1]) else { return nil }
      major = m
    }
    if parts.count == 3 {
      guard let m = number(parts[2]) else { return nil }
      minor = m
    }
    self.init(uuid: uuid, major: major, minor: minor)
  }

  /// Whether `identity` is one of the beacons this constraint names.
  @inlinable public func matches(_ identity: BeaconIdentity) -> Bool {
    identity.uuid == uuid && (major == nil || major == identity.major)
      && (minor == nil || minor == identity.minor)
  }

  /// `UUID`, `UUID:MAJOR` or `UUID:MAJOR:MINOR`, the form `init(_:)` reads.
  public var description: String {
    var s = uuid.description
    if let major { s += ":\(major)" }
    if let minor { s += ":\(minor)" }
    return s
  }
}
