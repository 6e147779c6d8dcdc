import CLocShim
import LocCore

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon's side of Unix sockets (unix(7)): listening, datagram sockets, peer credentials.
extension UnixSocket {
  /// Creates a listening socket at `path` with `mode` and group `gid`. A stale socket file
  /// (nobody answers on it) is replaced; a live one means another locd runs: EADDRINUSE.
  public static func listen(path: String, mode: UInt32, gid: UInt32?, backlog: Int32 = 4096) throws(Errno)
    -> FileDescriptor
  {
    if let status = try? FileIO.linkStatus(path: path) {
      guard status.kind == .socket else {
        throw Errno(call: "\(path) exists and is not a socket", code: EEXIST)
      }
      if (try? connect(path: path)) != nil {
        throw Errno(call: "another locd answers on \(path)", code: EADDRINUSE)
      }
      unlink(path)
    }
    let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
    let socket = FileDescriptor(owning: try Syscall.retrying("socket") { Glibc.socket(AF_UNIX, flags, 0) })
    // The socket file must never exist with looser permissions than configured: its mode at
    // bind is the socket's own (0600 here, set with fchmod before bind, which Linux honours)
    // less the umask; then the exact mode and group. Not a restrictive umask around bind:
    // the umask is the whole process's, and a thread starting a program meanwhile (a worker,
    // or another test in a test process) would hand it on, so the program's files came out
    // 0600 (a compiled test program that could not be run: GpsdFaceTests, 2026-12-04).
    _ = try Syscall.retrying("fchmod socket") { fchmod(socket.rawValue, 0o600) }
    _ = try withAddress(path) { address, length throws(Errno) in
      try Syscall.retrying("bind \(path)") { bind(socket.rawValue, address, length) }
    }
    if let gid { _ = try Syscall.retrying("chown \(path)") { chown(path, UInt32.max, gid) } }
    _ = try Syscall.retrying("chmod \(path)") { chmod(path, mode_t(mode)) }
    _ = try Syscall.retrying("listen") { Glibc.listen(socket.rawValue, backlog) }
    return socket
  }

  /// A datagram socket bound at `path` (for NOTIFY_SOCKET and journald stand-ins in tests
  /// and benchmarks).
  public static func bindDatagram(path: String) throws(Errno) -> FileDescriptor {
    let flags = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    let socket = FileDescriptor(owning: try Syscall.retrying("socket") { Glibc.socket(AF_UNIX, flags, 0) })
    _ = try withAddress(path) { address, length throws(Errno) in
      try Syscall.retrying("bind \(path)") { bind(socket.rawValue, address, length) }
    }
    return socket
  }

  /// The peer's credentials at connect time (SO_PEERCRED) and groups (SO_PEERGROUPS, Linux 4.13).
  public static func peer(of socket: borrowing FileDescriptor) -> Peer? {
    let fd = socket.rawValue
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
}
