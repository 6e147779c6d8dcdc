import LocCore

/// Time-zone data in the shell: read at start, read again on reload and when the zone
/// directories change (a tzdata update), and handed to the engine as an event when it differs.
extension Daemon {
  /// Watches the zone directories, so a tzdata update reaches the engine without a reload.
  func watchZoneData() {
    let directories = zones.data.directories(of: engine.zoneCatalog)
    do {
      zones.watcher = try ZoneDataWatcher(loop: loop, directories: directories) { [unowned self] in
        self.logger.debug("time-zone directories changed; reading the zones again")
        self.recheckZoneData(configured: self.config.timeZone)
      }
    } catch {
      logger.warning(
        "cannot watch \(zones.data.database.directory) (\(error)); time-zone data is read again only on reload"
      )
    }
  }

  /// On reload the zones are read again only when the configuration names another zone, or
  /// when no watcher follows the directories (a reload is then how a tzdata update gets in):
  /// reading the 450-odd zone files held the loop ≈ 4 ms per reload, and up to 76 ms on a busy
  /// machine (make soak), for nothing the watcher had not seen.
  func reloadZoneData(configured new: String?, was old: String?) {
    guard zones.watcher == nil || new != old else { return }
    recheckZoneData(configured: new)
  }

  /// Reads the zones again (those the configuration names with `configured`); the engine
  /// hears of it only when something changed.
  func recheckZoneData(configured: String?) {
    let catalog = zones.data.catalog(configured: configured)
    guard catalog != engine.zoneCatalog else { return }
    feed(.timeZoneDataChanged(catalog))
  }
}
