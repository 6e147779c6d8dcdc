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
  public var description: String { "\(call): \(String(cString: strerror(code)))" }

  /// EAGAIN (the same as EWOULDBLOCK on Linux): a non-blocking descriptor has nothing now.
  public var isWouldBlock: Bool { code == EAGAIN || code == EWOULDBLOCK }
}
