#if canImport(Glibc)
  import Glibc
#endif

/// File-system change notification (inotify(7)): a descriptor that becomes readable when
/// something happens in the directories it watches.
public enum Inotify {
  /// IN_CLOSE_WRITE: a file opened for writing was closed.
  public static let closeWrite = UInt32(IN_CLOSE_WRITE)
  /// IN_CREATE: a file was created in the directory.
  public static let create = UInt32(IN_CREATE)
  /// IN_DELETE: a file was deleted from the directory.
  public static let delete = UInt32(IN_DELETE)
  /// IN_MOVED_TO: a file was renamed into the directory.
  public static let movedTo = UInt32(IN_MOVED_TO)
  /// IN_MOVED_FROM: a file was renamed out of the directory.
  public static let movedFrom = UInt32(IN_MOVED_FROM)
  /// IN_DELETE_SELF: the directory itself was deleted.
  public static let deleteSelf = UInt32(IN_DELETE_SELF)
  /// IN_MOVE_SELF: the directory itself was renamed.
  public static let moveSelf = UInt32(IN_MOVE_SELF)

  /// A new non-blocking inotify descriptor (inotify_init1(2) IN_NONBLOCK | IN_CLOEXEC).
  public static func open() throws(Errno) -> FileDescriptor {
    FileDescriptor(
      owning: try Syscall.once("inotify_init1") { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) })
  }

  /// Watches `path` for `events` on `inotify` (inotify_add_watch(2)).
  public static func watch(_ path: String, events: UInt32, on inotify: borrowing FileDescriptor) throws(Errno)
  {
    let raw = inotify.rawValue
    _ = try Syscall.once("inotify_add_watch \(path)") { inotify_add_watch(raw, path, events) }
  }
}
