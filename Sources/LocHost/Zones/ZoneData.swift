import LocCore

/// The shell's time-zone data: the boundary file (memory-mapped), the zone database and
/// the system's zone. It reads the TZif files the engine may need, at start and whenever
/// asked again (reload, tzdata changed), and hands them in; the engine never reads a file.
public final class ZoneData {
  /// Where TZif files are read.
  public let database: ZoneDatabase
  /// The boundary file, if it could be opened.
  public let boundaries: ZoneBoundaryFile?
  /// The system's zone name ("UTC" when none can be found).
  public let systemZone: String

  /// Data from `database`, with `boundaries` if there are any.
  public init(
    database: ZoneDatabase = ZoneDatabase(), boundaries: ZoneBoundaryFile?,
    systemZone: String = ZoneDatabase.systemZoneName() ?? "UTC"
  ) {
    self.database = database
    self.boundaries = boundaries
    self.systemZone = systemZone
  }

  /// Every zone the engine may need: each one the boundary data can name, the system's,
  /// the configured one, and UTC.
  public func zoneNames(configured: String?) -> [String] {
    var names = boundaries?.boundaries.zoneNames ?? []
    names += [systemZone, "UTC"]
    if let configured { names.append(configured) }
    return names
  }

  /// Reads those zones' TZif files now.
  public func catalog(configured: String?) -> ZoneCatalog {
    database.catalog(names: zoneNames(configured: configured))
  }

  /// The engine's environment: lookups over the boundary data and the zones read now.
  public func environment(configured: String?) -> EngineEnvironment {
    var environment = EngineEnvironment(systemZone: systemZone, zones: catalog(configured: configured))
    if let boundaries {
      environment.zoneAt = { coordinate in try? boundaries.zoneName(at: coordinate) }
      // "How far is the border" for the status and the zone hysteresis: probed, within 10 km.
      environment.borderDistance = { coordinate in
        BorderProbe.distance(from: coordinate) { try? boundaries.zoneName(at: $0) }
      }
    }
    return environment
  }

  /// The directories holding `catalog`'s zones (the database's own and every subdirectory
  /// of a zone read), for `ZoneDataWatcher`.
  public func directories(of catalog: ZoneCatalog) -> [String] {
    var directories: Set<String> = [database.directory]
    for name in catalog.entries.keys {
      guard let slash = name.lastIndex(of: "/") else { continue }
      directories.insert(database.directory + "/" + name[..<slash])
    }
    return directories.sorted()
  }
}
