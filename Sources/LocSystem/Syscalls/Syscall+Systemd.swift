extension Syscall {
  /// Checks the result of an sd-* call of libsystemd, which returns a negative errno
  /// instead of setting errno (sd-event(3), sd-bus(3)).
  @inline(__always)
  package static func systemd(_ call: @autoclosure () -> String, _ result: Int32) throws(Errno) -> Int32 {
    if result < 0 { throw Errno(call: call(), code: -result) }
    return result
  }
}
