#if canImport(Glibc)
  import Glibc
#endif

/// Users and groups as the system's name service knows them (passwd(5), group(5), or
/// whatever NSS asks: systemd-userdb, LDAP). Every lookup of an account in locd goes
/// through `lookUp`, the one loop over the reentrant getpw*_r/getgr*_r calls.
public enum Accounts {
  /// An account of passwd(5).
  public struct User: Sendable, Equatable {
    /// The login name (pw_name).
    public var name: String
    /// The user id (pw_uid).
    public var uid: UInt32
    /// The primary group (pw_gid).
    public var gid: UInt32
    /// The home directory (pw_dir; "/" when it has none).
    public var home: String
  }

  /// The account named `name` (getpwnam_r(3)), or nil when there is none or NSS fails.
  public static func user(named name: String) -> User? {
    lookUp(
      passwd.self, { entry, buffer, size, result in getpwnam_r(name, entry, buffer, size, result) }, user(of:)
    )
  }

  /// The account of `uid` (getpwuid_r(3)), or nil.
  public static func user(id uid: UInt32) -> User? {
    lookUp(
      passwd.self, { entry, buffer, size, result in getpwuid_r(uid, entry, buffer, size, result) }, user(of:))
  }

  /// The id of the group named `name` (getgrnam_r(3)), or nil.
  public static func groupID(named name: String) -> UInt32? {
    lookUp(Glibc.group.self, { entry, buffer, size, result in getgrnam_r(name, entry, buffer, size, result) })
    {
      $0.gr_gid
    }
  }

  /// The uid that `nameOrID` gives: a number as it is, else the account of that name
  /// (getpwnam_r(3)); nil when there is none.
  public static func userID(_ nameOrID: String) -> UInt32? { UInt32(nameOrID) ?? user(named: nameOrID)?.uid }

  /// The gid that `nameOrID` gives: a number as it is, else the group of that name
  /// (getgrnam_r(3)); nil when there is none.
  public static func groupID(_ nameOrID: String) -> UInt32? { UInt32(nameOrID) ?? groupID(named: nameOrID) }

  /// The name of group `gid` (getgrgid_r(3)), or nil.
  public static func groupName(id gid: UInt32) -> String? {
    lookUp(Glibc.group.self, { entry, buffer, size, result in getgrgid_r(gid, entry, buffer, size, result) })
    {
      $0.gr_name.map { String(cString: $0) }
    }
  }

  /// Every group `user` is in, its primary group included (getgrouplist(3)); just the
  /// primary group when the list cannot be had.
  public static func groups(of user: User) -> [UInt32] {
    var count: Int32 = 64
    var groups = [gid_t](repeating: 0, count: Int(count))
    if getgrouplist(user.name, user.gid, &groups, &count) < 0 {
      // Too small: count now says how many there are.
      groups = [gid_t](repeating: 0, count: Int(count))
      guard getgrouplist(user.name, user.gid, &groups, &count) >= 0 else { return [user.gid] }
    }
    return Array(groups.prefix(Int(count)))
  }

  /// A passwd entry as a `User`; nil without a name.
  private static func user(of entry: passwd) -> User? {
    guard let name = entry.pw_name else { return nil }
    return User(
      name: String(cString: name), uid: entry.pw_uid, gid: entry.pw_gid,
      home: entry.pw_dir.map { String(cString: $0) } ?? "/")
  }

  /// The one account lookup: runs a reentrant getpw*_r/getgr*_r `call` with an entry and a
  /// 16 KiB string buffer (enough for any account NSS returns here; ERANGE means nil, as
  /// does "no such entry", which these calls report as 0 with a null result) and reads what
  /// is wanted out of the entry while the buffer its strings point into lives.
  private static func lookUp<Entry, T>(
    _ type: Entry.Type,
    _ call: (
      UnsafeMutablePointer<Entry>, UnsafeMutablePointer<CChar>, Int,
      UnsafeMutablePointer<UnsafeMutablePointer<Entry>?>
    ) -> Int32,
    _ read: (Entry) -> T?
  ) -> T? {
    // A C struct of pointers and integers: zeroed memory is a valid value of it.
    let raw = UnsafeMutableRawPointer.allocate(
      byteCount: MemoryLayout<Entry>.size, alignment: MemoryLayout<Entry>.alignment)
    defer { raw.deallocate() }
    raw.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<Entry>.size)
    let entry = raw.assumingMemoryBound(to: Entry.self)
    var result: UnsafeMutablePointer<Entry>? = nil
    var buffer = [CChar](repeating: 0, count: 16384)
    return buffer.withUnsafeMutableBufferPointer { chars -> T? in
      guard call(entry, chars.baseAddress!, chars.count, &result) == 0, result != nil else { return nil }
      return read(entry.pointee)
    }
  }
}
