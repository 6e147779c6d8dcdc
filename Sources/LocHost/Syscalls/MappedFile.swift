#if canImport(Glibc)
  import Glibc
#endif

/// A whole file mapped read-only into memory (open(2), fstat(2), mmap(2); munmap(2) when
/// released). Pages are read on first touch, so mapping costs no I/O and the resident set
/// grows only by the pages used. The file must not be truncated while mapped (reading a
/// page past its new end raises SIGBUS); `make install` replaces files by writing new ones.
public final class MappedFile {
  /// The path the file was opened by.
  public let path: String
  /// The file's bytes; valid while this object lives.
  public let bytes: UnsafeRawBufferPointer

  /// Maps `path`; an empty file maps to an empty buffer.
  public init(path: String) throws(Errno) {
    // The descriptor is closed when this initializer returns: the mapping stays valid
    // without it (mmap(2)).
    let file = try FileDescriptor.open(path, O_RDONLY)
    let info = try file.status()
    guard info.kind == .regular else { throw Errno(call: "open", code: EINVAL) }
    let size = info.size
    self.path = path
    guard size > 0 else {
      bytes = UnsafeRawBufferPointer(start: nil, count: 0)
      return
    }
    let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, file.rawValue, 0)
    guard let address, address != MAP_FAILED else {
      let code = errno
      throw Errno(call: "mmap", code: code)
    }
    // Lookups jump around the file: no read-ahead, and fault in only the page touched
    // (madvise(2) MADV_RANDOM); a failure here only costs memory.
    _ = madvise(address, size, MADV_RANDOM)
    bytes = UnsafeRawBufferPointer(start: address, count: size)
  }

  deinit {
    if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
  }
}
