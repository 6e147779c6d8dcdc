import CLocShim

#if canImport(Glibc)
  import Glibc
#endif

/// A pseudo-terminal's master side, which owns its descriptor, and the slave's path.
final class PtyMaster {
  /// The master.
  let descriptor: FileDescriptor
  /// The slave's path (/dev/pts/N).
  let slave: String
  init(_ descriptor: consuming FileDescriptor, slave: String) {
    self.descriptor = descriptor
    self.slave = slave
  }
}

/// A pseudo-terminal whose master locd writes and whose slave programs open like a serial
/// device (pty(7)): the NMEA output's.
enum PseudoTerminal {
  /// A new pair (posix_openpt, grantpt, unlockpt, ptsname_r through CLocShim): the master,
  /// non-blocking, and the slave's path. The slave is opened once here to set it raw
  /// (cfmakeraw: no echo, no CR/LF translation, the settings a reader finds and keeps), given
  /// `gid` (nil: left as the kernel made it) and `mode`, and closed: from then on the master
  /// reports a hang-up while no program has the slave open (`hasReader`).
  static func open(gid: UInt32?, mode: UInt32) throws(Errno) -> PtyMaster {
    var name = [CChar](repeating: 0, count: 128)
    let number = try Syscall.retrying("posix_openpt") { locshim_openpty(&name, name.count) }
    let master = FileDescriptor(owning: number)
    try master.setNonBlocking()
    let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let slave = try FileDescriptor.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK, call: "open \(path)")
    var t = termios()
    _ = try Syscall.retrying("tcgetattr") { tcgetattr(slave.rawValue, &t) }
    cfmakeraw(&t)
    _ = try Syscall.retrying("tcsetattr") { tcsetattr(slave.rawValue, TCSANOW, &t) }
    if let gid {
      _ = try Syscall.retrying("fchown \(path)") { fchown(slave.rawValue, uid_t(bitPattern: -1), gid) }
    }
    _ = try Syscall.retrying("fchmod \(path)") { fchmod(slave.rawValue, mode_t(mode)) }
    return PtyMaster(master, slave: path)
  }

  /// Whether some program has the slave open: poll(2) on the master reports POLLHUP while
  /// none does (after the first close, which `open` made).
  static func hasReader(_ master: borrowing FileDescriptor) -> Bool {
    var p = pollfd(fd: master.rawValue, events: Int16(POLLOUT), revents: 0)
    let r = Glibc.poll(&p, 1, 0)
    return r >= 0 && p.revents & Int16(POLLHUP) == 0
  }

  /// Writes what the pty takes now; false when it took nothing more (the reader is behind:
  /// the rest is dropped by the caller).
  static func write(_ bytes: [UInt8], to master: borrowing FileDescriptor) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let n = bytes[offset...].withUnsafeBytes { Glibc.write(master.rawValue, $0.baseAddress, $0.count) }
      if n > 0 {
        offset += n
      } else if n < 0 && errno == EINTR {
        continue
      } else {
        return false
      }
    }
    return true
  }

  /// Points the symbolic link `path` at `target`, replacing what is there (symlink(2) under a
  /// temporary name, then rename(2), so a reader never finds the link missing).
  static func link(_ target: String, at path: String) throws(Errno) {
    let temporary = path + ".new"
    _ = unlink(temporary)
    _ = try Syscall.retrying("symlink \(temporary)") { symlink(target, temporary) }
    _ = try Syscall.retrying("rename \(temporary)") { rename(temporary, path) }
  }

  /// Removes the link at `path` if it is one (never a file something else put there).
  static func unlinkIfLink(_ path: String) {
    var st = stat()
    guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFLNK else { return }
    _ = unlink(path)
  }
}
