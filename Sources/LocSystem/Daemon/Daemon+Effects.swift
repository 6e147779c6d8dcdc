import LocCore
import LocProtocol

/// The shell's side of the engine's effects: replies and events to the socket (or the
/// GeoClue face), files written, timers armed, units and commands started.
extension Daemon {
  /// A reply as it goes on the wire; a status report gets the parts only the shell knows
  /// (server counters, sources' live counters, the simulation, the GeoClue face) here.
  func complete(_ result: Result<Response, RequestError>) -> Result<Response, RequestError> {
    guard case .success(.status(let report)) = result else { return result }
    let counters = faces.server?.counters ?? ServerCounters()
    var completed = report.completed(server: counters, sources: sources.snapshots)
    if clock == .replay { completed.simulation = simulationReport }
    completed.geoClue = faces.geoClue?.report
    completed.chrony = actions.chrony?.report
    completed.gpsd = faces.gpsd?.report.status
    completed.nmeaOut = faces.nmeaOut?.0.report
    if let tcp = faces.nmeaTCP?.report {
      completed.nmeaOut?.counters += [
        Counter("tcpClients", tcp.clients), Counter("tcpAccepted", tcp.server.accepted),
        Counter("tcpDroppedSlow", tcp.server.droppedSlow),
        Counter("tcpDroppedAccessChanged", tcp.server.droppedAccessChanged),
        Counter("tcpSentences", tcp.face.sentences),
        Counter("tcpRelayed", tcp.face.relayedSentences),
        Counter(
          "tcpRefused",
          tcp.server.refusedFull + tcp.server.refusedReserved + tcp.server.refusedPerUser
            + tcp.server.unknownPeers),
        Counter("tcpRefusedFull", tcp.server.refusedFull),
        Counter("tcpRefusedReserved", tcp.server.refusedReserved),
        Counter("tcpRefusedPerUser", tcp.server.refusedPerUser),
        Counter("tcpUnknownPeers", tcp.server.unknownPeers),
        Counter("tcpPortInUse", tcp.server.portInUse),
      ]
    }
    completeSkies(&completed)
    completed.stateFiles = files.counters.all
    completed.stateFilesFault = files.fault
    return .success(.status(completed))
  }

  /// Carries out the engine's effects for `request` (nil: another event's), in order, but
  /// for the state files, which the loop iteration writes at its end, and what acknowledges
  /// a change, which waits for those writes (`IterationWrites`, `flushWrites`).
  func execute(_ effects: [Effect], request: RequestRef?) {
    for effect in files.batch.take(effects, request: request) { execute(effect) }
  }

  /// Carries out what waited for the iteration's writes.
  func execute(released effects: [Effect]) {
    for effect in effects { execute(effect) }
  }

