import LocCore

/// The state directory (`/var/lib/locd`) and the files locd keeps in it (`state.json`,
/// `timers.json`, and any later one such as `apps.json`), handled so that nothing another
/// user or a crash left in the directory can freeze locd, redirect its writes or feed it a
/// file it did not write:
///
/// - **Reading** opens without following a symbolic link and without waiting on a FIFO
///   (O_NOFOLLOW | O_NONBLOCK), uses only a regular file with one name (no hard link) owned
///   by locd's own user, at most `limit` bytes, and takes read and write away from group and
///   others if a file has them (saying so). Every file locd reads from its state directory
///   (state.json, timers.json, the apps store) is read here, and nowhere else.
/// - **Writing** puts the bytes in an unnamed file (O_TMPFILE), syncs it, gives it the
///   temporary name `NAME.tmp` (removing whatever was there first: a FIFO, a symbolic link,
///   a hard link to another file) and renames it over `NAME`, then syncs the directory. A
///   crash while writing leaves nothing; only between naming and renaming, for a moment, is
///   there a complete `NAME.tmp`. On file systems without O_TMPFILE the temporary is created
///   with O_EXCL | O_NOFOLLOW after removing the name. The mode is 0600 whatever the umask.
/// - **At start** (`prepare`), the directory is created (0700) if missing, group and other
///   write permission is taken away, and every `NAME.tmp` left by a crash is removed: it may
///   hold a position.
///
/// Each operation opens the directory once and works relative to it (openat, renameat,
/// unlinkat), so the files it touches are the ones in the directory it checked.
public struct StateDirectory: Sendable {
  /// The directory's path.
  public let path: String

  /// The directory at `path`.
  public init(path: String) { self.path = path }

  /// The temporary name a file is written under before it replaces `name`.
  public static func temporaryName(of name: String) -> String { FileIO.temporaryName(of: name) }

  /// The path of `name` in the directory.
  public func path(of name: String) -> String { path + "/" + name }

  /// What reading a file found.
  public enum ReadOutcome: Sendable, Equatable {
    /// No such file (the first start).
    case missing
    /// Its bytes.
    case bytes([UInt8])
    /// Not used, and why (names the file, never its content).
    case refused(String)
  }

  /// Creates the directory if it is missing (mode 0700), takes write permission away from
  /// group and others, and removes the temporaries of `files` left by a crash. Returns what
  /// it did or found that the log should say; throws only when the directory is unusable.
  public func prepare(files: [String]) throws(Errno) -> [String] {
    var notes: [String] = []
    try StateDirectory.makeDurably(path: path)
    let directory = try openDirectory()
    let info = try directory.status()
    let me = CurrentProcess.effectiveUserID
    if info.owner != me && info.owner != 0 {
      notes.append(
        "\(path) belongs to uid \(info.owner), not to locd's uid \(me): others may change its files")
    } else if info.permissions & 0o022 != 0 {
      let old = info.permissions & 0o777
      if (try? directory.setPermissions(old & ~0o022)) != nil {
        notes.append(
          "\(path) was mode \(StateDirectory.octal(old)), writable by others; now \(StateDirectory.octal(old & ~0o022))"
        )
      } else {
        notes.append(
          "\(path) is mode \(StateDirectory.octal(old)), writable by others, and cannot be changed")
      }
    }
    for name in files {
      let temporary = StateDirectory.temporaryName(of: name)
      do {
        try directory.unlink(temporary, call: "unlink \(path(of: temporary))")
        notes.append("removed \(path(of: temporary)), left by a write that did not finish")
      } catch  where error.code == Errno.isDirectory || error.code == Errno.notPermitted {
        try? directory.unlink(temporary, directory: true, call: "rmdir")  // an empty directory planted there
      } catch {}
    }
    return notes
  }

