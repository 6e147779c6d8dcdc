#if canImport(Glibc)
  import Glibc
#endif

extension FileDescriptor {
  /// Waits until at least one of `descriptors` (numbers of descriptors the caller owns) is
  /// readable, hung up or in error, at most `milliseconds` (-1: without a limit) (poll(2)
  /// POLLIN); the indices into `descriptors` of those that are, in order, empty when the time
  /// ran out. EINTR is thrown, not retried: the caller works out how much of its wait is left.
  public static func waitReadable(_ descriptors: [Int32], milliseconds: Int32) throws(Errno) -> [Int] {
    var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    let ready = try Syscall.once("poll") { poll(&fds, nfds_t(fds.count), milliseconds) }
    guard ready > 0 else { return [] }
    return fds.indices.filter { fds[$0].revents != 0 }
  }
}
