import LocCore

/// Time-zone data in the shell: read at start, read again on reload and when the zone
/// directories change (a tzdata update), and handed to the engine as an event when it differs.
extension Daemon {
  /// Watches the zone directories, so a tzdata update reaches the engine without a reload.
  func watchZoneData() {
    let directories = zoneData.directories(of: engine.zoneCatalog)
    do {
      zoneWatcher = try ZoneDataWatcher(loop: loop, directories: directories) { [unowned self] in
        self.logger.debug("time-zone directories changed; reading the zones again")
        self.recheckZoneData(configured: self.config.timeZone)
      }
    } catch {
      logger.warning(
        "cannot watch \(zoneData.database.directory) (\(error)); time-zone data is read again only on reload")
    }
  }

  /// Reads the zones again (those the configuration names with `configured`); the engine
  /// hears of it only when something changed.
  func recheckZoneData(configured: String?) {
    let catalog = zoneData.catalog(configured: configured)
    guard catalog != engine.zoneCatalog else { return }
    feed(.timeZoneDataChanged(catalog))
  }
}
