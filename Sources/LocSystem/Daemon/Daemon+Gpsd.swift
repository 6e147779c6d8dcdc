import LocCore

/// The gpsd-compatible face, wired to the engine: each client is a session (a plain one for
/// root, locd and the read group; an app's for anyone else), opened, fed and closed here
/// (docs/GPSD.md, decision 0049).
extension Daemon {
  /// Starts the face when `[Gpsd] Enable=yes`.
  func startGpsd() {
    guard config.gpsd.enabled, faces.gpsd == nil else { return }
    let server = makeGpsdServer(.gpsd, limits: GpsdServer.Limits(config))
    faces.gpsd = server
    server.start(config.gpsd)
  }

  /// A gpsd server whose sessions the registry holds under `face` (`.gpsd`, or `.nmeaTCP`
  /// for the NMEA output's port).
  func makeGpsdServer(_ flavour: GpsdServer.Flavour, limits: GpsdServer.Limits) -> GpsdServer {
    let face: SessionRegistry.Face = flavour == .gpsd ? .gpsd : .nmeaTCP
    let environment = GpsdFace.Environment(
      release: "locd \(VersionReport.release)",
      devices: { [unowned self] in
        self.sources.snapshots.filter(\.givesFixes).map { s in
          let connected = s.state == .connected
          return GpsdDevice(
            path: s.uri, driver: Daemon.gpsdDriver(s.uri), activated: connected ? self.now : nil,
            seenData: connected, line: Daemon.gpsdLine(s))
        }
      },
      skies: { [unowned self] in self.engine.skies },
      sendsSentences: { [unowned self] uri in self.sendsSentences(uri) })
    return GpsdServer(
      loop: loop, limits: limits, environment: environment, sessionIDs: faces.sessions.ids, flavour: flavour,
      handlers: GpsdServer.Handlers(
        access: { [unowned self] peer in self.faces.policy.level(for: peer) },
        engine: { [unowned self] action in self.gpsdEngine(action, on: face) },
        log: { [unowned self] level, message in self.logger.log(level, message) },
        now: { [unowned self] in self.now }))
  }

  private func gpsdEngine(_ action: GpsdFace.Action, on face: SessionRegistry.Face) {
    switch action {
    case .open(let session, let hello):
      faces.sessions.opened(session, on: face)
      feed(.sessionOpened(session, hello, reply: GpsdFace.Requests.other))
    case .request(let session, let id, let request):
      feed(.requestReceived(session, id, request))
      if replay.holding, case .subscribe = request { releaseSources("a gpsd client watches") }
      if replay.holding, case .startUpdates = request { releaseSources("a gpsd client watches") }
    case .close(let session):
      faces.sessions.closed(session)
      feed(.sessionClosed(session))
    case .send, .sendAll: break
    }
    // A watch began or ended (each comes with a request or a close): skies follow.
    updateSkies()
  }

  /// Every cycle a source decoded, before the engine sees it: the gpsd face sends a TPV for
  /// each, as gpsd does (a lost fix too, and fixes the engine will not take); it goes first,
  /// so a watcher is not kept waiting for the engine's work.
  func gpsdCycle(_ fix: Fix, from id: SourceID) {
    guard let gpsd = faces.gpsd, let device = sourceName(id) else { return }
    gpsd.cycle(fix, device: device)
  }

  /// What `DEVICES` calls a source's driver.
  static func gpsdDriver(_ uri: String) -> String {
    if uri.hasPrefix("gpsd:") { return "gpsd" }
    if uri.hasPrefix("replay:") { return "replay" }
    return "NMEA0183"
  }

  /// The serial line of a source, as DEVICE reports it: a connected `serial:` source at the
  /// speed it reads (its `baud` counter: the URI's, or at `baud=auto` the one its hunt found,
  /// for it is connected only once NMEA comes at that speed).
  static func gpsdLine(_ s: SourceSnapshot) -> GpsdDevice.SerialLine? {
    guard s.state == .connected, case .serial? = try? SourceURI(parsing: s.uri),
      let rate = s.counters.first(where: { $0.name == "baud" })?.value
    else { return nil }
    return GpsdDevice.SerialLine(bitsPerSecond: rate)
  }

  /// Stops the face: its clients are dropped, its socket removed.
  func stopGpsd() {
    faces.gpsd?.stop()
    faces.gpsd = nil
    updateSkies()
  }

  /// A reload turned the face on or off, or changed where it listens.
  func applyGpsd(_ new: DaemonConfig, old: DaemonConfig) {
    if new.gpsd != old.gpsd { stopGpsd() }
    startGpsd()
    faces.gpsd?.limits = GpsdServer.Limits(new)
  }

  /// Hands the face its part of a push; returns the rest.
  func route(_ notice: Notice, to sessions: [SessionID], gpsd: GpsdServer, on face: SessionRegistry.Face)
    -> [SessionID]
  {
    let registry = faces.sessions
    guard sessions.contains(where: { registry.face(of: $0) == face }) else { return sessions }
    var rest: [SessionID] = []
    var mine: [SessionID] = []
    for session in sessions {
      if registry.face(of: session) == face { mine.append(session) } else { rest.append(session) }
    }
    gpsd.deliver(notice, to: mine)
    return rest
  }
}
