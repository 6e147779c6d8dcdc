import LocCore

/// gpsd's control socket (`/run/gpsd.sock`, which gpsd.socket and Debian's gpsd.service
/// create with the TCP port), followed for the default source: when it appears, gpsd has
/// just started, so the source connects at once rather than at the next attempt of its
/// backoff (up to a minute away). Its directory is watched with inotify, as the static file's
/// is (`ZoneDataWatcher`, a burst of changes settled into one look); only an appearance counts
/// (a socket file that was not there before, by its inode: gpsd leaves a stale one when it
/// stops and replaces it when it starts again), so a socket that stays while gpsd's port
/// refuses costs nothing.
final class GpsdSocketWatch {
  /// The socket's path.
  let path: String
  /// A change settles this long before the look: gpsd binds its port right after the socket.
  static let settle: Duration = .milliseconds(50)
  private var watcher: ZoneDataWatcher?
  /// The socket file last seen (its device and inode), nil while there is none.
  private var seen: FileIdentity?
  private let appeared: () -> Void
  /// Appearances seen.
  private(set) var appearances = 0

  /// Follows `path` on `loop`; `appeared` is called each time it comes into being. If the
  /// directory cannot be watched, the backoff alone finds gpsd (logged at notice level).
  init(loop: EventLoop, path: String, log: (LogLevel, String) -> Void, appeared: @escaping () -> Void) {
    self.path = path
    self.appeared = appeared
    seen = GpsdSocketWatch.identity(of: path)
    let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
    do {
      watcher = try ZoneDataWatcher(
        loop: loop, directories: [directory.isEmpty ? "/" : directory], settle: GpsdSocketWatch.settle
      ) { [weak self] in self?.look() }
    } catch {
      log(
        .notice,
        "cannot watch \(directory) for gpsd's socket \(path) (\(error)); gpsd is found by the next attempt")
    }
  }

  /// The counter `locctl status --verbose` shows.
  var counters: [Counter] { [Counter("gpsdSocketAppeared", appearances)] }

  /// Stops watching.
  func stop() { watcher = nil }

  private func look() {
    let now = GpsdSocketWatch.identity(of: path)
    defer { seen = now }
    guard let now, now != seen else { return }
    appearances += 1
    appeared()
  }

  /// A file by its device and inode.
  struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64
  }

  /// The socket at `path` now, nil when there is none.
  static func identity(of path: String) -> FileIdentity? {
    guard let status = try? FileIO.status(path: path), status.kind == .socket else { return nil }
    return FileIdentity(device: status.device, inode: status.inode)
  }
}
