#if canImport(Glibc)
  import Glibc
#endif

/// What glibc's allocator says of the heap.
public enum HeapReport {
  /// malloc_info(3)'s XML report of every arena (free chunks, mmapped chunks, the arenas'
  /// sizes), or nil when the C library has no malloc_info (looked up with dlsym(3) in the
  /// default scope: the Glibc module does not declare it) or the report cannot be written
  /// (open_memstream(3)).
  public static func mallocInfo() -> String? {
    typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
    guard let symbol = dlsym(nil, "malloc_info") else { return nil }
    let mallocInfo = unsafeBitCast(symbol, to: MallocInfo.self)
    var buffer: UnsafeMutablePointer<CChar>?
    var length = 0
    guard let stream = open_memstream(&buffer, &length) else { return nil }
    let written = mallocInfo(0, stream)
    fclose(stream)
    guard let buffer else { return nil }
    defer { free(buffer) }
    return written == 0 ? String(cString: buffer) : nil
  }
}
