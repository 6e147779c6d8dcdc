/// Who gets one of the server's connection slots: bookkeeping only, no descriptors. At most
/// `maxClients` connections; the last `reservedForAdmin` of them only for peers with admin
/// access, and at most `maxPerUser` for any one uid below admin, so no user, however many
/// connections it opens, can take the slots an administrator needs to look and repair.
/// Every connection holds its slot from accept until its descriptor is closed (before the
/// hello, while open, and while a dropped client's last words are written).
struct ClientSlots {
  /// What a new connection gets.
  enum Decision: Equatable {
    /// A slot.
    case admit
    /// Every slot is taken.
    case full
    /// Only the slots kept for administrators are free, and the peer is not one.
    case reservedForAdmin
    /// The peer's uid holds `maxPerUser` connections already.
    case perUserLimit
  }

  /// Most connections at once.
  var maxClients: Int
  /// Slots (out of `maxClients`) that only admin peers get.
  var reservedForAdmin: Int
  /// Most connections of one uid below admin.
  var maxPerUser: Int
  /// Connections holding a slot, by uid.
  private var tally = UIDTally()
  /// Connections holding a slot.
  var taken: Int { tally.total }

  /// Slots with these limits, all free.
  init(maxClients: Int, reservedForAdmin: Int, maxPerUser: Int) {
    self.maxClients = maxClients
    self.reservedForAdmin = reservedForAdmin
    self.maxPerUser = maxPerUser
  }

  /// Connections `uid` holds.
  func held(by uid: UInt32) -> Int { tally.held(by: uid) }

  /// Whether a peer of `uid` (an administrator or not) gets a slot now.
  func decide(uid: UInt32, admin: Bool) -> Decision {
    guard taken < maxClients else { return .full }
    if admin { return .admit }
    // A reserve as large as the whole (a configuration that says so) leaves nothing to others.
    guard taken < maxClients - min(reservedForAdmin, maxClients) else { return .reservedForAdmin }
    guard held(by: uid) < maxPerUser else { return .perUserLimit }
    return .admit
  }

  /// A connection of `uid` took a slot.
  mutating func take(uid: UInt32) { tally.take(uid: uid) }

  /// A connection of `uid` gave its slot back.
  mutating func release(uid: UInt32) { tally.release(uid: uid) }
}
