import LocCore

#if canImport(Glibc)
  import Glibc
#endif

/// Watches the time-zone directories with inotify (inotify(7)) on the event loop and says
/// when they changed. A tzdata update replaces hundreds of files one by one, so `changed`
/// is called once, `settle` after the last change seen, not for every file.
public final class ZoneDataWatcher {
  /// What a change is: a file written, created, deleted, or renamed in or out (dpkg writes
  /// `NAME.dpkg-new` and renames it over `NAME`), or the directory itself going away.
  static let mask = UInt32(
    IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF)

  private let fd: Int32
  private let loop: EventLoop
  private let settle: Duration
  private let changed: () -> Void
  private var watch: IOWatch?
  private var timer: Timer?

  /// Watches `directories` (those that cannot be watched are skipped; at least one must be).
  public init(
    loop: EventLoop, directories: [String], settle: Duration = .seconds(1), changed: @escaping () -> Void
  ) throws(Errno) {
    fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    guard fd >= 0 else { throw Errno(call: "inotify_init1") }
    self.loop = loop
    self.settle = settle
    self.changed = changed
    var watched = 0
    var failure: Errno? = nil
    for directory in directories {
      if inotify_add_watch(fd, directory, ZoneDataWatcher.mask) >= 0 {
        watched += 1
      } else {
        failure = Errno(call: "inotify_add_watch \(directory)")
      }
    }
    do throws(Errno) {
      guard watched > 0 else { throw failure ?? Errno(call: "inotify_add_watch", code: ENOENT) }
      timer = try loop.timer(clock: .monotonic, accuracyMicroseconds: 100_000) { [unowned self] in
        self.changed()
      }
      watch = try loop.watch(fd: fd, events: Epoll.input) { [unowned self] _ in self.readable() }
    } catch {
      close(fd)
      throw error
    }
  }

  deinit {
    watch?.cancel()
    timer?.cancel()
    close(fd)
  }

  /// Drains the queued events (which file does not matter) and restarts the settle delay.
  private func readable() {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n > 0 { continue }
      if n < 0, errno == EINTR { continue }
      break  // EAGAIN: drained (an overflowed queue counts as a change too)
    }
    let delay = UInt64(max(0, settle.seconds) * 1_000_000)
    timer?.arm(atMicroseconds: loop.monotonicMicroseconds + delay)
  }
}
