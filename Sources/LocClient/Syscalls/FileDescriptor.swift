#if canImport(Glibc)
  import Glibc
#endif

/// An open file descriptor owned by this value: a socket, a device, a pipe end, a timerfd,
/// a file. It is closed exactly once, when the value's life ends or by `close()`, which
/// consumes it. The type is ~Copyable, so a descriptor has one owner and a second close
/// does not compile; code that only uses it takes it `borrowing`. `rawValue` is for calls
/// that take the number for the length of one call (sd-event, termios); whoever takes it
/// must not close it. A close that finds the number already closed (EBADF) means some code
/// closed a descriptor it did not own, which is a bug: it traps. See decision 0010.
public struct FileDescriptor: ~Copyable, Sendable {
  /// The descriptor's number.
  public let rawValue: Int32

  /// Takes ownership of the open descriptor `rawValue` (from socket(2), open(2), a C shim).
  public init(owning rawValue: Int32) {
    precondition(rawValue >= 0, "not a descriptor: \(rawValue)")
    self.rawValue = rawValue
  }

  deinit { FileDescriptor.release(rawValue) }

  /// Closes now (close(2)) and reports what close said: EIO from a device or a network
  /// file system that lost written data. EINTR is not an error here: on Linux the
  /// descriptor is released even then, so it is never retried.
  public consuming func close() throws(Errno) {
    let number = rawValue
    discard self
    do throws(Errno) {
      _ = try Syscall.once("close", { Glibc.close(number) })
    } catch {
      precondition(error.code != EBADF, "close(\(number)): not open; closed twice or by someone else")
      if error.code != EINTR { throw error }
    }
  }

  /// close(2) for `deinit`, where nothing can be done about EIO: the value is gone.
  private static func release(_ number: Int32) {
    if Glibc.close(number) == -1 {
      let code = errno
      precondition(code != EBADF, "close(\(number)): not open; closed twice or by someone else")
    }
  }

  /// Opens `path` with `flags` (open(2); O_CLOEXEC is always added) and `mode` for files it
  /// creates. EINTR (a FIFO or a tty waiting for its other side) is retried. Errors name the
  /// call `call` ("open" unless the caller's message lacks the path).
  package static func open(
    _ path: String, _ flags: Int32, mode: mode_t = 0, call: @autoclosure () -> String = "open"
  ) throws(Errno) -> FileDescriptor {
    let number = try Syscall.retrying(call()) { Glibc.open(path, flags | O_CLOEXEC, mode) }
    return FileDescriptor(owning: number)
  }

  /// A new descriptor for what standard input refers to (fcntl(2) F_DUPFD_CLOEXEC), so a
  /// reader can own and close it without closing descriptor 0.
  public static func duplicatingStandardInput() throws(Errno) -> FileDescriptor {
    FileDescriptor(owning: try Syscall.retrying("dup stdin") { fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0) })
  }

  /// Makes reads and writes return EAGAIN instead of waiting (fcntl(2) O_NONBLOCK).
  public func setNonBlocking() throws(Errno) {
    let flags = try Syscall.retrying("fcntl F_GETFL") { fcntl(rawValue, F_GETFL) }
    _ = try Syscall.retrying("fcntl F_SETFL") { fcntl(rawValue, F_SETFL, flags | O_NONBLOCK) }
  }

  /// The file's type, owner, mode and size (fstat(2)).
  public func status() throws(Errno) -> FileStatus {
    var info = stat()
    _ = try Syscall.retrying("fstat") { fstat(rawValue, &info) }
    return FileStatus(info)
  }
}

extension FileDescriptor {
  /// What a read of a non-blocking descriptor found.
  public enum ReadResult: Equatable, Sendable {
    /// This many bytes (at least one) were read.
    case bytes(Int)
    /// The other side closed (read returned 0): a peer's FIN, a pipe's last writer, a
    /// file's end, an unplugged tty.
    case endOfFile
    /// Nothing there now (EAGAIN); the loop says when there is.
    case wouldBlock
  }

  /// Reads at most `buffer.count` bytes (read(2)), retrying EINTR; 0 is the end of the file.
  /// A non-blocking descriptor with nothing to read throws EAGAIN (`Errno.isWouldBlock`).
  public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
    try Syscall.retrying("read") { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
  }

  /// Reads at most `buffer.count` bytes from a non-blocking descriptor (read(2)), retrying
  /// EINTR, and tells data, end of file and "nothing now" apart; other failures are thrown.
  public func readNonBlocking(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> ReadResult {
    do {
      let n = try read(into: buffer)
      return n == 0 ? .endOfFile : .bytes(n)
    } catch  where error.isWouldBlock {
      return .wouldBlock
    }
  }

  /// Writes up to `bytes.count` bytes (write(2)), retrying EINTR; returns how many went.
  public func write(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int {
    try Syscall.retrying("write") { Glibc.write(rawValue, bytes.baseAddress, bytes.count) }
  }

  /// Writes all of `bytes` to a blocking descriptor: short writes continue, EINTR is retried.
  public func writeAll(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
    try FileDescriptor.writeAll(bytes, to: rawValue)
  }

  /// The one write-all loop: write(2) to descriptor `number` (owned by someone else, such as
  /// standard output) until all of `bytes` went, short writes continued, EINTR retried.
  package static func writeAll(_ bytes: UnsafeRawBufferPointer, to number: Int32) throws(Errno) {
    var offset = 0
    while offset < bytes.count {
      let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
      offset += try Syscall.retrying("write") { Glibc.write(number, rest.baseAddress, rest.count) }
    }
  }

  /// Sends all of `bytes` on a blocking connected socket (send(2) with MSG_NOSIGNAL): short
  /// sends continue, EINTR is retried, and a peer that went away is EPIPE, thrown, never a
  /// SIGPIPE (which would end the process: an app that links LocationManager, say).
  public func sendAll(_ bytes: [UInt8]) throws(Errno) {
    let outcome = bytes.withUnsafeBytes { raw in
      Result { () throws(Errno) in
        var offset = 0
        while offset < raw.count {
          let rest = UnsafeRawBufferPointer(rebasing: raw[offset...])
          offset += try Syscall.retrying("send") {
            Glibc.send(rawValue, rest.baseAddress, rest.count, Int32(MSG_NOSIGNAL))
          }
        }
      }
    }
    try outcome.get()
  }

  /// Writes all of `bytes` (see `writeAll(_:)`).
  public func writeAll(_ bytes: [UInt8]) throws(Errno) {
    let outcome = bytes.withUnsafeBytes { raw in Result { () throws(Errno) in try writeAll(raw) } }
    try outcome.get()
  }
}
