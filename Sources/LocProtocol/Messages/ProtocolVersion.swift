/// The version of locd's socket protocol (docs/PROTOCOL.md, "Versions"). The server names it
/// in its greeting; a client that does not speak the major version must not go on.
public struct ProtocolVersion: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// Incompatible changes bump the major number.
  public var major: Int
  /// Compatible additions bump the minor number.
  public var minor: Int

  /// A version.
  public init(major: Int, minor: Int) {
    self.major = major
    self.minor = minor
  }

  /// The version this build speaks: 1.10 (see the changelog in docs/PROTOCOL.md).
  public static let current = ProtocolVersion(major: 1, minor: 11)

  /// The major version this build speaks.
  public static var major: Int { current.major }
  /// The minor version this build speaks.
  public static var minor: Int { current.minor }

  public static func < (a: ProtocolVersion, b: ProtocolVersion) -> Bool {
    (a.major, a.minor) < (b.major, b.minor)
  }

  public var description: String { "\(major).\(minor)" }
}
