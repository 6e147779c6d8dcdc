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
  @inlinable @inline(__always)
  package static func retrying<R: FixedWidthInteger>(_ call: @autoclosure () -> String, _ body: () -> R)
    throws(Errno)
    -> R
  {
    while true {
      let result = body()
      if result != -1 { return result }
      let code = errno
      if code != EINTR { throw Errno(call: call(), code: code) }
    }
  }

  /// `retrying` for the calls that return `ssize_t` (read, write, send, recv), written out
  /// for `Int`: the optimizer left the generic one outlined and unspecialized where another
  /// module calls it, so each send went through FixedWidthInteger's witness table (about
  /// 250 instructions a call, measured with callgrind under the delivery benchmark).
  @inlinable @inline(__always)
  package static func retrying(_ call: @autoclosure () -> String, _ body: () -> Int) throws(Errno) -> Int {
    while true {
      let result = body()
      if result != -1 { return result }
      let code = errno
      if code != EINTR { throw Errno(call: call(), code: code) }
    }
  }

  /// `retrying` for the calls that return `int`, written out for `Int32` (as the `Int` one).
  @inlinable @inline(__always)
  package static func retrying(_ call: @autoclosure () -> String, _ body: () -> Int32) throws(Errno) -> Int32
  {
    while true {
      let result = body()
      if result != -1 { return result }
      let code = errno
      if code != EINTR { throw Errno(call: call(), code: code) }
    }
  }

  /// Runs `body` once, for calls where EINTR must not be retried: close(2) (the descriptor
  /// is released even then, and retrying could close one another thread just got) and
  /// connect(2) (EINTR means the connection goes on in the background).
  @inlinable @inline(__always)
  package static func once<R: FixedWidthInteger>(_ call: @autoclosure () -> String, _ body: () -> R)
    throws(Errno)
    -> R
  {
    let result = body()
    if result != -1 { return result }
    let code = errno
    throw Errno(call: call(), code: code)
  }

  /// `once` written out for `Int32` (poll, close, connect), as `retrying` is.
  @inlinable @inline(__always)
  package static func once(_ call: @autoclosure () -> String, _ body: () -> Int32) throws(Errno) -> Int32 {
    let result = body()
    if result != -1 { return result }
    let code = errno
    throw Errno(call: call(), code: code)
  }
}
