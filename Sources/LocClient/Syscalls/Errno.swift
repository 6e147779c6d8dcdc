#if canImport(Glibc)
  import Glibc
#endif

/// A failed system call: the `errno` value and the call that set it.
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
  /// The raw `errno`.
  public var code: Int32
  /// The failing call, e.g. "open" or "connect 127.0.0.1:2947".
  public var call: String

  /// An error `code` from `call`. The code is always passed in: it is read from `errno` by the
  /// wrappers in `Syscall` directly after the failing call, before anything (a string
  /// interpolation, an allocation) can overwrite it.
  public init(call: String, code: Int32) {
    self.call = call
    self.code = code
  }

  /// `open: No such file or directory`.
  public var description: String { "\(call): \(message)" }

  /// What the code means, `No such file or directory` (strerror(3)).
  public var message: String { String(cString: strerror(code)) }

  /// EAGAIN (the same as EWOULDBLOCK on Linux): a non-blocking descriptor has nothing now.
  public var isWouldBlock: Bool { code == EAGAIN || code == EWOULDBLOCK }
}

// The errno values code outside Syscalls/ compares an `Errno.code` with, named as
// swift-system names them (errno(3)), so that code does not import the C library for them.
extension Errno {
  /// ENOENT: no such file or directory.
  public static let noSuchFileOrDirectory = ENOENT
  /// EINVAL: an invalid argument.
  public static let invalidArgument = EINVAL
  /// EINTR: a signal interrupted the call.
  public static let interrupted = EINTR
  /// EPIPE: the reading end is closed.
  public static let brokenPipe = EPIPE
  /// EPERM: the operation is not permitted.
  public static let notPermitted = EPERM
  /// EACCES: permission denied.
  public static let permissionDenied = EACCES
  /// EMFILE: this process has no descriptor left.
  public static let tooManyOpenFiles = EMFILE
  /// ENFILE: the system has no open-file entry left.
  public static let tooManyOpenFilesInSystem = ENFILE
  /// EISDIR: the name is a directory.
  public static let isDirectory = EISDIR
  /// ELOOP: a symbolic link where none may be followed (O_NOFOLLOW), or too many.
  public static let tooManySymbolicLinkLevels = ELOOP
  /// EOPNOTSUPP: the operation is not supported.
  public static let notSupported = EOPNOTSUPP
  /// ENOMEM: out of memory.
  public static let noMemory = ENOMEM
  /// ECANCELED: the operation was cancelled (a timerfd's clock was set).
  public static let canceled = ECANCELED
  /// EPROTO: a protocol error.
  public static let protocolError = EPROTO
  /// EFBIG: the file is too large.
  public static let fileTooLarge = EFBIG
  /// ECONNABORTED: a connection was aborted before it was accepted.
  public static let connectionAbort = ECONNABORTED
  /// EBADMSG: a bad message.
  public static let badMessage = EBADMSG
  /// EEXIST: the file exists.
  public static let fileExists = EEXIST
  /// EADDRINUSE: the address is in use.
  public static let addressInUse = EADDRINUSE
  /// ENAMETOOLONG: a name is too long.
  public static let fileNameTooLong = ENAMETOOLONG
  /// ECONNREFUSED: nobody listens at the address.
  public static let connectionRefused = ECONNREFUSED
  /// ETIMEDOUT: the connection timed out.
  public static let timedOut = ETIMEDOUT
  /// ENOTCONN: the socket (or D-Bus connection) is not connected.
  public static let notConnected = ENOTCONN
}
