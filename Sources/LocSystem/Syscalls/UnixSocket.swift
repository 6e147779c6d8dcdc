import CLocShim
import CSystemd
import LocCore

#if canImport(Glibc)
  import Glibc
#endif

/// Unix stream sockets: listening, connecting, peer credentials (unix(7)).
public enum UnixSocket {
  /// Longest path that fits sun_path (108 bytes with the NUL).
  static let maxPathBytes = 107

  static func withAddress<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) throws(Errno)
    -> R
  {
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard !bytes.isEmpty, bytes.count <= maxPathBytes else {
      throw Errno(call: "socket path", code: ENAMETOOLONG)
    }
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    let len = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
    return withUnsafePointer(to: &addr) { p in
      p.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, len) }
    }
  }

  /// Creates a listening socket at `path` with `mode` and group `gid`. A stale socket file
  /// (nobody answers on it) is replaced; a live one means another locd runs: EADDRINUSE.
  public static func listen(path: String, mode: UInt32, gid: UInt32?, backlog: Int32 = 4096) throws(Errno)
    -> Int32
  {
    var st = stat()
    if lstat(path, &st) == 0 {
      guard (st.st_mode & S_IFMT) == S_IFSOCK else {
        throw Errno(call: "\(path) exists and is not a socket", code: EEXIST)
      }
      if let probe = try? connect(path: path) {
        close(probe)
        throw Errno(call: "another locd answers on \(path)", code: EADDRINUSE)
      }
      unlink(path)
    }
    let fd = socket(
      AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    guard fd >= 0 else { throw Errno(call: "socket") }
    do throws(Errno) {
      // Bind with a restrictive umask so the socket never exists with looser permissions
      // than configured, then set the exact mode and group.
      let old = umask(0o177)
      let r = try withAddress(path) { bind(fd, $0, $1) }
      umask(old)
      guard r == 0 else { throw Errno(call: "bind \(path)") }
      if let gid, chown(path, UInt32.max, gid) != 0 { throw Errno(call: "chown \(path)") }
      guard chmod(path, mode_t(mode)) == 0 else { throw Errno(call: "chmod \(path)") }
      guard Glibc.listen(fd, backlog) == 0 else { throw Errno(call: "listen") }
    } catch {
      close(fd)
      throw error
    }
    return fd
  }

  /// Connects to `path` (blocking socket; the caller may make it non-blocking).
  public static func connect(path: String) throws(Errno) -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw Errno(call: "socket") }
    let r = try withAddress(path) { Glibc.connect(fd, $0, $1) }
    guard r == 0 else {
      let e = Errno(call: "connect")
      close(fd)
      throw e
    }
    return fd
  }

  /// A datagram socket bound at `path` (for NOTIFY_SOCKET and journald stand-ins in tests
  /// and benchmarks).
  public static func bindDatagram(path: String) throws(Errno) -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw Errno(call: "socket") }
    let r = try withAddress(path) { bind(fd, $0, $1) }
    guard r == 0 else {
      let e = Errno(call: "bind \(path)")
      close(fd)
      throw e
    }
    return fd
  }

  /// The peer's credentials at connect time (SO_PEERCRED) and groups (SO_PEERGROUPS, Linux 4.13).
  public static func peer(of fd: Int32) -> Peer? {
    // struct ucred (socket(7)); Glibc only declares it under _GNU_SOURCE.
    struct UCred {
      var pid: Int32 = 0
      var uid: UInt32 = 0
      var gid: UInt32 = 0
    }
    var cred = UCred()
    var len = socklen_t(MemoryLayout<UCred>.size)
    guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 else { return nil }
    var groups = [gid_t](repeating: 0, count: 64)
    var glen = socklen_t(groups.count * MemoryLayout<gid_t>.size)
    // SO_PEERGROUPS is 59 on every Linux architecture (asm-generic/socket.h).
    let soPeerGroups: Int32 = 59
    if getsockopt(fd, SOL_SOCKET, soPeerGroups, &groups, &glen) != 0 {
      if errno == ERANGE {
        groups = [gid_t](repeating: 0, count: Int(glen) / MemoryLayout<gid_t>.size)
        glen = socklen_t(groups.count * MemoryLayout<gid_t>.size)
        if getsockopt(fd, SOL_SOCKET, soPeerGroups, &groups, &glen) != 0 { glen = 0 }
      } else {
        glen = 0
      }
    }
    return Peer(
      pid: cred.pid, uid: cred.uid, gid: cred.gid,
      groups: Array(groups.prefix(Int(glen) / MemoryLayout<gid_t>.size)))
  }

  /// The id of group `name` (getgrnam_r), or nil.
  public static func groupID(named name: String) -> UInt32? {
    if let n = UInt32(name) { return n }
    var group = Glibc.group()
    var result: UnsafeMutablePointer<Glibc.group>? = nil
    var buffer = [CChar](repeating: 0, count: 16384)
    guard getgrnam_r(name, &group, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
    return group.gr_gid
  }

  /// Makes `fd` non-blocking.
  public static func setNonBlocking(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFL)
    _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
  }
}
