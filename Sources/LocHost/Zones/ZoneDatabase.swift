import LocCore

/// The system's time-zone database (TZif files under $TZDIR or /usr/share/zoneinfo), loaded on
/// demand and cached: the shell's side of `ZoneRules`.
public final class ZoneDatabase {
  /// The directory the zones are read from.
  public let directory: String
  private var cache: [String: ZoneRules] = [:]

  /// Why a zone could not be loaded.
  public enum LoadError: Error, CustomStringConvertible {
    /// The name is not a zone name (empty, absolute, "..", odd characters).
    case badName(String)
    /// The file could not be read.
    case unreadable(String, Errno)
    /// The file is not valid TZif data.
    case malformed(String, ZoneRules.ParseError)

    public var description: String {
      switch self {
      case .badName(let name): return "'\(name)' is not a time-zone name"
      case .unreadable(let name, let error):
        return error.code == Errno.noSuchFileOrDirectory
          ? "unknown time zone '\(name)'" : "time zone '\(name)': \(error)"
      case .malformed(let name, let error): return "time zone '\(name)': not valid TZif data (\(error))"
      }
    }
  }

  /// A database in `directory`; by default $TZDIR if set, else /usr/share/zoneinfo (tzfile(5)).
  public init(directory: String? = nil) {
    if let directory {
      self.directory = directory
    } else if let env = CurrentProcess.environment("TZDIR"), !env.isEmpty {
      self.directory = env
    } else {
      self.directory = "/usr/share/zoneinfo"
    }
  }

  /// Largest TZif file accepted; real ones are under 4 KiB.
  public static let fileSizeLimit = 1 << 20

  /// The rules of zone `name` (e.g. "Europe/Oslo"), from the cache or the file.
  public func rules(named name: String) throws(LoadError) -> ZoneRules {
    if let cached = cache[name] { return cached }
    let bytes = try tzif(named: name)
    let rules: ZoneRules
    do {
      rules = try ZoneRules(name: name, tzif: bytes)
    } catch {
      throw .malformed(name, error)
    }
    cache[name] = rules
    return rules
  }

  /// The TZif bytes of zone `name`, unparsed.
  public func tzif(named name: String) throws(LoadError) -> [UInt8] {
    guard ZoneDatabase.isValidName(name) else { throw .badName(name) }
    do {
      return try FileIO.read(path: directory + "/" + name, limit: ZoneDatabase.fileSizeLimit)
    } catch {
      throw .unreadable(name, error)
    }
  }

  /// Forgets every zone `rules(named:)` loaded (the engine's own cache is flushed by
  /// `EngineEvent.timeZoneDataChanged`).
  public func flush() { cache.removeAll() }

  /// The engine's zone data for `names`: each zone's TZif bytes, without the version-1 block
  /// readers skip (`ZoneRules.withoutVersion1Data`: the daemon holds them all, so a third
  /// less heap), or why they could not be read, in the error's words. The engine parses
  /// them when it needs them.
  public func catalog(names: some Sequence<String>) -> ZoneCatalog {
    var entries: [String: ZoneCatalog.Entry] = [:]
    for name in names where entries[name] == nil {
      do {
        entries[name] = .tzif(ZoneRules.withoutVersion1Data(try tzif(named: name)))
      } catch {
        entries[name] = .unreadable(error.description)
      }
    }
    return ZoneCatalog(entries)
  }

  /// Whether `name` may name a file under the zone directory: relative, no "." or ".."
  /// component, only the characters IANA names use (letters, digits, "/", "_", "-", "+").
  public static func isValidName(_ name: String) -> Bool {
    guard !name.isEmpty, name.utf8.count <= 255, !name.hasPrefix("/"), !name.hasSuffix("/") else {
      return false
    }
    for component in name.split(separator: "/", omittingEmptySubsequences: false) {
      guard !component.isEmpty, component != ".", component != ".." else { return false }
    }
    return name.utf8.allSatisfy { c in
      (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39)
        || c == UInt8(ascii: "/") || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
        || c == UInt8(ascii: "+")
        || c == UInt8(ascii: ".")
    }
  }

  /// The system's zone name: $TZ (a name, `:name`, or a path under a zoneinfo directory), else
  /// the target of the /etc/localtime symlink, else the first line of /etc/timezone; `nil` if
  /// none of these names a zone.
  public static func systemZoneName(
    environment tz: String? = ZoneDatabase.environmentTZ(), localtime: String = "/etc/localtime",
    timezoneFile: String = "/etc/timezone"
  ) -> String? {
    if var value = tz, !value.isEmpty {
      if value.hasPrefix(":") { value.removeFirst() }
      if let name = zoneName(fromPath: value) { return name }
      if isValidName(value) { return value }
    }
    if let target = readLink(localtime), let name = zoneName(fromPath: target) { return name }
    if let bytes = try? FileIO.read(path: timezoneFile, limit: 4096) {
      let line = String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
      let trimmed = String(line.filter { $0 != " " && $0 != "\t" && $0 != "\r" })
      if isValidName(trimmed) { return trimmed }
    }
    return nil
  }

  /// $TZ from the environment, if set.
  public static func environmentTZ() -> String? {
    CurrentProcess.environment("TZ")
  }

  /// "Europe/Oslo" from ".../zoneinfo/Europe/Oslo" (also "zoneinfo/posix/..."); `nil` otherwise.
  static func zoneName(fromPath path: String) -> String? {
    guard path.contains("/") else { return nil }
    let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    guard let z = parts.lastIndex(of: "zoneinfo") else { return nil }
    var rest = Array(parts[(z + 1)...])
    if rest.first == "posix" { rest.removeFirst() }
    let name = rest.joined(separator: "/")
    return isValidName(name) ? name : nil
  }

  /// The target of a symbolic link (readlink(2)), or `nil`.
  static func readLink(_ path: String) -> String? { FileIO.linkTarget(path: path) }
}
