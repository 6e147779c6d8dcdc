#if canImport(Glibc)
  import Glibc
#endif

extension FileIO {
  /// Opens `path` read-only (open(2), O_CLOEXEC); the caller closes the descriptor.
  public static func openForReading(path: String) throws(Errno) -> Int32 {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw Errno(call: "open") }
    return fd
  }

  /// Closes a descriptor (close(2)); errors are ignored, as nothing can be done about them.
  public static func closeFile(fd: Int32) {
    _ = Glibc.close(fd)
  }

  /// Reads `fd` until end of file in chunks of at most `chunkSize` bytes (read(2), EINTR
  /// retried), calling `body` with each chunk as soon as it is read: a pipe is processed as
  /// data arrives, never slurped. The chunk's memory is valid only during the call.
  public static func forEachChunk(
    fd: Int32, chunkSize: Int = 65536, _ body: (UnsafeRawBufferPointer) -> Void
  ) throws(Errno) {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
    defer { buffer.deallocate() }
    while true {
      let n = Glibc.read(fd, buffer.baseAddress, chunkSize)
      if n < 0 {
        if errno == EINTR { continue }
        throw Errno(call: "read")
      }
      if n == 0 { return }
      body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
    }
  }
}
