/// Who can put fixes into a source, from the most trusted to the least: the rank that decides
/// whose fix wins when sources disagree (a fix from a less trusted source never overrides a
/// more trusted one that is live) and that `locctl status` shows for each source.
/// docs/PRIVACY.md, "Threat model", says which source gets which and why.
public enum SourceTrust: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
  /// Any host that can reach the address: a listener or UDP port bound beyond loopback, a
  /// connection to another host.
  case network = 0
  /// Any local user: a loopback UDP port, a loopback TCP listener.
  case localUsers = 1
  /// Only named users and groups (`AllowUsers=`, `AllowGroups=`), each peer checked by uid:
  /// a loopback TCP listener or a Unix listener with either list set.
  case allowedUsers = 2
  /// Only root and locd itself: a device, a file named in root's configuration, a server on
  /// loopback that the configuration names (gpsd).
  case system = 3

  public static func < (a: SourceTrust, b: SourceTrust) -> Bool { a.rawValue < b.rawValue }

  /// The name on the wire and in status: `system`, `allowed-users`, `local-users`, `network`.
  public var description: String {
    switch self {
    case .network: return "network"
    case .localUsers: return "local-users"
    case .allowedUsers: return "allowed-users"
    case .system: return "system"
    }
  }

  /// The trust named `name` (the inverse of `description`).
  public init?(name: String) {
    guard let t = SourceTrust.allCases.first(where: { $0.description == name }) else { return nil }
    self = t
  }
}
