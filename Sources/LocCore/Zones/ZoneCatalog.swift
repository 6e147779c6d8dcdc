/// The time-zone data the engine may use, as the shell read it at start or at the last
/// reload: each zone's TZif bytes, or why they could not be read. The engine parses a
/// zone's bytes when it first needs them (`ZoneRulesCache`); reading them is the shell's
/// job, so the core never touches a file.
public struct ZoneCatalog: Sendable, Hashable {
  /// One zone as the shell found it.
  public enum Entry: Sendable, Hashable {
    /// The zone's TZif file.
    case tzif([UInt8])
    /// Why it could not be read, in words (e.g. "unknown time zone 'Mars/Olympus'").
    case unreadable(String)
  }

  /// Every zone read, by IANA name.
  public private(set) var entries: [String: Entry]

  /// A catalog of `entries`.
  public init(_ entries: [String: Entry] = [:]) { self.entries = entries }

  /// Zones whose bytes were read.
  public var readable: Int { entries.values.filter { if case .tzif = $0 { true } else { false } }.count }
}

/// Why the engine has no rules for a zone. It plans in UTC meanwhile and says so once.
public enum ZoneProblem: Error, Sendable, Hashable, CustomStringConvertible {
  /// The zone was not among those the shell read.
  case notLoaded(String)
  /// The shell could not read it: why, in its words.
  case unreadable(String, String)
  /// Its bytes are not usable TZif data.
  case malformed(String, ZoneRules.ParseError)

  /// The zone's name.
  public var zone: String {
    switch self {
    case .notLoaded(let name), .unreadable(let name, _), .malformed(let name, _): return name
    }
  }

  public var description: String {
    switch self {
    case .notLoaded(let name): return "time zone '\(name)' is not in the loaded time-zone data"
    case .unreadable(_, let why): return why
    case .malformed(let name, let error): return "time zone '\(name)': not valid TZif data (\(error))"
    }
  }
}

/// Parsed zone rules over a catalog, each zone parsed at most once, failures kept as such.
/// A value: it belongs to the engine that holds it and changes only inside its `handle`.
public struct ZoneRulesCache: Sendable {
  /// The data parsed from.
  public private(set) var catalog: ZoneCatalog
  private var parsed: [String: Result<ZoneRules, ZoneProblem>] = [:]

  /// A cache over `catalog`, empty.
  public init(catalog: ZoneCatalog) { self.catalog = catalog }

  /// The rules of `name`, parsed now or earlier. UTC is built in: the engine can always
  /// plan in UTC, whatever the catalog holds.
  public mutating func rules(_ name: String) -> Result<ZoneRules, ZoneProblem> {
    if let known = parsed[name] { return known }
    let result = parse(name)
    parsed[name] = result
    return result
  }

  /// The rules of `name` without keeping them (for queries outside `handle`).
  public func peek(_ name: String) -> Result<ZoneRules, ZoneProblem> { parsed[name] ?? parse(name) }

  private func parse(_ name: String) -> Result<ZoneRules, ZoneProblem> {
    switch catalog.entries[name] {
    case .tzif(let bytes)?:
      do { return .success(try ZoneRules(name: name, tzif: bytes)) } catch {
        return .failure(.malformed(name, error))
      }
    case .unreadable(let why)?:
      return .failure(.unreadable(name, why))
    case nil:
      return name == "UTC" ? .success(.utc) : .failure(.notLoaded(name))
    }
  }
}
