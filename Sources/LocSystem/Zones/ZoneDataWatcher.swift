import LocCore

/// Watches the time-zone directories with inotify (inotify(7)) on the event loop and says
/// when they changed. A tzdata update replaces hundreds of files one by one, so `changed`
/// is called once, `settle` after the last change seen, not for every file.
public final class ZoneDataWatcher {
  /// What a change is: a file written, created, deleted, or renamed in or out (dpkg writes
  /// `NAME.dpkg-new` and renames it over `NAME`), or the directory itself going away.
  static let mask =
    Inotify.closeWrite | Inotify.create | Inotify.delete | Inotify.movedTo | Inotify.movedFrom
    | Inotify.deleteSelf | Inotify.moveSelf

  private let loop: EventLoop
  private let settle: Duration
  private let changed: () -> Void
  /// Owns the inotify descriptor.
  private var watch: IOWatch?
  private var timer: Timer?

  /// Watches `directories` (those that cannot be watched are skipped; at least one must be).
  public init(
    loop: EventLoop, directories: [String], settle: Duration = .seconds(1), changed: @escaping () -> Void
  ) throws(Errno) {
    let inotify = try Inotify.open()
    self.loop = loop
    self.settle = settle
    self.changed = changed
    var failure: Errno? = nil
    var watched = 0
    for directory in directories {
      do {
        try Inotify.watch(directory, events: ZoneDataWatcher.mask, on: inotify)
        watched += 1
      } catch {
        failure = error
      }
    }
    guard watched > 0 else {
      throw failure ?? Errno(call: "inotify_add_watch", code: Errno.noSuchFileOrDirectory)
    }
    timer = try loop.timer(clock: .monotonic, accuracyMicroseconds: 100_000) { [unowned self] in
      self.changed()
    }
    watch = try loop.watch(inotify, events: Epoll.input) { [unowned self] _ in self.readable() }
  }

  deinit {
    watch?.cancel()
    timer?.cancel()
  }

  /// Drains the queued events (which file does not matter: an overflowed queue counts as a
  /// change too) and restarts the settle delay.
  private func readable() {
    guard let watch else { return }
    var buffer = [UInt8](repeating: 0, count: 4096)
    var more = true
    while more {
      do {
        let result = try buffer.withUnsafeMutableBytes { raw throws(Errno) in
          try watch.descriptor.readNonBlocking(into: raw)
        }
        if case .bytes = result { continue }
        more = false
      } catch {
        more = false  // inotify reads fail only on a too small buffer, which 4096 is not
      }
    }
    let delay = UInt64(max(0, settle.seconds) * 1_000_000)
    timer?.arm(atMicroseconds: loop.monotonicMicroseconds + delay)
  }
}
