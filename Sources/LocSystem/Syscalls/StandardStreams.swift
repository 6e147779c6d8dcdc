import CLocShim

#if canImport(Glibc)
  import Glibc
#endif

/// Standard output and standard error, which the process inherits and does not own.
/// Output goes through C's buffered `stdout`, the stream `print` uses too, so the two keep
/// their order; errors are written straight to descriptor 2 (write(2)), unbuffered.
public enum StandardStreams {
  /// Appends `text` to standard output's buffer (fputs(3)).
  public static func writeOutput(_ text: String) {
    _ = text.withCString { fputs($0, locshim_stdout()) }
  }

  /// Sends what standard output has buffered (fflush(3)).
  public static func flushOutput() {
    fflush(locshim_stdout())
  }

  /// Makes standard output line-buffered even into a pipe (setvbuf(3) _IOLBF), so a reader
  /// sees each line as it is printed.
  public static func lineBufferOutput() {
    setvbuf(locshim_stdout(), nil, _IOLBF, 0)
  }

  /// Whether standard error is the file `device`:`inode` (fstat(2)), e.g. the journal's
  /// stream that JOURNAL_STREAM names.
  public static func errorIs(device: UInt64, inode: UInt64) -> Bool {
    var info = stat()
    guard (try? Syscall.retrying("fstat", { fstat(STDERR_FILENO, &info) })) != nil else { return false }
    return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
  }

  /// Writes `text` to standard error whole, retrying short writes and EINTR; a failure is
  /// dropped, as there is nowhere left to report it.
  public static func writeError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
      var offset = 0
      while offset < bytes.count {
        let rest = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[offset...])
        guard
          let n = try? Syscall.retrying("write", { Glibc.write(STDERR_FILENO, rest.baseAddress, rest.count) })
        else { return }
        offset += n
      }
    }
  }
}
