import LocCore

#if canImport(Glibc)
  import Glibc
#endif

/// The one file locd keeps: `state.json` in the state directory, mode 0600, replaced
/// atomically (write a temporary file, fsync, rename over, fsync the directory), so a
/// crash at any moment leaves either the old or the new content, never a torn file.
public struct StateFile {
  /// The state directory.
  public let directory: String
  /// Largest state file accepted; a real one is a few hundred bytes.
  public static let sizeLimit = 64 * 1024
  /// The file name inside the directory.
  public static let fileName = "state.json"

  /// A state file in `directory`.
  public init(directory: String) { self.directory = directory }

  /// The file's path.
  public var path: String { directory + "/" + StateFile.fileName }

  /// What reading found.
  public enum ReadResult {
    /// No file yet (first start).
    case missing
    /// The content.
    case loaded(StoredState)
    /// Unreadable or corrupt; the reason names no coordinates.
    case unusable(String)
  }

  /// Reads the file.
  public func read() -> ReadResult {
    let bytes: [UInt8]
    do { bytes = try FileIO.read(path: path, limit: StateFile.sizeLimit) } catch {
      if error.code == ENOENT { return .missing }
      return .unusable("\(path): \(error)")
    }
    do { return .loaded(try StoredState(decoding: bytes)) } catch {
      return .unusable("\(path): \(error)")
    }
  }

  /// Creates the directory (mode 0700) if it is missing.
  public func ensureDirectory() throws(Errno) {
    try FileIO.makeDirectory(path: directory, mode: 0o700)
  }

  /// Replaces the file atomically with `state` (temporary file, fsync, rename, fsync of the
  /// directory; mode 0600 whatever the umask).
  public func write(_ state: StoredState) throws(Errno) {
    try FileIO.replace(path: path, directory: directory, with: state.encoded())
  }
}
