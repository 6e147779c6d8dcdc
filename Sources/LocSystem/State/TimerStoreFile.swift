import LocCore

#if canImport(Glibc)
  import Glibc
#endif

/// `timers.json` in the state directory (mode 0600): the runtime timers and what locd
/// remembers about every timer (docs/decisions/0007-timer-store.md).
public struct TimerStoreFile {
  /// The state directory.
  public let directory: String
  /// The file name inside it.
  public static let fileName = "timers.json"
  /// Largest file accepted (1,024 timers with records take about 200 KiB).
  public static let sizeLimit = 4 << 20

  /// The file in `directory`.
  public init(directory: String) { self.directory = directory }

  /// Its path.
  public var path: String { directory + "/" + TimerStoreFile.fileName }

  /// The store, nil if there is none yet, or the reason it cannot be used.
  public func read() -> Result<TimerStore?, TimerStore.DecodeError> {
    let bytes: [UInt8]
    do { bytes = try FileIO.read(path: path, limit: TimerStoreFile.sizeLimit) } catch {
      if error.code == ENOENT { return .success(nil) }
      return .failure(TimerStore.DecodeError(description: "\(path): \(error)"))
    }
    do { return .success(try TimerStore(decoding: bytes)) } catch {
      return .failure(TimerStore.DecodeError(description: "\(path): \(error)"))
    }
  }

  /// Replaces the file atomically.
  public func write(_ store: TimerStore) throws(Errno) {
    try FileIO.replace(path: path, directory: directory, with: store.encoded())
  }
}
