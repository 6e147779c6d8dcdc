import CLocShim

#if canImport(Glibc)
  import Glibc
#endif

/// Reaching a file without following a symbolic link anywhere on its path, and a datagram
/// socket connected to the very socket so reached: for `[Time] ChronySocket=`, where a link
/// planted in a directory others may write would send locd's samples to a socket of their
/// choosing (sendto(2) on a path follows every link on it).
extension FileDescriptor {
  /// Opens the absolute `path` one component at a time from `/` (openat(2) O_PATH |
  /// O_NOFOLLOW), each directory relative to the one before, so no component is a symbolic
  /// link that was followed: a descriptor that only names the last component (the link's
  /// own, if that is a link: `status()` says so), or nil with `link` set to the path up to
  /// the first directory on the way that is a symbolic link. Other failures are thrown
  /// (ENOENT: a component is missing).
  public static func openNamingWithoutLinks(_ path: String, link: inout String?) throws(Errno)
    -> FileDescriptor?
  {
    let parts = path.split(separator: "/").map(String.init)
    guard path.hasPrefix("/"), !parts.isEmpty else { throw Errno(call: "open \(path)", code: EINVAL) }
    var directory = FileDescriptor(
      owning: try Syscall.retrying("open /") { locshim_open_path(AT_FDCWD, "/", 1) })
    var walked = ""
    for (index, name) in parts.enumerated() {
      walked += "/" + name
      let at = directory.rawValue
      if index == parts.count - 1 {
        return FileDescriptor(
          owning: try Syscall.retrying("open \(walked)") { locshim_open_path(at, name, 0) })
      }
      do throws(Errno) {
        directory = FileDescriptor(
          owning: try Syscall.retrying("open \(walked)") { locshim_open_path(at, name, 1) })
      } catch  where error.code == ENOTDIR {
        // A symbolic link is not followed, so it is "not a directory": look at what it is.
        let entry = FileDescriptor(
          owning: try Syscall.retrying("open \(walked)") { locshim_open_path(at, name, 0) })
        guard try entry.status().kind == .symbolicLink else { throw error }
        link = walked
        return nil
      }
    }
    return nil
  }
}

extension UnixSocket {
  /// A non-blocking datagram socket connected to the socket that `pinned` names (an O_PATH
  /// descriptor from `openNamingWithoutLinks`), through its /proc/self/fd entry: the socket
  /// that was checked, whatever its path names by now. Sends on it go there until that
  /// socket closes (chronyd stopped: ECONNREFUSED), never to a later file at the path.
  public static func connectDatagram(to pinned: borrowing FileDescriptor) throws(Errno) -> FileDescriptor {
    let flags = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
    let socket = FileDescriptor(owning: try Syscall.retrying("socket") { Glibc.socket(AF_UNIX, flags, 0) })
    let path = "/proc/self/fd/\(pinned.rawValue)"
    let raw = socket.rawValue
    // connect(2) of a datagram socket does not wait: EINTR cannot leave it half done.
    _ = try withAddress(path) { address, length throws(Errno) in
      try Syscall.once("connect \(path)") { Glibc.connect(raw, address, length) }
    }
    return socket
  }

  /// Sends `bytes` as one datagram on the connected `socket` (send(2), MSG_DONTWAIT |
  /// MSG_NOSIGNAL): a full receiver is EAGAIN, thrown like any other failure.
  public static func sendDatagram(_ bytes: [UInt8], on socket: borrowing FileDescriptor) throws(Errno) {
    let fd = socket.rawValue
    let outcome = bytes.withUnsafeBytes { raw in
      Result { () throws(Errno) in
        try Syscall.retrying("send") {
          Glibc.send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
      }
    }
    _ = try outcome.get()
  }
}
