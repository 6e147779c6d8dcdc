import CLocShim

#if canImport(Glibc)
  import Glibc
#endif

/// Two connected descriptors made by one call: a pipe (`first` reads what `second` writes)
/// or a Unix socket pair (both ways). Each end is owned; take them apart by moving them out
/// (`let reader = pair.first`), which @frozen allows in other modules too.
@frozen public struct DescriptorPair: ~Copyable, Sendable {
  /// The pipe's read end, or one end of a socket pair.
  public var first: FileDescriptor
  /// The pipe's write end, or the other end of a socket pair.
  public var second: FileDescriptor

  /// A pipe (pipe2(2), O_CLOEXEC, and O_NONBLOCK on both ends when `nonBlocking`).
  public static func pipe(nonBlocking: Bool = false) throws(Errno) -> DescriptorPair {
    var ends: [Int32] = [-1, -1]
    let flags = O_CLOEXEC | (nonBlocking ? O_NONBLOCK : 0)
    _ = try Syscall.once("pipe2") {
      ends.withUnsafeMutableBufferPointer { locshim_pipe2($0.baseAddress, flags) }
    }
    return DescriptorPair(first: FileDescriptor(owning: ends[0]), second: FileDescriptor(owning: ends[1]))
  }

  /// A connected pair of Unix stream sockets (socketpair(2), close-on-exec, non-blocking
  /// when `nonBlocking`).
  public static func socketPair(nonBlocking: Bool = false) throws(Errno) -> DescriptorPair {
    var ends: [Int32] = [-1, -1]
    var type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
    _ = try Syscall.once("socketpair") { socketpair(AF_UNIX, type, 0, &ends) }
    return DescriptorPair(first: FileDescriptor(owning: ends[0]), second: FileDescriptor(owning: ends[1]))
  }
}
