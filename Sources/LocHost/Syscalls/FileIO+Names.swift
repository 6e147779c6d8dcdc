#if canImport(Glibc)
  import Glibc
#endif

/// Calls on a file's name rather than its content: whether it exists, what a symbolic link
/// points to, renaming and removing.
extension FileIO {
  /// Whether something exists at `path` (access(2) F_OK; a dangling symbolic link does not).
  public static func exists(path: String) -> Bool { access(path, F_OK) == 0 }

  /// Whether this process may execute `path` (access(2) X_OK, with the real ids).
  public static func isExecutable(path: String) -> Bool { access(path, X_OK) == 0 }

  /// The target of the symbolic link at `path` (readlink(2), up to 4095 bytes), or nil.
  public static func linkTarget(path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink(path, &buffer, buffer.count - 1)
    guard n > 0 else { return nil }
    return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Renames `path` to `newPath`, replacing it (rename(2)).
  public static func rename(path: String, to newPath: String) throws(Errno) {
    _ = try Syscall.retrying("rename \(path)") { Glibc.rename(path, newPath) }
  }

  /// Removes the name `path` (unlink(2)).
  public static func remove(path: String) throws(Errno) {
    _ = try Syscall.retrying("unlink \(path)") { unlink(path) }
  }

  /// Removes the empty directory `path` (rmdir(2)).
  public static func removeDirectory(path: String) throws(Errno) {
    _ = try Syscall.retrying("rmdir \(path)") { rmdir(path) }
  }
}
