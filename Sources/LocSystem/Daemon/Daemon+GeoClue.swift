import LocCore

/// The GeoClue2 face, wired to the engine: its clients' sessions are engine sessions like
/// the socket's, with the access the same policy gives their uid (docs/GEOCLUE.md).
extension Daemon {
  /// Starts the face when `[GeoClue] Enable=yes`.
  func startGeoClue() {
    guard config.geoClueEnabled, geoClue == nil else { return }
    let face = GeoClueService(
      loop: loop, limits: GeoClueService.Limits(maxClients: config.maxClients),
      handlers: GeoClueService.Handlers(
        opened: { [unowned self] session, peer, app, level in
          // A plain session under the user's access (the seam in geoClueAccess); the DesktopId
          // names it in logs. It becomes an app's session when the face maps to apps (GEOCLUE.md).
          let access = self.geoClueAccess(peer, app: app, level: level)
          self.feed(.sessionOpened(session, peer, access, client: "geoclue:" + (app ?? "?")))
        },
        request: { [unowned self] session, id, request in
          self.feed(.requestReceived(session, id, request))
          if self.holdingSources {
            self.holdingSources = false
            self.logger.info("replay clock: a GeoClue client started; playing")
            self.startSources()
          }
        },
        closed: { [unowned self] session in self.feed(.sessionClosed(session)) },
        log: { [unowned self] level, message in self.logger.log(level, message) }))
    geoClue = face
    face.start()
  }

  /// The seam between GeoClue's authorization and locd's: the access of the engine session
  /// of a client its agent authorized at `level`. Today the socket's rules for the peer
  /// (uid and groups; `level` and `app` are not used yet). With per-app authorization it
  /// maps `app` (DesktopId) to an app id, Start to "when in use" and `level` to reduced
  /// (country, city, neighbourhood) or full accuracy (docs/GEOCLUE.md).
  func geoClueAccess(_ peer: Peer, app: String, level: GeoClueAccuracyLevel) -> AccessLevel {
    policy.level(for: peer)
  }

  /// Stops the face: clients are dropped, the name released.
  func stopGeoClue() {
    geoClue?.stop()
    geoClue = nil
  }

  /// A reload turned the face on or off.
  func applyGeoClue(_ new: DaemonConfig, old: DaemonConfig) {
    if new.geoClueEnabled && !old.geoClueEnabled {
      startGeoClue()
    } else if !new.geoClueEnabled && old.geoClueEnabled {
      logger.notice("GeoClue: disabled by the configuration; releasing \(GeoClueService.busName)")
      stopGeoClue()
    }
    geoClue?.limits.maxClients = new.maxClients
  }

  /// Hands the face its part of a push; returns the socket's part.
  func route(_ notice: Notice, to sessions: [SessionID], geoClue: GeoClueService) -> [SessionID] {
    // Session ids are in order and the face's are the highest: they are the tail.
    guard let first = sessions.firstIndex(where: geoClue.owns) else { return sessions }
    geoClue.deliver(notice, to: Array(sessions[first...]))
    return Array(sessions[..<first])
  }
}
