import LocCore

/// `timers.json` in the state directory (mode 0600): the runtime timers and what locd
/// remembers about every timer (docs/decisions/0007-timer-store.md). Read and written through
/// `StateDirectory`, like `state.json`.
public struct TimerStoreFile {
  /// The state directory.
  public let directory: StateDirectory
  /// The file name inside it.
  public static let fileName = "timers.json"
  /// Largest file accepted (1,024 timers with records take about 200 KiB).
  public static let sizeLimit = 4 << 20

  /// The file in `directory`.
  public init(directory: String) { self.directory = StateDirectory(path: directory) }

  /// Its path.
  public var path: String { directory.path(of: TimerStoreFile.fileName) }

  /// The store, nil if there is none yet, or the reason it cannot be used; `notes` gets what
  /// the log should say besides (a mode that was fixed).
  public func read(notes: inout [String]) -> Result<TimerStore?, TimerStore.DecodeError> {
    switch directory.read(TimerStoreFile.fileName, limit: TimerStoreFile.sizeLimit, notes: &notes) {
    case .missing: return .success(nil)
    case .refused(let why): return .failure(TimerStore.DecodeError(description: why))
    case .bytes(let bytes):
      do { return .success(try TimerStore(decoding: bytes)) } catch {
        return .failure(TimerStore.DecodeError(description: "\(path): \(error)"))
      }
    }
  }

  /// The store, dropping the notes.
  public func read() -> Result<TimerStore?, TimerStore.DecodeError> {
    var notes: [String] = []
    return read(notes: &notes)
  }

  /// Replaces the file atomically.
  public func write(_ store: TimerStore) throws(Errno) {
    try directory.write(TimerStoreFile.fileName, store.encoded())
  }
}
