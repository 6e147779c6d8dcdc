import LocCore

extension PeerAdmission {
  /// `AllowUsers=` and `AllowGroups=` of `config` resolved to ids (getpwnam_r, getgrnam_r;
  /// a number is taken as an id), once per start and reload: NSS may go to systemd or LDAP.
  /// `unknown` names those that resolve to nobody (they still restrict).
  static func resolving(_ config: DaemonConfig, daemonUID: UInt32) -> (PeerAdmission, unknown: [String]) {
    var unknown: [String] = []
    var uids = Set<UInt32>()
    for name in config.allowUsers {
      if let id = Accounts.userID(name) {
        uids.insert(id)
      } else {
        unknown.append("user '\(name)'")
      }
    }
    var gids = Set<UInt32>()
    for name in config.allowGroups {
      if let id = Accounts.groupID(name) {
        gids.insert(id)
      } else {
        unknown.append("group '\(name)'")
      }
    }
    let restricted = !config.allowUsers.isEmpty || !config.allowGroups.isEmpty
    return (
      PeerAdmission(daemonUID: daemonUID, allowedUIDs: uids, allowedGIDs: gids, restricted: restricted),
      unknown
    )
  }

  /// The groups of `uid` as its account says (getpwuid_r, getgrouplist(3)): for a TCP peer,
  /// whose connection carries no groups. Empty when the uid has no account.
  static func groups(ofUID uid: UInt32) -> [UInt32] {
    guard let user = Accounts.user(id: uid) else { return [] }
    return Accounts.groups(of: user)
  }

}
