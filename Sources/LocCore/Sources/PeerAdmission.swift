/// Who may feed a listening source (`nmea+tcp-listen`, `nmea+unix-listen`): `[Sources]
/// AllowUsers=` and `AllowGroups=` resolved to ids, and the uid locd runs as. Root and locd's
/// own uid are always admitted; with neither list set every peer that can connect is; with
/// either set only their members are, and a peer whose uid could not be learned is not.
/// docs/SOURCES.md, "Trust: which source wins", and docs/PRIVACY.md, "Threat model".
public struct PeerAdmission: Sendable, Equatable {
  /// The uid locd runs as.
  public var daemonUID: UInt32
  /// `AllowUsers=` as uids (names that do not resolve are left out, and still restrict).
  public var allowedUIDs: Set<UInt32>
  /// `AllowGroups=` as gids.
  public var allowedGIDs: Set<UInt32>
  /// Whether `AllowUsers=` or `AllowGroups=` names anyone (even a name that does not exist):
  /// then only members, root and locd are admitted.
  public var restricted: Bool

  /// Where a peer stands.
  public enum Standing: Sendable, Hashable {
    /// Root or locd's own uid: always admitted, never limited to a share of the slots.
    case privileged
    /// A member of `AllowUsers=`/`AllowGroups=`, or any local user when neither is set.
    case admitted
    /// Not a member while a list is set.
    case notAllowed
    /// Its uid could not be learned (a peer on another host, one that already closed, a
    /// kernel without NETLINK_SOCK_DIAG): untrusted, refused while a list is set.
    case unknown
  }

  /// Only root and `daemonUID` privileged; no list set.
  public init(
    daemonUID: UInt32, allowedUIDs: Set<UInt32> = [], allowedGIDs: Set<UInt32> = [], restricted: Bool = false
  ) {
    self.daemonUID = daemonUID
    self.allowedUIDs = allowedUIDs
    self.allowedGIDs = allowedGIDs
    self.restricted = restricted || !allowedUIDs.isEmpty || !allowedGIDs.isEmpty
  }

  /// The standing of a peer with `uid` (nil: unknown) whose groups `groups` gives (asked only
  /// when a group list decides).
  public func standing(uid: UInt32?, groups: () -> [UInt32]) -> Standing {
    guard let uid else { return .unknown }
    if uid == 0 || uid == daemonUID { return .privileged }
    guard restricted else { return .admitted }
    if allowedUIDs.contains(uid) { return .admitted }
    if !allowedGIDs.isEmpty, groups().contains(where: allowedGIDs.contains) { return .admitted }
    return .notAllowed
  }

  /// Whether a peer of `standing` may connect at all (before the slots are counted).
  public func admits(_ standing: Standing) -> Bool {
    switch standing {
    case .privileged, .admitted: return true
    case .notAllowed: return false
    case .unknown: return !restricted
    }
  }
}

/// How a listener's peer slots are shared, so that one local user cannot lock the real
/// receiver out: a pure rule over the peers connected now, applied to each newcomer.
///
/// 1. A uid other than root's and locd's holds at most `maxPerUser` slots (peers with an
///    unknown uid count as one user); one more from it is refused.
/// 2. With a slot free, the newcomer takes it.
/// 3. Else a peer that sends no NMEA gives way: the oldest that sent nothing in
///    `muteGrace` since it connected, else the one silent longest if over `evictAfter`.
/// 4. Else a privileged newcomer (root, locd) replaces the newest unprivileged peer.
/// 5. Else a newcomer whose uid holds at least two slots fewer than the uid holding most
///    (unprivileged) replaces that uid's newest peer: a user with one slot is never evicted
///    for a user with none, so a receiver that holds one slot keeps it.
/// 6. Else it is refused.
public enum PeerSlotRule {
  /// Slots of one listener.
  public static let maxPeers = 4
  /// Slots one unprivileged uid may hold: half, so that a second user always finds room.
  public static let maxPerUser = 2
  /// A peer that has sent NMEA within this long is never evicted as quiet (microseconds).
  public static let evictAfter: UInt64 = 5_000_000
  /// A peer that has sent nothing yet keeps its slot this long after connecting (a receiver
  /// sends within a second).
  public static let muteGrace: UInt64 = 2_000_000

