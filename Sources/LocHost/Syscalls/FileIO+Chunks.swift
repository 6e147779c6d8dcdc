extension FileIO {
  /// Reads `file` until its end in chunks of at most `chunkSize` bytes (read(2), EINTR
  /// retried), calling `body` with each chunk as soon as it is read: a pipe is processed as
  /// data arrives, never slurped. The chunk's memory is valid only during the call.
  public static func forEachChunk(
    of file: borrowing FileDescriptor, chunkSize: Int = 65536, _ body: (UnsafeRawBufferPointer) -> Void
  ) throws(Errno) {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
    defer { buffer.deallocate() }
    while true {
      let n = try file.read(into: buffer)
      if n == 0 { return }
      body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
    }
  }
}
