/// A client's hello as the shell hands it to the engine: its credentials and access level,
/// its name and the app it says it is, and what the kernel says about it.
public struct SessionHello: Sendable, Hashable {
  /// SO_PEERCRED and SO_PEERGROUPS.
  public var peer: Peer
  /// The access level of its credentials.
  public var access: AccessLevel
  /// The client's name, for logs (`locctl`, a library's name); says nothing about identity.
  public var client: String?
  /// The app id it claims, as sent (nil: not an app, unless the kernel says it is one).
  public var app: String?
  /// The peer's unit, from /proc/PID/cgroup.
  public var unit: PeerUnit

  /// A hello.
  public init(
    peer: Peer, access: AccessLevel, client: String? = nil, app: String? = nil, unit: PeerUnit = .none
  ) {
    self.peer = peer
    self.access = access
    self.client = client
    self.app = app
    self.unit = unit
  }
}
