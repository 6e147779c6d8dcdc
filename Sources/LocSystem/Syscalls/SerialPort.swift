#if canImport(Glibc)
  import Glibc
#endif

/// A serial line for a GNSS receiver (termios(3)): opened without becoming the controlling
/// terminal, set to raw 8N1 at a given speed.
enum SerialPort {
  /// Opens `path` for reading (O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC): locd only
  /// listens, and O_NOCTTY keeps a tty from becoming the daemon's controlling terminal.
  static func open(_ path: String) throws(Errno) -> FileDescriptor {
    try FileDescriptor.open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK, call: "open \(path)")
  }

  /// The termios speed for `baud`, if it is a standard rate.
  static func speed(for baud: Int) -> speed_t? {
    switch baud {
    case 1200: return speed_t(B1200)
    case 2400: return speed_t(B2400)
    case 4800: return speed_t(B4800)
    case 9600: return speed_t(B9600)
    case 19200: return speed_t(B19200)
    case 38400: return speed_t(B38400)
    case 57600: return speed_t(B57600)
    case 115200: return speed_t(B115200)
    case 230400: return speed_t(B230400)
    case 460800: return speed_t(B460800)
    default: return nil
    }
  }

  /// Raw mode (cfmakeraw: no echo, no line editing, no CR/LF translation, 8 bits, no
  /// parity), one stop bit, no flow control, modem lines ignored (CLOCAL), receiver on
  /// (CREAD), at `baud` both ways; input already queued (at the old speed) is discarded.
  /// A descriptor that is not a terminal (a FIFO, a file) is left as it is: false.
  @discardableResult static func configure(_ device: borrowing FileDescriptor, baud: Int) throws(Errno)
    -> Bool
  {
    let fd = device.rawValue
    var t = termios()
    do {
      _ = try Syscall.retrying("tcgetattr") { tcgetattr(fd, &t) }
    } catch  where error.code == ENOTTY || error.code == EINVAL {
      return false
    }
    cfmakeraw(&t)
    t.c_cflag &= ~(tcflag_t(CSTOPB) | tcflag_t(CRTSCTS))
    t.c_cflag |= tcflag_t(CLOCAL | CREAD)
    t.c_iflag &= ~tcflag_t(IXON | IXOFF | IXANY)
    guard let speed = speed(for: baud) else { throw Errno(call: "cfsetspeed \(baud)", code: EINVAL) }
    cfsetispeed(&t, speed)
    cfsetospeed(&t, speed)
    _ = try Syscall.retrying("tcsetattr") { tcsetattr(fd, TCSANOW, &t) }
    tcflush(fd, TCIFLUSH)
    return true
  }
}
