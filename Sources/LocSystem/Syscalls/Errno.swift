#if canImport(Glibc)
  import Glibc
#endif

/// A failed system call: the `errno` value and the call that set it.
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
  /// The raw `errno`.
  public var code: Int32
  /// The failing call, e.g. "open".
  public var call: String

  /// Captures the current `errno` for `call`.
  public init(call: String, code: Int32 = errno) {
    self.call = call
    self.code = code
  }

  /// `open: No such file or directory`.
  public var description: String { "\(call): \(String(cString: strerror(code)))" }
}
