#if canImport(Glibc)
  import Glibc
#endif

/// How every libc call of the syscall layer (LocClient's and LocSystem's) is checked: the
/// result is compared with the call's failure value, `errno` is read at once (before a
/// string interpolation or an allocation can change it), EINTR is retried where retrying is
/// right, and the failure becomes an `Errno` that names the call. The call's name is an
/// autoclosure, built only on failure. Inlinable, so a wrapper in LocSystem costs what one
/// in this module does.
package enum Syscall {
  /// Runs `body`, one libc call that returns -1 and sets errno on failure, again for as
  /// long as it fails with EINTR (a signal arrived; SA_RESTART is not set for every signal
  /// and does not cover every call, signal(7)); any other failure is thrown as `call`'s.
  /// Written for `Int` (the calls that return `ssize_t`: read, write, send, recv), with an
  /// overload for `Int32` that converts around it; no generic version: one over
  /// FixedWidthInteger was left outlined and unspecialized where another module called it,
  /// so each send went through the protocol's witness table (about 250 instructions a call,
  /// callgrind under the delivery benchmark).
  @inlinable @inline(__always)
  package static func retrying(_ call: @autoclosure () -> String, _ body: () -> Int) throws(Errno) -> Int {
    while true {
      let result = body()
      if result != -1 { return result }
      let code = errno
      if code != EINTR { throw Errno(call: call(), code: code) }
    }
  }

  /// `retrying` for the calls that return `int`.
  @inlinable @inline(__always)
  package static func retrying(_ call: @autoclosure () -> String, _ body: () -> Int32) throws(Errno) -> Int32
  {
    Int32(truncatingIfNeeded: try retrying(call(), { Int(body()) }))
  }

  /// Runs `body` once, for calls where EINTR must not be retried: close(2) (the descriptor
  /// is released even then, and retrying could close one another thread just got) and
  /// connect(2) (EINTR means the connection goes on in the background). Written for `Int`
  /// with an `Int32` overload, as `retrying` is.
  @inlinable @inline(__always)
  package static func once(_ call: @autoclosure () -> String, _ body: () -> Int) throws(Errno) -> Int {
    let result = body()
    if result != -1 { return result }
    let code = errno
    throw Errno(call: call(), code: code)
  }

  /// `once` for the calls that return `int` (poll, close, connect).
  @inlinable @inline(__always)
  package static func once(_ call: @autoclosure () -> String, _ body: () -> Int32) throws(Errno) -> Int32 {
    Int32(truncatingIfNeeded: try once(call(), { Int(body()) }))
  }
}
