import LocCore

/// The static location file (`[Position] StaticFile=`, geoclue's `/etc/geolocation`): read
/// at start and again whenever its directory changes (inotify on the directory, so that a
/// file created, replaced by rename, edited or removed is seen; `ZoneDataWatcher` settles a
/// burst of changes into one read). What it reads goes to `read` as text, nil for no file,
/// or a problem; the engine parses it (`StaticLocationFile`).
final class StaticFileWatch {
  /// The file.
  let path: String
  private let read: (String?, String?) -> Void
  private var watcher: ZoneDataWatcher?

  /// Watches `path`; `read(contents, problem)` is called now and after every change.
  init(loop: EventLoop, path: String, read: @escaping (String?, String?) -> Void) throws(Errno) {
    self.path = path
    self.read = read
    let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
    watcher = try ZoneDataWatcher(
      loop: loop, directories: [directory.isEmpty ? "/" : directory], settle: .milliseconds(100)
    ) { [unowned self] in self.readNow() }
    readNow()
  }

  /// Reads the file and reports what it holds.
  func readNow() {
    let (contents, problem) = StaticFileWatch.contents(of: path)
    read(contents, problem)
  }

  /// The file's text, nil when there is none, or why it cannot be read: a regular file
  /// (symbolic links followed, as a configuration manager may place one) of at most
  /// `StaticLocationFile.sizeLimit` bytes, in UTF-8.
  static func contents(of path: String) -> (String?, String?) {
    do {
      let status = try FileIO.status(path: path)
      guard status.kind == .regular else { return (nil, "not a regular file") }
      let bytes = try FileIO.read(path: path, limit: StaticLocationFile.sizeLimit)
      guard let text = String(validating: bytes, as: UTF8.self) else { return (nil, "not UTF-8 text") }
      return (text, nil)
    } catch let e where e.code == Errno.noSuchFileOrDirectory {
      return (nil, nil)
    } catch let e where e.code == Errno.fileTooLarge {
      return (nil, "larger than \(StaticLocationFile.sizeLimit) bytes")
    } catch {
      return (nil, "cannot read it: \(error)")
    }
  }
}
