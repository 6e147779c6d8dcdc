#if canImport(Glibc)
  import Glibc
#endif

/// Files by path: whole-file reads with a limit, status, directories (open(2), read(2),
/// stat(2), mkdir(2), opendir(3)); the descriptors they open are `FileDescriptor`s.
public enum FileIO {
  /// Reads a whole file, at most `limit` bytes; more is an error (EFBIG).
  public static func read(path: String, limit: Int = 256 << 20) throws(Errno) -> [UInt8] {
    try readAll(from: try FileDescriptor.open(path, O_RDONLY), limit: limit)
  }

  /// Reads `file` until its end, at most `limit` bytes (EFBIG past it). EINTR is retried.
  public static func readAll(from file: borrowing FileDescriptor, limit: Int = 256 << 20) throws(Errno)
    -> [UInt8]
  {
    var out: [UInt8] = []
    var error: Errno? = nil
    withUnsafeTemporaryAllocation(byteCount: 65536, alignment: 16) { chunk in
      do throws(Errno) {
        while true {
          let n = try file.read(into: chunk)
          if n == 0 { return }
          if out.count + n > limit { throw Errno(call: "read", code: EFBIG) }
          out.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
        }
      } catch let e {
        error = e
      }
    }
    if let error { throw error }
    return out
  }

  /// Opens `path` read-only (open(2), O_CLOEXEC).
  public static func openForReading(path: String) throws(Errno) -> FileDescriptor {
    try FileDescriptor.open(path, O_RDONLY)
  }

  /// Opens `path` read-only without following a symbolic link at it (ELOOP) or waiting on a
  /// FIFO (open(2) O_NOFOLLOW | O_NONBLOCK, O_CLOEXEC): for files others could plant.
  public static func openForReadingNoFollow(path: String) throws(Errno) -> FileDescriptor {
    try FileDescriptor.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  }

  /// Opens a command's input: `path` read-only, or, for `-`, a duplicate of standard input
  /// (which the caller may then close without closing descriptor 0).
  public static func openInput(_ path: String) throws(Errno) -> FileDescriptor {
    path == "-" ? try FileDescriptor.duplicatingStandardInput() : try openForReading(path: path)
  }

  /// Creates (mode 0600) or truncates `path` and writes `bytes` to it; not atomic (see
  /// `replace(path:directory:with:)` for that).
  public static func write(path: String, _ bytes: [UInt8]) throws(Errno) {
    let file = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
    try file.writeAll(bytes)
    try file.close()
  }

  /// The status of `path`, following symbolic links (stat(2)).
  public static func status(path: String) throws(Errno) -> FileStatus {
    var info = stat()
    _ = try Syscall.retrying("stat \(path)") { stat(path, &info) }
    return FileStatus(info)
  }

  /// The status of `path` itself, a symbolic link not followed (lstat(2)).
  public static func linkStatus(path: String) throws(Errno) -> FileStatus {
    var info = stat()
    _ = try Syscall.retrying("lstat \(path)") { lstat(path, &info) }
    return FileStatus(info)
  }

  /// Creates directory `path` with `mode` (mkdir(2)); one that exists already is fine.
  /// Returns whether it was created now.
  @discardableResult public static func makeDirectory(path: String, mode: mode_t) throws(Errno) -> Bool {
    do {
      _ = try Syscall.retrying("mkdir \(path)") { mkdir(path, mode) }
      return true
    } catch  where error.code == EEXIST {
      return false
    }
  }

  /// The names in directory `path`, without "." and ".." (opendir(3), readdir(3)).
  public static func directoryEntries(path: String) throws(Errno) -> [String] {
    guard let directory = opendir(path) else {
      let code = errno
      throw Errno(call: "opendir", code: code)
    }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }
}
