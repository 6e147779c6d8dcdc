extension FileIO {
  /// The temporary name a file is written under before it replaces `name`: `NAME.tmp`.
  public static func temporaryName(of name: String) -> String { name + ".tmp" }

  /// Replaces `path` (a file directly in `directory`) with `bytes` atomically, mode 0600,
  /// as `replace(_:in:directoryPath:with:)` does, opening the directory first.
  public static func replace(path: String, directory: String, with bytes: [UInt8]) throws(Errno) {
    let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
    let opened = try FileDescriptor.openDirectory(directory)
    try replace(name, in: opened, directoryPath: directory, with: bytes)
  }

  /// Replaces `name` in the open `directory` (whose path is `directoryPath`, for messages)
  /// with `bytes` atomically, mode 0600 whatever the umask: the bytes go into an unnamed
  /// file (O_TMPFILE), synced, named `NAME.tmp` (whatever had that name first, a FIFO, a
  /// symbolic or hard link, a crash's leftover, is removed, never opened) and renamed over
  /// `name`; then the directory is synced, so the new name survives a power cut too. Without
  /// O_TMPFILE the temporary is created with O_EXCL | O_NOFOLLOW. On failure the temporary
  /// is removed; a failure to sync the directory is thrown as well (the new content is in
  /// place but may not be on disk), so a caller never takes for saved what may not be.
  public static func replace(
    _ name: String, in directory: borrowing FileDescriptor, directoryPath: String, with bytes: [UInt8]
  ) throws(Errno) {
    let temporary = temporaryName(of: name)
    do throws(Errno) {
      try writeTemporary(temporary, bytes, in: directory, directoryPath: directoryPath)
      try directory.rename(temporary, to: name, call: "rename \(directoryPath)/\(temporary)")
    } catch {
      try? directory.unlink(temporary, call: "unlink")
      throw error
    }
    // The rename is durable once the directory is synced.
    try directory.sync(call: "fsync \(directoryPath)")
  }

  /// Writes `bytes` to a new file named `temporary` (anything there before is removed).
  private static func writeTemporary(
    _ temporary: String, _ bytes: [UInt8], in directory: borrowing FileDescriptor, directoryPath: String
  ) throws(Errno) {
    // Whatever has the name now is only a name to remove: the file is never opened through it.
    try? directory.unlink(temporary, call: "unlink")
    if let file = try directory.openUnnamedFile(
      mode: 0o600, call: "open a temporary file in \(directoryPath)")
    {
      try fill(file, bytes)
      try directory.link(unnamed: file, as: temporary, call: "link \(directoryPath)/\(temporary)")
      try file.close()
      return
    }
    let file = try directory.openFile(
      temporary, .createExclusive, mode: 0o600, call: "open \(directoryPath)/\(temporary)")
    try fill(file, bytes)
    try file.close()
  }

  /// Sets mode 0600 (open's mode is masked by the umask), writes and syncs.
  private static func fill(_ file: borrowing FileDescriptor, _ bytes: [UInt8]) throws(Errno) {
    try file.setPermissions(0o600)
    try file.writeAll(bytes)
    try file.sync()
  }
}
