#if canImport(Glibc)
  import Glibc
#endif

/// Whole-file reads and writes over plain file descriptors (open(2), read(2), write(2)).
public enum FileIO {
  /// Reads a whole file, at most `limit` bytes; more is an error (EFBIG).
  public static func read(path: String, limit: Int = 256 << 20) throws(Errno) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw Errno(call: "open") }
    defer { close(fd) }
    return try readAll(fd: fd, limit: limit)
  }

  /// Reads from `fd` until end of file, at most `limit` bytes (EFBIG past it). EINTR is retried.
  public static func readAll(fd: Int32, limit: Int = 256 << 20) throws(Errno) -> [UInt8] {
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        throw Errno(call: "read")
      }
      if n == 0 { return out }
      if out.count + n > limit { throw Errno(call: "read", code: EFBIG) }
      out.append(contentsOf: chunk[0..<n])
    }
  }

  /// Writes all of `bytes` to `fd`, retrying short writes and EINTR.
  public static func writeAll(fd: Int32, _ bytes: some Collection<UInt8>) throws(Errno) {
    var array = Array(bytes)
    var offset = 0
    while offset < array.count {
      let n = array.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
      if n < 0 {
        if errno == EINTR { continue }
        throw Errno(call: "write")
      }
      offset += n
    }
    array.removeAll()
  }
}
