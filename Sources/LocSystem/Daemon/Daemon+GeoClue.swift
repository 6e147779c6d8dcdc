import LocCore

/// The GeoClue2 face, wired to the engine: each active client is a session of its app, the
/// app named by its DesktopId and checked against its cgroup, decided by the apps model
/// (docs/GEOCLUE.md, docs/APPS.md).
extension Daemon {
  /// Starts the face when `[GeoClue] Enable=yes`.
  func startGeoClue() {
    guard config.geoClueEnabled, faces.geoClue == nil else { return }
    let face = GeoClueService(
      loop: loop, limits: GeoClueService.Limits(config.geoClue),
      sessionIDs: faces.sessions.ids,
      handlers: GeoClueService.Handlers(
        opened: { [unowned self] session, peer, identity in
          // An app session like a hello naming the app (the engine weighs it the same way).
          let app = identity.key.app.rawValue
          let hello = SessionHello(
            peer: peer, access: self.faces.policy.level(for: peer), client: "geoclue:" + app, app: app,
            unit: PeerCgroup.unit(of: peer.pid))
          self.faces.sessions.opened(session, on: .geoClue)
          self.feed(.sessionOpened(session, hello, reply: GeoClueService.helloRequest))
        },
        request: { [unowned self] session, id, request in
          self.feed(.requestReceived(session, id, request))
          if self.replay.holding, case .startUpdates = request {
            self.releaseSources("a GeoClue client started")
          }
        },
        closed: { [unowned self] session in
          self.faces.sessions.closed(session)
          self.feed(.sessionClosed(session))
        },
        identify: { peer, desktopID in Daemon.geoClueIdentity(peer, desktopID: desktopID) },
        authorization: { [unowned self] key in self.engine.appAuthorization(key) },
        remember: { [unowned self] key, change in self.feed(.appDecided(key, change)) },
        isAdmin: { [unowned self] peer in self.faces.policy.level(for: peer) == .admin },
        log: { [unowned self] level, message in self.logger.log(level, message) },
        provenance: { [unowned self] in self.engine.resolve(at: self.now).provenance }))
    faces.geoClue = face
    face.start()
  }

  /// The app a GeoClue client is: its DesktopId (without a `.desktop` suffix) as an app id,
  /// weighed against the peer's cgroup as a hello's claim is (AppIdentity): a Flatpak or
  /// systemd app unit that names another app is refused, with the words the socket uses.
  static func geoClueIdentity(_ peer: Peer, desktopID: String, procRoot: String = "/proc")
    -> Result<AppIdentity, RequestError>
  {
    let claim = desktopID.hasSuffix(".desktop") ? String(desktopID.dropLast(8)) : desktopID
    guard AppID(claim) != nil else {
      return .failure(
        RequestError(
          .invalidParams,
          "DesktopId '\(desktopID)' is not an app id locd can keep a decision for: \(AppID.rule)"))
    }
    switch AppIdentity.resolve(
      claim: claim, uid: peer.uid, unit: PeerCgroup.unit(of: peer.pid, procRoot: procRoot))
    {
    case .failure(let refusal):
      return .failure(RequestError(.identityMismatch, "DesktopId refused: \(refusal.error.message)"))
    case .success(let identity?): return .success(identity)
    case .success(nil): return .failure(RequestError(.invalidParams, "DesktopId '\(desktopID)' names no app"))
    }
  }

  /// Stops the face: clients are dropped, the name released.
  func stopGeoClue() {
    faces.geoClue?.stop()
    faces.geoClue = nil
  }

  /// A reload turned the face on or off.
  func applyGeoClue(_ new: DaemonConfig, old: DaemonConfig) {
    if new.geoClueEnabled && !old.geoClueEnabled {
      startGeoClue()
    } else if !new.geoClueEnabled && old.geoClueEnabled {
      logger.notice("GeoClue: disabled by the configuration; releasing \(GeoClueService.busName)")
      stopGeoClue()
    }
    faces.geoClue?.limits = GeoClueService.Limits(new.geoClue)
  }

  /// Hands the face its part of a push (the sessions the registry says it holds); returns
  /// the socket's part.
  func route(_ notice: Notice, to sessions: [SessionID], geoClue: GeoClueService) -> [SessionID] {
    let registry = faces.sessions
    guard sessions.contains(where: { registry.face(of: $0) == .geoClue }) else { return sessions }
    var socket: [SessionID] = []
    var bus: [SessionID] = []
    for session in sessions {
      switch registry.face(of: session) {
      case .geoClue?: bus.append(session)
      case .socket?, .gpsd?, .nmeaOut?, .nmeaTCP?: socket.append(session)
      case nil: continue
      }
    }
    geoClue.deliver(notice, to: bus)
    return socket
  }
}