  private func execute(_ effect: Effect) {
    switch effect {
    case .reply(let session, let id, let result):
      reply(session, id, result)
    case .push(let sessions, let notice, let at):
      push(notice, at: at, to: sessions)
    case .arm(let which, let at):
      arm(which, at: at)
    case .disarm(let which):
      clocks.disarm(which)
    case .geolocate(let query, let url, let timeout):
      let geolocator = actions.geolocator ?? Geolocator(loop: loop)
      actions.geolocator = geolocator
      geolocator.lookUp(query, url: url, timeout: timeout) { [unowned self] outcome in
        self.feed(.geolocateAnswered(outcome))
      }
    case .scanWifi(let wait):
      let scanner = actions.wifi ?? WifiScanner(loop: loop)
      scanner.settle = wait
      actions.wifi = scanner
      scanner.scan { [unowned self] outcome in
        self.feed(.wifiScanned(outcome.accessPoints, problem: outcome.problem, unread: outcome.unread))
      }
    case .followWifi(let on):
      let scanner = actions.wifi ?? WifiScanner(loop: loop)
      actions.wifi = scanner
      scanner.follow(on) { [unowned self] outcome in
        self.feed(.wifiPublished(outcome.accessPoints, unread: outcome.unread))
      }
    case .persist, .persistTimers, .persistApps:
      break  // kept by `files.batch` and written at the end of the iteration
    case .notifyStatus(let line):
      Systemd.notify("STATUS=\(line)")
    case .reloadConfiguration(let requester):
      reload(requestedBy: requester)
    case .log(let level, let message):
      logger.log(level, message)
    case .startUnit(let unit, let timer):
      actions.bus.startUnit(unit) { [unowned self] problem in
        if let problem {
          self.logger.warning("timer \(timer): cannot start \(unit): \(problem)")
        } else {
          self.logger.info("timer \(timer): started \(unit)")
        }
        let detail = problem.map { "cannot start \(unit): \($0)" } ?? "started \(unit)"
        self.feed(.timerActionEnded(timer: timer, succeeded: problem == nil, detail: detail))
      }
    case .launchApp(let unit, let app):
      actions.bus.startUnit(unit) { [unowned self] problem in
        if let problem {
          self.logger.warning("\(app): cannot start its launch unit \(unit): \(problem)")
        } else {
          self.logger.info("\(app): started its launch unit \(unit)")
        }
      }
    case .runCommand(let argv, let user, let environment, let timer):
      if let commands = actions.commands {
        // A hook can tell a simulation from the real thing (docs/TIMERS.md).
        let simulated = clock == .replay ? ["LOCD_SIMULATED=1"] : []
        commands.run(argv: argv, user: user, environment: environment + simulated, timer: timer)
      } else {
        logger.error("timer \(timer): commands are disabled (no child watch); not run")
        feed(.timerActionEnded(timer: timer, succeeded: false, detail: "commands are disabled; not run"))
      }
    case .receivers(let active):
      sources.setReceivers(active: active)
    case .beaconScanning(let active):
      sources.setScanning(active)
    case .compass(let claimed):
      sources.setCompass(claimed: claimed)
    case .skies(let wanted):
      engineWantsSkies(wanted)
    case .setSystemTimeZone(let zone):
      actions.bus.setTimezone(zone) { [unowned self] problem in
        if let problem {
          self.logger.warning("cannot set the system time zone to \(zone): \(problem)")
        } else {
          self.logger.notice("system time zone set to \(zone)")
        }
        // polkit's refusals name no rule; say where the rule is (docs/TIMERS.md).
        let refused = ["InteractiveAuthorizationRequired", "AccessDenied"].contains {
          problem?.contains($0) == true
        }
        let hint = refused ? " (polkit refused user locd: see docs/TIMERS.md)" : ""
        self.feed(.systemZoneSet(zone, problem: problem.map { $0 + hint }))
      }
    }
  }

  /// A reply to a session, through the face that holds it (the registry says which).
  private func reply(_ session: SessionID, _ id: RequestID, _ result: Result<Response, RequestError>) {
    switch faces.sessions.face(of: session) {
    case .geoClue?:
      faces.geoClue?.reply(session, id, result)
      return
    case .gpsd?:
      faces.gpsd?.reply(session, id, result)
      return
    case .nmeaTCP?:
      faces.nmeaTCP?.reply(session, id, result)
      return
    case .nmeaOut?: return
    case .socket?: break
    case nil: return  // closed meanwhile
    }
    let line: [UInt8]
    switch complete(result) {
    case .success(let response): line = ServerMessage.replyLine(id, response)
    case .failure(let error): line = ServerMessage.failure(id, error).lineBytes
    }
    faces.server?.send(bytes: line, to: session)
  }

  /// An event to sessions: GeoClue's take theirs, the socket's get one shared line.
  private func push(_ notice: Notice, at: Instant, to recipients: [SessionID]) {
    var sessions = recipients
    if let geoClue = faces.geoClue { sessions = route(notice, to: sessions, geoClue: geoClue) }
    if let gpsd = faces.gpsd { sessions = route(notice, to: sessions, gpsd: gpsd, on: .gpsd) }
    if let tcp = faces.nmeaTCP { sessions = route(notice, to: sessions, gpsd: tcp, on: .nmeaTCP) }
    if let out = faces.nmeaOut { sessions = route(notice, to: sessions, nmeaOut: out) }
    guard !sessions.isEmpty, let server = faces.server else { return }
    let line = EventMessage(notice, at: at).lineBytes
    server.send(bytes: line, to: sessions)
  }

}
