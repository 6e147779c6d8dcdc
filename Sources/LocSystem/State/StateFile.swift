import LocCore

/// The one file locd keeps about the position: `state.json` in the state directory, mode
/// 0600, replaced atomically (`StateDirectory`: an unnamed file, synced, named and renamed
/// over, the directory synced), so a crash at any moment leaves either the old or the new
/// content, never a torn file, and whatever sits in the directory cannot redirect the write.
public struct StateFile {
  /// The state directory.
  public let directory: StateDirectory
  /// Largest state file accepted; a real one is a few hundred bytes.
  public static let sizeLimit = 64 * 1024
  /// The file name inside the directory.
  public static let fileName = "state.json"

  /// A state file in `directory`.
  public init(directory: String) { self.directory = StateDirectory(path: directory) }

  /// The file's path.
  public var path: String { directory.path(of: StateFile.fileName) }

  /// What reading found.
  public enum ReadResult {
    /// No file yet (first start).
    case missing
    /// The content.
    case loaded(StoredState)
    /// Unreadable, corrupt or not to be trusted; the reason names no coordinates.
    case unusable(String)
  }

  /// Reads the file; `notes` gets what the log should say besides (a mode that was fixed).
  public func read(notes: inout [String]) -> ReadResult {
    switch directory.read(StateFile.fileName, limit: StateFile.sizeLimit, notes: &notes) {
    case .missing: return .missing
    case .refused(let why): return .unusable(why)
    case .bytes(let bytes):
      do { return .loaded(try StoredState(decoding: bytes)) } catch {
        return .unusable("\(path): \(error)")
      }
    }
  }

  /// Reads the file, dropping the notes.
  public func read() -> ReadResult {
    var notes: [String] = []
    return read(notes: &notes)
  }

  /// Creates the directory (mode 0700) if it is missing and cleans what a crash left in it
  /// (`StateDirectory.prepare`): the notes to log.
  public func prepareDirectory() throws(Errno) -> [String] {
    try directory.prepare(files: [StateFile.fileName, TimerStoreFile.fileName])
  }

  /// Creates the directory (mode 0700) if it is missing.
  public func ensureDirectory() throws(Errno) {
    try FileIO.makeDirectory(path: directory.path, mode: 0o700)
  }

  /// Replaces the file atomically with `state` (mode 0600 whatever the umask).
  public func write(_ state: StoredState) throws(Errno) {
    try directory.write(StateFile.fileName, state.encoded())
  }
}
