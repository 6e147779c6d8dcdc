import LocCore

/// The NMEA output, wired to the engine: one plain session of locd's own (read access), which
/// subscribes to `location` while a program has the pty open (docs/NMEAOUT.md).
extension Daemon {
  /// Starts the output when `[NMEAOut] Enable=yes`.
  func startNMEAOut() {
    guard config.nmeaOut.enabled, faces.nmeaOut == nil else { return }
    let session = faces.sessions.ids.take()
    let pty = NMEAPty(
      loop: loop, settings: config.nmeaOut,
      handlers: NMEAPty.Handlers(
        wanted: { [unowned self] on in
          let request: Request = on ? .subscribe([.location]) : .unsubscribe([.location])
          self.feed(.requestReceived(session, .number(1), request))
          if on { self.releaseSources("a program reads the NMEA output") }
        },
        skies: { [unowned self] in self.engine.skies },
        sendsSentences: { [unowned self] uri in self.sendsSentences(uri) },
        log: { [unowned self] level, message in self.logger.log(level, message) }))
    faces.nmeaOut = (pty, session)
    updateSkies()
    faces.sessions.opened(session, on: .nmeaOut)
    let me = Peer(pid: 0, uid: CurrentProcess.userID, gid: 0)
    feed(.sessionOpened(session, me, .read, client: "nmea-pty"))
    var gid: UInt32? = nil
    if let group = config.nmeaOut.group {
      gid = Accounts.groupID(group)
      if gid == nil { logger.notice("NMEA output: group '\(group)' does not exist; the pty keeps its group") }
    }
    pty.start(gid: gid)
    if let port = config.nmeaOut.listenPort {
      let server = makeGpsdServer(.sentences, limits: GpsdServer.Limits(nmeaOut: config))
      var settings = GpsdSettings()
      settings.socketPath = nil
      settings.listenPort = port
      faces.nmeaTCP = server
      server.start(settings)
    }
  }

  /// Stops the output: the link goes, the session closes.
  func stopNMEAOut() {
    faces.nmeaTCP?.stop()
    faces.nmeaTCP = nil
    guard let (pty, session) = faces.nmeaOut else { return }
    faces.nmeaOut = nil
    updateSkies()
    pty.stop()
    faces.sessions.closed(session)
    feed(.sessionClosed(session))
  }

  /// A reload turned the output on or off, or changed it.
  func applyNMEAOut(_ new: DaemonConfig, old: DaemonConfig) {
    if new.nmeaOut != old.nmeaOut { stopNMEAOut() }
    startNMEAOut()
  }

  /// Hands the output its part of a push; returns the rest.
  func route(_ notice: Notice, to sessions: [SessionID], nmeaOut: (NMEAPty, SessionID)) -> [SessionID] {
    guard sessions.contains(nmeaOut.1) else { return sessions }
    nmeaOut.0.deliver(notice)
    return sessions.filter { $0 != nmeaOut.1 }
  }
}
