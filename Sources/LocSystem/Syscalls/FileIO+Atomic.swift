#if canImport(Glibc)
  import Glibc
#endif

extension FileIO {
  /// Replaces `path` (in `directory`) with `bytes` atomically, mode 0600: write a temporary
  /// file, fsync, rename over, fsync the directory; a crash leaves the old or the new file.
  public static func replace(path: String, directory: String, with bytes: [UInt8]) throws(Errno) {
    let temporary = path + ".tmp"
    do throws(Errno) {
      let file = try FileDescriptor.open(
        temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: 0o600, call: "open \(temporary)")
      // The mode is set explicitly: open's mode is masked by the umask, and a temporary
      // left over from a crash keeps whatever mode it had.
      _ = try Syscall.retrying("fchmod") { fchmod(file.rawValue, 0o600) }
      try file.writeAll(bytes)
      _ = try Syscall.retrying("fsync") { fsync(file.rawValue) }
      try file.close()
      _ = try Syscall.retrying("rename") { rename(temporary, path) }
    } catch {
      unlink(temporary)
      throw error
    }
    // The rename is durable once the directory is synced; a failure here leaves the new
    // file in place, possibly not yet on disk, which the next write repeats.
    if let handle = try? FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY) {
      _ = try? Syscall.retrying("fsync \(directory)") { fsync(handle.rawValue) }
    }
  }
}
