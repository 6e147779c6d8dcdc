import LocCore

/// The time-zone boundary file, found, memory-mapped and validated: the shell's side of
/// `ZoneBoundaries`. It keeps the mapping alive for as long as `boundaries` is used.
///
/// Sendable because it is immutable: every stored property is a `let` set in `init`, the
/// mapping is read-only (PROT_READ) and is unmapped only by `MappedFile`'s deinit, which
/// cannot run while this object is referenced; lookups only read. The engine's zone lookup
/// closures capture it. `ZoneDataTests` checks that concurrent lookups agree.
public final class ZoneBoundaryFile: @unchecked Sendable {
  /// The file's name in every data directory.
  public static let fileName = "timezone-boundaries.bin"

  /// Where the file was found.
  public let path: String
  /// Lookups over the mapped bytes. Valid only while this object lives (it owns the
  /// mapping): keep a reference, or use `zoneName(at:)`, which does.
  public let boundaries: ZoneBoundaries
  private let mapping: MappedFile

  /// The zone at `coordinate`, keeping the mapping alive during the lookup.
  public func zoneName(at coordinate: Coordinate) throws(ZoneBoundaries.FormatError) -> String {
    defer { withExtendedLifetime(self) {} }
    return try boundaries.zoneName(at: coordinate)
  }

  /// Why the file could not be used.
  public enum LoadError: Error, CustomStringConvertible {
    /// No candidate path holds the file; lists the paths tried.
    case notFound([String])
    /// The file exists but could not be opened or mapped.
    case unreadable(String, Errno)
    /// The file is not a valid boundary file.
    case invalid(String, ZoneBoundaries.FormatError)

    public var description: String {
      switch self {
      case .notFound(let tried):
        return "time-zone boundary file not found (tried \(tried.joined(separator: ", "))); set LOCD_DATA_DIR"
      case .unreadable(let path, let error): return "\(path): \(error)"
      case .invalid(let path, let error): return "\(path): \(error)"
      }
    }
  }

  /// Maps and validates the file at `path`.
  public init(path: String) throws(LoadError) {
    do {
      mapping = try MappedFile(path: path)
    } catch {
      throw .unreadable(path, error)
    }
    do {
      boundaries = try ZoneBoundaries(bytes: mapping.bytes)
    } catch {
      throw .invalid(path, error)
    }
    self.path = path
  }

  /// Opens the first file that exists among `candidatePaths()`.
  public static func open() throws(LoadError) -> ZoneBoundaryFile {
    let candidates = candidatePaths()
    for path in candidates where FileIO.exists(path: path) {
      return try ZoneBoundaryFile(path: path)
    }
    throw .notFound(candidates)
  }

  /// Where the file is looked for, in order (docs/TIMEZONES.md):
  /// 1. `$LOCD_DATA_DIR/timezone-boundaries.bin` — when LOCD_DATA_DIR is set, only there;
  /// 2. `../share/locd/` next to the executable's directory (the `make install` layout,
  ///    e.g. /usr/local/bin/locd and /usr/local/share/locd);
  /// 3. `data/` of the source checkout the executable was built in (an ancestor of its
  ///    directory that holds Package.swift), for development runs.
  public static func candidatePaths(
    dataDirectory: String? = environment("LOCD_DATA_DIR"), executable: String? = executablePath(),
    exists: (String) -> Bool = { FileIO.exists(path: $0) }
  ) -> [String] {
    if let dataDirectory, !dataDirectory.isEmpty { return [join(dataDirectory, fileName)] }
    guard let executable, let slash = executable.lastIndex(of: "/") else { return [] }
    var directory = String(executable[..<slash])
    if directory.isEmpty { directory = "/" }
    var paths = [join(parent(of: directory), "share/locd/" + fileName)]
    var dir = directory
    for _ in 0..<6 {
      if exists(join(dir, "Package.swift")) {
        paths.append(join(dir, "data/" + fileName))
        break
      }
      if dir == "/" { break }
      dir = parent(of: dir)
    }
    return paths
  }

  /// The running executable's absolute path (readlink of /proc/self/exe), if known.
  public static func executablePath() -> String? { CurrentProcess.executablePath() }

  /// An environment variable, if set.
  public static func environment(_ name: String) -> String? { CurrentProcess.environment(name) }

  static func join(_ directory: String, _ name: String) -> String {
    directory.hasSuffix("/") ? directory + name : directory + "/" + name
  }

  static func parent(of directory: String) -> String {
    guard let slash = directory.lastIndex(of: "/") else { return "." }
    let up = String(directory[..<slash])
    return up.isEmpty ? "/" : up
  }
}
