#if canImport(Glibc)
  import Glibc
#endif

/// What a client needs of a connected socket besides reading and writing: waiting for its
/// answer and hanging up (the daemon's socket calls are in LocSystem's FileDescriptor+Socket).
extension FileDescriptor {
  /// Waits until the descriptor is readable, at most `milliseconds` (-1: without a limit)
  /// (poll(2) POLLIN); false when the time ran out. EINTR is thrown, not retried: the
  /// caller works out how much of its wait is left.
  public func waitReadable(milliseconds: Int32) throws(Errno) -> Bool {
    var p = pollfd(fd: rawValue, events: Int16(POLLIN), revents: 0)
    return try Syscall.once("poll") { poll(&p, 1, milliseconds) } > 0
  }

  /// Shuts both directions of a connected socket down (shutdown(2), SHUT_RDWR): a thread
  /// blocked reading it wakes to end of stream, and the descriptor stays open for its owner
  /// to close. ENOTCONN (the peer is already gone) is not an error.
  public func shutdownBoth() throws(Errno) {
    do {
      _ = try Syscall.once("shutdown") { Glibc.shutdown(rawValue, Int32(SHUT_RDWR)) }
    } catch  where error.code == ENOTCONN {
      return
    }
  }
}