  /// A connected peer, as the rule sees it.
  public struct Occupant: Sendable, Equatable {
    /// Its uid; nil when unknown.
    public var uid: UInt32?
    /// Root or locd.
    public var privileged: Bool
    /// When it connected (monotonic microseconds).
    public var connectedAt: UInt64
    /// When it last sent NMEA; nil: never.
    public var lastActiveAt: UInt64?

    /// An occupant.
    public init(uid: UInt32?, privileged: Bool, connectedAt: UInt64, lastActiveAt: UInt64? = nil) {
      self.uid = uid
      self.privileged = privileged
      self.connectedAt = connectedAt
      self.lastActiveAt = lastActiveAt
    }
  }

  /// Why a peer was evicted or refused, for the log and the counters.
  public enum Reason: Sendable, Hashable, CustomStringConvertible {
    /// Rule 1.
    case perUserLimit
    /// Rule 3.
    case quiet
    /// Rule 4.
    case privilegedNewcomer
    /// Rule 5.
    case fairShare
    /// Rule 6.
    case full

    /// In words, after "evicted:" or "refused:".
    public var description: String {
      switch self {
      case .perUserLimit: return "its user already holds \(PeerSlotRule.maxPerUser) of the peer slots"
      case .quiet: return "it sent no NMEA lately"
      case .privilegedNewcomer: return "root or locd's own user needed the slot"
      case .fairShare: return "its user held the most slots and another user had none"
      case .full: return "already \(PeerSlotRule.maxPeers) peers sending NMEA"
      }
    }
  }

  /// What to do with a newcomer.
  public enum Decision: Sendable, Equatable {
    /// Take a free slot.
    case admit
    /// Close `occupants[index]` for it first.
    case evict(index: Int, Reason)
    /// Close it.
    case refuse(Reason)
  }

  /// The decision for a newcomer with `uid` (nil: unknown) among `occupants` at `now`.
  public static func decide(uid: UInt32?, privileged: Bool, occupants: [Occupant], now: UInt64) -> Decision {
    func held(_ u: UInt32?) -> Int { occupants.filter { !$0.privileged && $0.uid == u }.count }
    if !privileged, held(uid) >= maxPerUser { return .refuse(.perUserLimit) }
    if occupants.count < maxPeers { return .admit }
    if let quiet = quietest(occupants, now: now) { return .evict(index: quiet, .quiet) }
    let unprivileged = occupants.indices.filter { !occupants[$0].privileged }
    func newest(_ indices: [Int]) -> Int? {
      indices.max { occupants[$0].connectedAt < occupants[$1].connectedAt }
    }
    if privileged, let victim = newest(unprivileged) { return .evict(index: victim, .privilegedNewcomer) }
    // The uid holding most slots (of those with most, the one with the newest peer).
    let most = unprivileged.map { held(occupants[$0].uid) }.max() ?? 0
    if most >= held(uid) + 2, let victim = newest(unprivileged.filter { held(occupants[$0].uid) == most }) {
      return .evict(index: victim, .fairShare)
    }
    return .refuse(.full)
  }

  /// Rule 3: the oldest mute peer past its grace, else the one silent longest past
  /// `evictAfter`.
  static func quietest(_ occupants: [Occupant], now: UInt64) -> Int? {
    let mute = occupants.indices.filter {
      occupants[$0].lastActiveAt == nil && now &- occupants[$0].connectedAt > muteGrace
    }
    if let oldest = mute.min(by: { occupants[$0].connectedAt < occupants[$1].connectedAt }) { return oldest }
    guard
      let quiet = occupants.indices.min(by: {
        (occupants[$0].lastActiveAt ?? 0) < (occupants[$1].lastActiveAt ?? 0)
      }),
      let last = occupants[quiet].lastActiveAt, now &- last > evictAfter
    else { return nil }
    return quiet
  }
}
