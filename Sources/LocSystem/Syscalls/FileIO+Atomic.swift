extension FileIO {
  /// Replaces `path` (a file directly in `directory`) with `bytes` atomically, mode 0600,
  /// the way `StateDirectory.write` does: nothing already in the directory (a FIFO, a
  /// symbolic or hard link at the temporary name) can block or redirect the write.
  public static func replace(path: String, directory: String, with bytes: [UInt8]) throws(Errno) {
    let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
    try StateDirectory(path: directory).write(name, bytes)
  }
}
