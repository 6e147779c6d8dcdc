/// The version of locd's socket protocol (docs/PROTOCOL.md). The server names it in its
/// first line; a client that does not know the major version must not go on.
public enum ProtocolVersion {
  /// Incompatible changes bump the major number.
  public static let major = 1
  /// Compatible additions bump the minor number.
  public static let minor = 0
}
