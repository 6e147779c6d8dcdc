/// An app's name for one of its regions (Core Location's `identifier`): 1 to 128 bytes of
/// UTF-8, no control, separator, format (bidi, zero-width) or unassigned characters. Unique per owner, not across owners.
public struct RegionID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The longest id accepted, in UTF-8 bytes.
  public static let maxBytes = 128

  /// The id as the app gave it.
  public let value: String

  /// A validated id; throws `RegionError.invalidID` when empty, longer than `maxBytes` or
  /// holding a character `isRefused` names.
  public init(_ value: String) throws(RegionError) {
    let bytes = value.utf8.count
    guard bytes > 0 else { throw .invalidID("a region id must not be empty") }
    guard bytes <= RegionID.maxBytes else {
      throw .invalidID("a region id is \(bytes) bytes, longer than the limit of \(RegionID.maxBytes)")
    }
    // C0 and C1 controls, DEL, line and paragraph separators, and the format characters
    // that reorder or hide text (bidi overrides and isolates, zero-width ones): ids appear
    // in status lines, logs and terminals, where these would break lines or disguise
    // what is printed (issue 28: U+2028 and U+202E were accepted).
    guard !value.unicodeScalars.contains(where: RegionID.isRefused) else {
      throw .invalidID("a region id must not contain control, separator or bidi format characters")
    }
    self.value = value
  }

  /// Whether `c` may not stand in an id.
  static func isRefused(_ c: Unicode.Scalar) -> Bool {
    switch c.properties.generalCategory {
    case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned, .privateUse:
      return true
    default:
      return false
    }
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
