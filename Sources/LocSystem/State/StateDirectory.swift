import CLocShim
import LocCore

#if canImport(Glibc)
  import Glibc
#endif

/// The state directory (`/var/lib/locd`) and the files locd keeps in it (`state.json`,
/// `timers.json`, and any later one such as `apps.json`), handled so that nothing another
/// user or a crash left in the directory can freeze locd, redirect its writes or feed it a
/// file it did not write:
///
/// - **Reading** opens without following a symbolic link and without waiting on a FIFO
///   (O_NOFOLLOW | O_NONBLOCK), uses only a regular file owned by locd's own user, at most
///   `limit` bytes, and takes read and write away from group and others if a file has them
///   (saying so).
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
  public static func temporaryName(of name: String) -> String { name + ".tmp" }

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
    try FileIO.makeDirectory(path: path, mode: 0o700)
    let directory = try openDirectory()
    let info = try directory.status()
    let me = geteuid()
    if info.st_uid != me && info.st_uid != 0 {
      notes.append(
        "\(path) belongs to uid \(info.st_uid), not to locd's uid \(me): others may change its files")
    } else if info.st_mode & 0o022 != 0 {
      let old = info.st_mode & 0o777
      if fchmod(directory.rawValue, old & ~0o022) == 0 {
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
      if unlinkat(directory.rawValue, temporary, 0) == 0 {
        notes.append("removed \(path(of: temporary)), left by a write that did not finish")
      } else if errno == EISDIR || errno == EPERM {
        _ = unlinkat(directory.rawValue, temporary, AT_REMOVEDIR)  // an empty directory planted there
      }
    }
    return notes
  }

  /// Reads `name` (at most `limit` bytes) as described above; `notes` gets what the log
  /// should say (a mode that was fixed).
  public func read(_ name: String, limit: Int, notes: inout [String]) -> ReadOutcome {
    let file: FileDescriptor
    do {
      let directory = try openDirectory()
      file = try openFile(name, in: directory, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
    } catch {
      if error.code == ENOENT { return .missing }
      if error.code == ELOOP { return .refused("\(path(of: name)) is a symbolic link; not followed") }
      return .refused("\(path(of: name)): \(error)")
    }
    guard let info = try? file.status() else { return .refused("\(path(of: name)): cannot stat it") }
    guard info.st_mode & S_IFMT == S_IFREG else {
      return .refused("\(path(of: name)) is not a regular file (\(StateDirectory.kind(info.st_mode)))")
    }
    let me = geteuid()
    guard info.st_uid == me else {
      return .refused(
        "\(path(of: name)) belongs to uid \(info.st_uid), not to locd's uid \(me); not used, since "
          + "someone else could have written it (remove it, or chown it to uid \(me))")
    }
    if info.st_mode & 0o077 != 0 {
      let old = StateDirectory.octal(info.st_mode & 0o777)
      if fchmod(file.rawValue, 0o600) == 0 {
        notes.append("\(path(of: name)) was mode \(old), readable or writable by others; now 0600")
      } else {
        notes.append(
          "\(path(of: name)) is mode \(old), readable or writable by others, and cannot be changed")
      }
    }
    do { return .bytes(try FileIO.readAll(from: file, limit: limit)) } catch {
      if error.code == EFBIG { return .refused("\(path(of: name)) is larger than \(limit) bytes") }
      return .refused("\(path(of: name)): \(error)")
    }
  }

  /// Replaces `name` with `bytes` atomically, mode 0600, as described above.
  public func write(_ name: String, _ bytes: [UInt8]) throws(Errno) {
    let directory = try openDirectory()
    let temporary = StateDirectory.temporaryName(of: name)
    do throws(Errno) {
      try writeTemporary(temporary, bytes, in: directory)
      _ = try Syscall.retrying("rename \(path(of: temporary))") {
        renameat(directory.rawValue, temporary, directory.rawValue, name)
      }
    } catch {
      _ = unlinkat(directory.rawValue, temporary, 0)
      throw error
    }
    // The rename is durable once the directory is synced; a failure here leaves the new
    // file in place, possibly not yet on disk, which the next write repeats.
    _ = try? Syscall.retrying("fsync \(path)") { fsync(directory.rawValue) }
  }

  /// Removes `name` and its temporary, if they exist.
  public func remove(_ name: String) throws(Errno) {
    let directory = try openDirectory()
    for n in [name, StateDirectory.temporaryName(of: name)] {
      do {
        _ = try Syscall.retrying("unlink \(path(of: n))") { unlinkat(directory.rawValue, n, 0) }
      } catch  where error.code == ENOENT {
        continue
      }
    }
  }

  // MARK: - Private

  private func openDirectory() throws(Errno) -> FileDescriptor {
    try FileDescriptor.open(path, O_RDONLY | O_DIRECTORY, call: "open \(path)")
  }

  private func openFile(
    _ name: String, in directory: borrowing FileDescriptor, _ flags: Int32, mode: mode_t = 0
  )
    throws(Errno) -> FileDescriptor
  {
    let raw = directory.rawValue
    return FileDescriptor(
      owning: try Syscall.retrying("open \(path(of: name))") { locshim_openat(raw, name, flags, mode) })
  }

  /// Writes `bytes` to a new file named `temporary` (anything there before is removed).
  private func writeTemporary(_ temporary: String, _ bytes: [UInt8], in directory: borrowing FileDescriptor)
    throws(Errno)
  {
    let raw = directory.rawValue
    // Whatever has the name now (a FIFO, a symbolic link, a hard link to another file, a
    // crash's leftover) is only a name to remove: the file is never opened through it.
    _ = unlinkat(raw, temporary, 0)
    let number = locshim_open_tmpfile(raw, 0o600)
    if number >= 0 {
      let file = FileDescriptor(owning: number)
      try fill(file, bytes)
      _ = try Syscall.retrying("link \(path(of: temporary))") {
        locshim_link_tmpfile(file.rawValue, raw, temporary)
      }
      try file.close()
      return
    }
    let code = errno
    // No O_TMPFILE on this file system or kernel (EOPNOTSUPP; EISDIR or EINVAL from old
    // kernels): a named temporary instead. Any other failure is the directory's.
    guard code == EOPNOTSUPP || code == EISDIR || code == EINVAL else {
      throw Errno(call: "open a temporary file in \(path)", code: code)
    }
    let file = try openFile(temporary, in: directory, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600)
    try fill(file, bytes)
    try file.close()
  }

  /// Sets mode 0600 (open's mode is masked by the umask), writes and syncs.
  private func fill(_ file: borrowing FileDescriptor, _ bytes: [UInt8]) throws(Errno) {
    _ = try Syscall.retrying("fchmod") { fchmod(file.rawValue, 0o600) }
    try file.writeAll(bytes)
    _ = try Syscall.retrying("fsync") { fsync(file.rawValue) }
  }

  static func octal(_ mode: mode_t) -> String { "0" + String(mode & 0o7777, radix: 8) }

  static func kind(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFIFO: return "a FIFO"
    case S_IFDIR: return "a directory"
    case S_IFSOCK: return "a socket"
    case S_IFCHR: return "a character device"
    case S_IFBLK: return "a block device"
    case S_IFLNK: return "a symbolic link"
    default: return "type \(StateDirectory.octal(mode & S_IFMT))"
    }
  }
}
