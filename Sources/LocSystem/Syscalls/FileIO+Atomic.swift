#if canImport(Glibc)
  import Glibc
#endif

extension FileIO {
  /// Replaces `path` (in `directory`) with `bytes` atomically, mode 0600: write a temporary
  /// file, fsync, rename over, fsync the directory; a crash leaves the old or the new file.
  public static func replace(path: String, directory: String, with bytes: [UInt8]) throws(Errno) {
    let temporary = path + ".tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else { throw Errno(call: "open \(temporary)") }
    do throws(Errno) {
      // The mode is set explicitly: open's mode is masked by the umask, and a temporary
      // left over from a crash keeps whatever mode it had.
      guard fchmod(fd, 0o600) == 0 else { throw Errno(call: "fchmod") }
      try writeAll(fd: fd, bytes)
      guard fsync(fd) == 0 else { throw Errno(call: "fsync") }
    } catch {
      close(fd)
      unlink(temporary)
      throw error
    }
    close(fd)
    guard rename(temporary, path) == 0 else {
      let e = Errno(call: "rename")
      unlink(temporary)
      throw e
    }
    let dirfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if dirfd >= 0 {
      fsync(dirfd)
      close(dirfd)
    }
  }
}
