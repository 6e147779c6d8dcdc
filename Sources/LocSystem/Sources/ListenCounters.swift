import LocCore

/// What `NMEAListenSource` counts of its peers, named as `locctl status` shows them: peers
/// accepted, refused (for want of a slot, or by `AllowUsers=`/`AllowGroups=`), with an
/// unknown uid, evicted for a newcomer, gone, and the bytes they sent.
struct ListenCounters {
  var accepted = 0
  /// Peers refused for want of a slot (`PeerSlotRule`).
  var refused = 0
  /// Peers refused by `AllowUsers=`/`AllowGroups=` (or for an unknown uid while either is set).
  var refusedUsers = 0
  /// Peers whose uid could not be learned.
  var unknownUIDs = 0
  /// Peers closed to make room for a newcomer (`PeerSlotRule`).
  var evicted = 0
  /// Peers that left or were closed (not counting locd stopping).
  var disconnects = 0
  /// Bytes read from every peer.
  var bytes = 0

  /// The counters for a snapshot, with `peers` connected now.
  func counters(peers: Int) -> [Counter] {
    [
      Counter("peers", peers), Counter("accepted", accepted), Counter("refusedPeers", refused),
      Counter("refusedUsers", refusedUsers), Counter("unknownUIDs", unknownUIDs),
      Counter("evictedPeers", evicted),
      Counter("disconnects", disconnects), Counter("bytes", bytes),
    ]
  }
}
