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
    let status = FileStatus(info)
    return status.device == device && status.inode == inode
  }

  /// Writes `text` to standard error whole, retrying short writes and EINTR; a failure is
  /// dropped, as there is nowhere left to report it.
  public static func writeError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in try? FileDescriptor.writeAll(UnsafeRawBufferPointer(bytes), to: STDERR_FILENO) }
  }

  /// Writes all of `bytes` to standard output's descriptor, around C's buffer (write(2),
  /// short writes continued, EINTR retried); for programs that keep their own buffer.
  public static func writeAllOutput(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
    try FileDescriptor.writeAll(bytes, to: STDOUT_FILENO)
  }

  /// Standard output's terminal width in columns (ioctl(2) TIOCGWINSZ); nil when it is no
  /// terminal or says no width.
  public static var outputColumns: Int? {
    var size = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
  }

  /// Whether standard output is a terminal (isatty(3)).
  public static var outputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

  /// Whether standard error is a terminal (isatty(3)).
  public static var errorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

  /// Whether standard input is a terminal (isatty(3)).
  public static var inputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
}
