import LocCore

/// Reads the configuration file and applies command-line overrides on top.
public struct ConfigLoader {
  /// The file to read.
  public var path: String
  /// Whether a missing file is fine (true for the default path, false for `--config FILE`).
  public var optional: Bool
  /// Applied after the file, so the command line wins.
  public var overrides: (inout DaemonConfig) -> Void

  /// The default configuration file.
  public static let defaultPath = "/etc/locd/locd.conf"

  /// A loader.
  public init(path: String, optional: Bool, overrides: @escaping (inout DaemonConfig) -> Void) {
    self.path = path
    self.optional = optional
    self.overrides = overrides
  }

  /// The configuration, or every problem found (`file:line: message`; a source that would
  /// read one of locd's own faces, `SourceLoop`, after the command line's sources are in).
  public func load() -> Result<DaemonConfig, ReloadFailure> {
    var config = DaemonConfig()
    do {
      let bytes = try FileIO.read(path: path, limit: 1 << 20)
      guard let text = String(validating: bytes, as: UTF8.self) else {
        return .failure(ReloadFailure(problems: ["\(path): not valid UTF-8"]))
      }
      let problems = config.apply(fileText: text, fileName: path)
      if !problems.isEmpty { return .failure(ReloadFailure(problems: problems.map(\.description))) }
    } catch {
      if !(optional && error.code == Errno.noSuchFileOrDirectory) {
        return .failure(ReloadFailure(problems: ["\(path): \(error)"]))
      }
    }
    let fileSources = config.sources
    overrides(&config)
    let loops = config.sourceLoops
    if !loops.isEmpty {
      // Named after the file when its Source= lines are the ones in effect.
      let prefix = config.sources == fileSources ? "\(path): " : ""
      return .failure(ReloadFailure(problems: loops.map { prefix + $0.description }))
    }
    return .success(config)
  }
}
