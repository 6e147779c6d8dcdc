import LocCore

/// The apps' decisions and registrations on disk, never a position (docs/APPS.md,
/// docs/PRIVACY.md): one file per user, `apps/UID.json` in the state directory (each mode
/// 0600, the directory 0700), in apps.json's format with that user's records only
/// (docs/decisions/0039-apps-store-per-user.md). So one user's apps can neither crowd another's
/// out of a file the reader would refuse nor spoil it: a file over the limit is never
/// written (the user's previous file stays), and a file that cannot be used costs its user
/// only.
///
/// Every file is read through `StateDirectory` (no link, a regular file of locd's own user,
/// no blocking open, `sizeLimit` bytes at most); one that is refused or does not decode is
/// set aside as `NAME.bad`. The single `apps.json` of earlier versions is still read at
/// start and split into the users' files, then removed.
public struct AppStoreFile {
  /// The state directory.
  public let directory: String
  /// The directory of the users' files, inside the state directory.
  public static let directoryName = "apps"
  /// The single file of earlier versions, read at start and split.
  public static let legacyName = "apps.json"
  /// Largest file read: a user's file (and the legacy file, whose limit this was).
  public static let sizeLimit = 32 << 20

  private let state: StateDirectory
  private let users: StateDirectory
  /// The digest (`digest(_:)`) of the bytes last written or read for each user, so a change
  /// writes the files of the users it changed and no other.
  private var written: [UInt32: Int] = [:]
  /// Users whose latest write was refused for its size (logged once until one is written).
  private var overLimit: Set<UInt32> = []

  /// The store of the state directory `directory`.
  public init(directory: String) {
    self.directory = directory
    state = StateDirectory(path: directory)
    users = StateDirectory(path: directory + "/" + AppStoreFile.directoryName)
  }

  /// The directory of the users' files.
  public var path: String { users.path }

  /// The name of `uid`'s file.
  public static func fileName(of uid: UInt32) -> String { "\(uid).json" }

  /// What `load()` found.
  public struct Loaded {
    /// Every user's records (nil: no file at all, the first start).
    public var store: AppStore?
    /// Regions left out of files that were used, in one line (nil: none).
    public var problem: String?
    /// What the log should say: files refused or set aside, modes fixed, the migration.
    public var warnings: [String] = []
    /// Files not used.
    public var refused = 0
  }

  /// Reads every user's file, and the legacy apps.json if there is one (a user's own file,
  /// written after the split, wins over its part of the legacy file); the legacy file is split
  /// into the users' files and removed once every part is written.
  public mutating func load(limit: Int) -> Loaded {
    var loaded = Loaded()
    var records: [AppRecord] = []
    var skipped: [String] = []
    var found = false
    for (_, store) in readUsers(into: &loaded) {
      found = true
      records += store.records
      skipped += store.skippedRegions
    }
    let have = Set(records.map(\.key.uid))
    if let legacy = read(AppStoreFile.legacyName, in: state, uid: nil, into: &loaded) {
      found = true
      let parts = Dictionary(grouping: legacy.records.filter { !have.contains($0.key.uid) }, by: \.key.uid)
      records += parts.values.joined()
      skipped += legacy.skippedRegions
      var unsplit: [String] = []
      for (uid, part) in parts.sorted(by: { $0.key < $1.key }) {
        if let why = write(uid, AppStore(part), limit: limit) { unsplit.append(why) }
      }
      if unsplit.isEmpty, (try? state.remove(AppStoreFile.legacyName)) != nil {
        loaded.warnings.append(
          "\(state.path(of: AppStoreFile.legacyName)) split into \(parts.count) users' files in \(users.path); removed"
        )
      } else {
        loaded.warnings += unsplit.map { "\(state.path(of: AppStoreFile.legacyName)) kept: \($0)" }
      }
    }
    guard found else { return loaded }
    var store = AppStore(records)
    store.skippedRegions = skipped
    loaded.store = store
    loaded.problem = store.problem
    return loaded
  }

  /// What a write did that the log and the counters should know.
  public struct Written {
    /// Log lines: refusals, failures.
    public var problems: [String] = []
    /// The failures alone, in the system's words (`cannot write PATH: ...`).
    public var failures: [String] = []
    /// The refusals of this write, each time (the log has each user's first only), for the
    /// answers to the changes that were not saved.
    public var refusals: [String] = []
    /// Users' files written (or removed) and synced.
    public var written = 0
    /// Users' files not written for their size.
    public var refused = 0
    /// Writes that failed.
    public var failed = 0
  }

