#if canImport(Glibc)
  import Glibc
#endif

/// Files and directories with a name made unique at creation (mkdtemp(3), mkstemp(3)).
extension FileIO {
  /// Creates a new directory, mode 0700, named `prefix` followed by six random characters
  /// (mkdtemp(3)), and returns its path.
  public static func makeTemporaryDirectory(prefix: String) throws(Errno) -> String {
    var template = Array((prefix + "XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
    guard made else {
      let code = errno
      throw Errno(call: "mkdtemp \(prefix)XXXXXX", code: code)
    }
    return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
  }

  /// Creates a new file, mode 0600, named `prefix` followed by six random characters
  /// (mkstemp(3)), writes `bytes` to it whole and closes it; returns its path.
  /// A file that could not be written whole is left where it is.
  public static func writeTemporaryFile(prefix: String, _ bytes: [UInt8]) throws(Errno) -> String {
    var template = Array((prefix + "XXXXXX").utf8CString)
    let number = try Syscall.retrying("mkstemp \(prefix)XXXXXX") {
      template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    }
    let file = FileDescriptor(owning: number)
    try file.writeAll(bytes)
    try file.close()
    return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
  }
}
