/// An app's name for one of its regions (Core Location's `identifier`): 1 to 128 bytes of
/// UTF-8, no control characters. Unique per owner, not across owners.
public struct RegionID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The longest id accepted, in UTF-8 bytes.
  public static let maxBytes = 128

  /// The id as the app gave it.
  public let value: String

  /// A validated id; throws `RegionError.invalidID` when empty, longer than `maxBytes` or
  /// holding a control character.
  public init(_ value: String) throws(RegionError) {
    let bytes = value.utf8.count
    guard bytes > 0 else { throw .invalidID("a region id must not be empty") }
    guard bytes <= RegionID.maxBytes else {
      throw .invalidID("a region id is \(bytes) bytes, longer than the limit of \(RegionID.maxBytes)")
    }
    // C0 controls and DEL: ids appear in status lines and logs.
    guard !value.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
      throw .invalidID("a region id must not contain control characters")
    }
    self.value = value
  }

  /// An id already validated (stored regions).
  init(validated value: String) { self.value = value }

  public static func < (a: RegionID, b: RegionID) -> Bool { a.value < b.value }
  public var description: String { value }
}

/// Who registered a region: a number the host (the engine) chooses and maps to an app;
/// limits and ids are per owner.
public struct RegionOwner: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The host's number.
  public var raw: UInt32
  /// An owner.
  public init(_ raw: UInt32) { self.raw = raw }
  public static func < (a: RegionOwner, b: RegionOwner) -> Bool { a.raw < b.raw }
  public var description: String { "owner \(raw)" }
}

/// One owner's region: what events and hints name.
public struct RegionKey: Hashable, Sendable, CustomStringConvertible {
  /// The owner.
  public var owner: RegionOwner
  /// The region's id.
  public var id: RegionID
  /// A key.
  public init(_ owner: RegionOwner, _ id: RegionID) {
    self.owner = owner
    self.id = id
  }
  public var description: String { "region \"\(id)\" of \(owner)" }
}
