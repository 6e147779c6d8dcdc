/// What a peer may do over the socket.
public enum AccessLevel: Int, Comparable, Sendable {
  /// May connect and say hello; learns nothing about the position.
  case none = 0
  /// May read state and subscribe to events.
  case read = 1
  /// May also change state (set-location, clear-location, reload, timers).
  case admin = 2
  public static func < (a: AccessLevel, b: AccessLevel) -> Bool { a.rawValue < b.rawValue }
}

/// The credentials of a socket peer (SO_PEERCRED, SO_PEERGROUPS).
public struct Peer: Sendable, Hashable {
  /// Process id at connect time.
  public var pid: Int32
  /// Effective user id.
  public var uid: UInt32
  /// Effective group id.
  public var gid: UInt32
  /// Supplementary groups.
  public var groups: [UInt32]
  /// A peer.
  public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
    self.pid = pid
    self.uid = uid
    self.gid = gid
    self.groups = groups
  }

  /// Whether the peer is in group `gid` (primary or supplementary).
  public func isMember(of gid: UInt32) -> Bool { self.gid == gid || groups.contains(gid) }
}

/// Decides a peer's access level from its credentials and the configured groups
/// (group names are resolved to ids by the shell).
public struct AccessPolicy: Sendable, Hashable {
  /// The daemon's own uid: a peer with it could write locd's state file directly, so it
  /// gets admin access (this is what lets a developer's `make run` be administered).
  public var daemonUID: UInt32
  /// Members may read.
  public var readGID: UInt32?
  /// Members may administer.
  public var adminGID: UInt32?

  /// A policy.
  public init(daemonUID: UInt32, readGID: UInt32?, adminGID: UInt32?) {
    self.daemonUID = daemonUID
    self.readGID = readGID
    self.adminGID = adminGID
  }

  /// The level for `peer`: root, the daemon's own uid and the admin group administer; the
  /// read group reads; everyone else gets nothing.
  public func level(for peer: Peer) -> AccessLevel {
    if peer.uid == 0 { return .admin }
    if peer.uid == daemonUID { return .admin }
    if let adminGID, peer.isMember(of: adminGID) { return .admin }
    if let readGID, peer.isMember(of: readGID) { return .read }
    return .none
  }
}