  /// Writes the files of the users whose records changed since the last write (each
  /// atomically and synced: `StateDirectory.write`), and removes those of users with no
  /// records left. A file larger than `limit` (at most `sizeLimit`) is not written: the
  /// user's previous file stays, and the refusal is counted and said once until one is.
  public mutating func write(_ store: AppStore, limit: Int) -> Written {
    var result = Written()
    let parts = Dictionary(grouping: store.records, by: \.key.uid)
    for (uid, records) in parts.sorted(by: { $0.key < $1.key }) {
      let bytes = AppStore(records).encoded()
      let digest = AppStoreFile.digest(bytes)
      guard written[uid] != digest else { continue }
      if bytes.count > min(limit, AppStoreFile.sizeLimit) {
        result.refused += 1
        let why =
          "\(users.path(of: AppStoreFile.fileName(of: uid))) not written: uid \(uid)'s apps take \(bytes.count) "
          + "bytes, more than the limit of \(min(limit, AppStoreFile.sizeLimit)) (MaxStoreBytesPerUser=); "
          + "its changes since the last write are kept in memory only, until they fit"
        result.refusals.append(why)
        if overLimit.insert(uid).inserted { result.problems.append(why) }
        continue
      }
      if let why = write(uid, bytes, digest: digest) {
        result.failed += 1
        result.problems.append(why)
        result.failures.append(why)
      } else {
        result.written += 1
      }
    }
    for uid in written.keys where parts[uid] == nil {
      do throws(Errno) {
        try users.remove(AppStoreFile.fileName(of: uid))
        written[uid] = nil
        result.written += 1
      } catch {
        let why = "cannot remove \(users.path(of: AppStoreFile.fileName(of: uid))): \(error)"
        result.failed += 1
        result.problems.append(why)
        result.failures.append(why)
      }
    }
    return result
  }

  // MARK: - Private

  /// Writes one user's part, nil when it is written, else why not.
  private mutating func write(_ uid: UInt32, _ store: AppStore, limit: Int) -> String? {
    let bytes = store.encoded()
    guard bytes.count <= min(limit, AppStoreFile.sizeLimit) else {
      return
        "uid \(uid)'s apps take \(bytes.count) bytes, more than the limit of \(limit) (MaxStoreBytesPerUser=)"
    }
    return write(uid, bytes, digest: AppStoreFile.digest(bytes))
  }

  /// A digest of a file's bytes, hashed as one buffer (an array's own `hashValue` hashes
  /// each byte through the generic path: a fifth of a megabyte store's write).
  static func digest(_ bytes: [UInt8]) -> Int {
    var hasher = Hasher()
    bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    return hasher.finalize()
  }

  private mutating func write(_ uid: UInt32, _ bytes: [UInt8], digest: Int) -> String? {
    do throws(Errno) {
      try StateDirectory.makeDurably(path: users.path)
      try users.write(AppStoreFile.fileName(of: uid), bytes)
    } catch {
      return "cannot write \(users.path(of: AppStoreFile.fileName(of: uid))): \(error)"
    }
    written[uid] = digest
    overLimit.remove(uid)
    return nil
  }

  /// The users' files, each read and checked; the directory made (0700) if missing, and one
  /// that is not a directory of its own set aside first.
  private mutating func readUsers(into loaded: inout Loaded) -> [(UInt32, AppStore)] {
    let info: FileStatus
    do throws(Errno) { info = try FileIO.linkStatus(path: users.path) } catch {
      // No directory yet: no user's file (it is made at the first write, so a machine
      // without apps keeps one file, state.json).
      if error.code == Errno.noSuchFileOrDirectory { return [] }
      loaded.warnings.append("\(users.path): \(error); users' apps files not read")
      return []
    }
    if info.kind != .directory {
      let aside = state.setAside(AppStoreFile.directoryName)
      loaded.refused += 1
      loaded.warnings.append(
        "\(users.path) is \(StateDirectory.kind(info.kind)), not a directory; "
          + (aside.map { "set aside as \($0)" } ?? "cannot be set aside"))
      return []
    }
    let names: [String]
    do throws(Errno) {
      loaded.warnings += try users.prepare(files: [])
      names = try users.names()
    } catch {
      loaded.warnings.append("\(users.path): \(error); users' apps files not read")
      return []
    }
    var out: [(UInt32, AppStore)] = []
    for name in names.sorted() {
      if name.hasSuffix(".tmp") {
        // Left by a write that did not finish: the file it was to replace is still there.
        try? users.remove(name)
        continue
      }
      guard name.hasSuffix(".json"), let uid = UInt32(name.dropLast(".json".count)),
        name == AppStoreFile.fileName(of: uid)
      else { continue }
      if let store = read(name, in: users, uid: uid, into: &loaded) { out.append((uid, store)) }
    }
    return out
  }

  /// The store in `name`, nil when missing or not usable (then set aside and said why).
  /// A user's file (`uid` given) holds that user's records only.
  private mutating func read(
    _ name: String, in directory: StateDirectory, uid: UInt32?, into loaded: inout Loaded
  ) -> AppStore? {
    var why: String
    switch directory.read(name, limit: AppStoreFile.sizeLimit, notes: &loaded.warnings) {
    case .missing: return nil
    case .refused(let reason): why = reason
    case .bytes(let bytes):
      do throws(AppStore.DecodeError) {
        let store = try AppStore(decoding: bytes)
        if let uid {
          if let other = store.records.first(where: { $0.key.uid != uid }) {
            throw AppStore.DecodeError(
              description: "holds a record of uid \(other.key.uid), not only of uid \(uid)")
          }
          written[uid] = AppStoreFile.digest(bytes)
        }
        return store
      } catch {
        why = "\(directory.path(of: name)): \(error)"
      }
    }
    loaded.refused += 1
    let aside = directory.setAside(name)
    let whose = uid.map { "uid \($0)'s apps start without decisions" } ?? "its apps start without decisions"
    loaded.warnings.append(
      "\(why); \(whose)" + (aside.map { " (kept as \($0))" } ?? " (cannot be set aside)"))
    return nil
  }
}
