import LocCore

#if canImport(Glibc)
  import Glibc
#endif

extension PeerAdmission {
  /// `AllowUsers=` and `AllowGroups=` of `config` resolved to ids (getpwnam_r, getgrnam_r;
  /// a number is taken as an id), once per start and reload: NSS may go to systemd or LDAP.
  /// `unknown` names those that resolve to nobody (they still restrict).
  static func resolving(_ config: DaemonConfig, daemonUID: UInt32) -> (PeerAdmission, unknown: [String]) {
    var unknown: [String] = []
    var uids = Set<UInt32>()
    for name in config.allowUsers {
      if let id = UInt32(name) ?? CommandAccounts.account(named: name)?.uid {
        uids.insert(id)
      } else {
        unknown.append("user '\(name)'")
      }
    }
    var gids = Set<UInt32>()
    for name in config.allowGroups {
      if let id = UnixSocket.groupID(named: name) {
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
    var pwd = passwd()
    var result: UnsafeMutablePointer<passwd>? = nil
    var buffer = [CChar](repeating: 0, count: 16384)
    guard getpwuid_r(uid, &pwd, &buffer, buffer.count, &result) == 0, result != nil, let name = pwd.pw_name
    else { return [] }
    var count: Int32 = 64
    var groups = [gid_t](repeating: 0, count: Int(count))
    if getgrouplist(name, pwd.pw_gid, &groups, &count) < 0 {
      groups = [gid_t](repeating: 0, count: Int(count))
      guard getgrouplist(name, pwd.pw_gid, &groups, &count) >= 0 else { return [pwd.pw_gid] }
    }
    return Array(groups.prefix(Int(count)))
  }
}
