import CLocShim

#if canImport(Glibc)
  import Glibc
#endif

/// Calls relative to an open directory (openat(2), unlinkat(2), renameat(2)), so that the
/// files a caller touches are those of the directory it opened and checked, and the calls on
/// any open file that only the state files need (fchmod(2), fsync(2)).
extension FileDescriptor {
  /// Opens the directory at `path` (open(2) O_RDONLY | O_DIRECTORY); errors say "open PATH".
  public static func openDirectory(_ path: String) throws(Errno) -> FileDescriptor {
    try open(path, O_RDONLY | O_DIRECTORY, call: "open \(path)")
  }

  /// How `openFile(_:_:mode:call:)` opens a file in a directory.
  public enum OpenMode: Sendable {
    /// For reading, without following a symbolic link, waiting on a FIFO or taking a
    /// terminal (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY).
    case readNoFollow
    /// A new file for writing that must not exist yet, not through a symbolic link
    /// (O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW).
    case createExclusive
  }

  /// Opens `name` in this directory (openat(2) with O_CLOEXEC, through the C shim, which
  /// passes the mode only with O_CREAT); `mode` for a file it creates. EINTR is retried.
  public func openFile(
    _ name: String, _ how: OpenMode, mode: UInt32 = 0, call: @autoclosure () -> String
  ) throws(Errno) -> FileDescriptor {
    let flags: Int32
    switch how {
    case .readNoFollow: flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY
    case .createExclusive: flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW
    }
    let directory = rawValue
    return FileDescriptor(
      owning: try Syscall.retrying(call()) { locshim_openat(directory, name, flags, mode_t(mode)) })
  }

  /// Removes `name` from this directory (unlinkat(2); with `directory`, an empty directory:
  /// AT_REMOVEDIR).
  public func unlink(_ name: String, directory: Bool = false, call: @autoclosure () -> String) throws(Errno) {
    let raw = rawValue
    _ = try Syscall.retrying(call()) { unlinkat(raw, name, directory ? AT_REMOVEDIR : 0) }
  }

  /// Renames `name` to `newName`, both in this directory, replacing `newName` (renameat(2)).
  public func rename(_ name: String, to newName: String, call: @autoclosure () -> String) throws(Errno) {
    let raw = rawValue
    _ = try Syscall.retrying(call()) { renameat(raw, name, raw, newName) }
  }

  /// Sets the permission bits (fchmod(2)).
  public func setPermissions(_ mode: UInt32, call: @autoclosure () -> String = "fchmod") throws(Errno) {
    let raw = rawValue
    _ = try Syscall.retrying(call()) { fchmod(raw, mode_t(mode)) }
  }

  /// Writes what the kernel holds of the file (or of a directory, its entries) to the disk
  /// (fsync(2)).
  public func sync(call: @autoclosure () -> String = "fsync") throws(Errno) {
    let raw = rawValue
    _ = try Syscall.retrying(call()) { fsync(raw) }
  }

  /// A new unnamed regular file in this directory with `mode` (open(2) O_TMPFILE, through
  /// the C shim), or nil when the file system or kernel has no O_TMPFILE (EOPNOTSUPP; EISDIR
  /// or EINVAL from old kernels). Any other failure is thrown as `call`'s.
  public func openUnnamedFile(mode: UInt32, call: @autoclosure () -> String) throws(Errno) -> FileDescriptor?
  {
    let raw = rawValue
    do {
      return FileDescriptor(owning: try Syscall.retrying(call()) { locshim_open_tmpfile(raw, mode_t(mode)) })
    } catch  where error.code == EOPNOTSUPP || error.code == EISDIR || error.code == EINVAL {
      return nil
    }
  }

  /// Gives the unnamed file `file` (from `openUnnamedFile`) the name `name` in this
  /// directory (linkat(2) of /proc/self/fd, through the C shim).
  public func link(unnamed file: borrowing FileDescriptor, as name: String, call: @autoclosure () -> String)
    throws(Errno)
  {
    let raw = rawValue
    let number = file.rawValue
    _ = try Syscall.retrying(call()) { locshim_link_tmpfile(number, raw, name) }
  }
}
