import LocCore

/// `apps.json` in the state directory (mode 0600): each app's decision and registrations,
/// never a position (docs/APPS.md, docs/PRIVACY.md).
public struct AppStoreFile {
  /// The state directory.
  public let directory: String
  /// The file name inside it.
  public static let fileName = "apps.json"
  /// Largest file accepted (100,000 apps at about 300 bytes each).
  public static let sizeLimit = 32 << 20

  /// The file in `directory`.
  public init(directory: String) { self.directory = directory }

  /// Its path.
  public var path: String { directory + "/" + AppStoreFile.fileName }

  /// The store, nil if there is none yet, or the reason it cannot be used.
  public func read() -> Result<AppStore?, AppStore.DecodeError> {
    let bytes: [UInt8]
    do { bytes = try FileIO.read(path: path, limit: AppStoreFile.sizeLimit) } catch {
      if error.code == Errno.noSuchFileOrDirectory { return .success(nil) }
      return .failure(AppStore.DecodeError(description: "\(path): \(error)"))
    }
    do { return .success(try AppStore(decoding: bytes)) } catch {
      return .failure(AppStore.DecodeError(description: "\(path): \(error)"))
    }
  }

  /// Replaces the file atomically (FileIO.replace writes 0600).
  public func write(_ store: AppStore) throws(Errno) {
    try FileIO.replace(path: path, directory: directory, with: store.encoded())
  }
}