  /// Reads `name` (at most `limit` bytes) as described above; `notes` gets what the log
  /// should say (a mode that was fixed).
  public func read(_ name: String, limit: Int, notes: inout [String]) -> ReadOutcome {
    let file: FileDescriptor
    do {
      let directory = try openDirectory()
      file = try directory.openFile(name, .readNoFollow, call: "open \(path(of: name))")
    } catch {
      if error.code == Errno.noSuchFileOrDirectory { return .missing }
      if error.code == Errno.tooManySymbolicLinkLevels {
        return .refused("\(path(of: name)) is a symbolic link; not followed")
      }
      return .refused("\(path(of: name)): \(error)")
    }
    guard let info = try? file.status() else { return .refused("\(path(of: name)): cannot stat it") }
    guard info.kind == .regular else {
      return .refused("\(path(of: name)) is not a regular file (\(StateDirectory.kind(info.kind)))")
    }
    guard info.linkCount == 1 else {
      return .refused(
        "\(path(of: name)) has \(info.linkCount) names (hard links); not used, since another name "
          + "could have written it")
    }
    let me = CurrentProcess.effectiveUserID
    guard info.owner == me else {
      return .refused(
        "\(path(of: name)) belongs to uid \(info.owner), not to locd's uid \(me); not used, since "
          + "someone else could have written it (remove it, or chown it to uid \(me))")
    }
    if info.permissions & 0o077 != 0 {
      let old = StateDirectory.octal(info.permissions & 0o777)
      if (try? file.setPermissions(0o600)) != nil {
        notes.append("\(path(of: name)) was mode \(old), readable or writable by others; now 0600")
      } else {
        notes.append(
          "\(path(of: name)) is mode \(old), readable or writable by others, and cannot be changed")
      }
    }
    do { return .bytes(try FileIO.readAll(from: file, limit: limit)) } catch {
      if error.code == Errno.fileTooLarge {
        return .refused("\(path(of: name)) is larger than \(limit) bytes")
      }
      return .refused("\(path(of: name)): \(error)")
    }
  }

  /// Replaces `name` with `bytes` atomically, mode 0600, as described above
  /// (`FileIO.replace(_:in:directoryPath:with:)`).
  public func write(_ name: String, _ bytes: [UInt8]) throws(Errno) {
    let directory = try openDirectory()
    try FileIO.replace(name, in: directory, directoryPath: path, with: bytes)
  }

  /// The name a refused or unreadable file is set aside under: `NAME.bad`.
  public static func asideName(of name: String) -> String { name + ".bad" }

  /// Renames `name` to `NAME.bad` (replacing an older one; renameat(2) moves the name, never
  /// opens what it names), so the next write does not destroy what an administrator may want
  /// to look at: the path it now has, or nil if it could not be moved.
  public func setAside(_ name: String) -> String? {
    let aside = StateDirectory.asideName(of: name)
    guard let directory = try? openDirectory(),
      (try? directory.rename(name, to: aside, call: "rename \(path(of: name))")) != nil
    else { return nil }
    return path(of: aside)
  }

  /// The names in the directory (without "." and "..").
  public func names() throws(Errno) -> [String] { try FileIO.directoryEntries(path: path) }

  /// Removes `name` and its temporary, if they exist, and syncs the directory (the removal
  /// survives a power cut).
  public func remove(_ name: String) throws(Errno) {
    let directory = try openDirectory()
    for n in [name, StateDirectory.temporaryName(of: name)] {
      do {
        try directory.unlink(n, call: "unlink \(path(of: n))")
      } catch  where error.code == Errno.noSuchFileOrDirectory {
        continue
      }
    }
    try directory.sync(call: "fsync \(path)")
  }

  /// Creates the directory `path` (mode 0700) if it is missing, and then syncs the
  /// directory that holds it, so the new name survives a power cut as the files written in
  /// it do.
  public static func makeDurably(path: String) throws(Errno) {
    guard try FileIO.makeDirectory(path: path, mode: 0o700) else { return }
    let parent = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
    try FileDescriptor.openDirectory(parent.isEmpty ? "/" : parent).sync(call: "fsync \(parent)")
  }

  // MARK: - Private

  private func openDirectory() throws(Errno) -> FileDescriptor {
    try FileDescriptor.openDirectory(path)
  }

  static func octal(_ mode: UInt32) -> String { "0" + String(mode & 0o7777, radix: 8) }

  static func kind(_ kind: FileStatus.Kind) -> String {
    switch kind {
    case .fifo: return "a FIFO"
    case .directory: return "a directory"
    case .socket: return "a socket"
    case .characterDevice: return "a character device"
    case .blockDevice: return "a block device"
    case .symbolicLink: return "a symbolic link"
    case .regular: return "a regular file"
    case .other(let bits): return "type \(StateDirectory.octal(bits))"
    }
  }
}
