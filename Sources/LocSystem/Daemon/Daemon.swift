import LocCore
import LocProtocol

/// The imperative shell: owns every descriptor, feeds the engine events, carries out its
/// effects. Thin on purpose; decisions live in `Engine`.
public final class Daemon {

  let loop: EventLoop
  let logger: Logger
  let loader: ConfigLoader
  /// The one way into the engine (which holds the one copy of the configuration, `config`)
  /// and the clock it runs on.
  let driver: EngineDriver
  /// The zones' data, read again on reload and when tzdata changes on disk.
  let zones: ZoneFollow
  /// The native socket, the GeoClue2 face, and which of them holds each session.
  let faces: Faces
  /// state.json, the timer store, the apps store.
  var files: StateFiles
  /// The running sources and what acquisition wants of them.
  let sources: SourceSet
  /// With `--clock replay`: held sources, progress, the exit at the end.
  let replay: ReplayControl
  /// The engine's timers on the system clock, and the watch for clock steps.
  let clocks: EngineTimers
  /// Units, the time zone and timer commands.
  let actions: SystemActions
  var stopping = false

  /// Where the engine's notion of now comes from: the system's wall clock, or the replay
  /// source's fix times (`locd --clock replay`: a recorded drive plays through in simulated
  /// time and timers fire at their simulated deadlines).
  public typealias ClockMode = EngineDriver.Clock

  /// A daemon for `config` (already loaded by `loader`) with the zones of `zoneData`.
  /// `makeSource` builds the source for a URI (nil: not supported in this build).
  public init(
    config: DaemonConfig, loader: ConfigLoader, zoneData: ZoneData,
    makeSource: @escaping (SourceURI, SourceID, EventLoop, SourceSink) -> FixSource?,
    clock: ClockMode = .system, exitAtEnd: Bool = false
  ) throws(Errno) {
    self.replay = ReplayControl(exitAtEnd: exitAtEnd)
    self.files = StateFiles(directory: config.stateDirectory)
    self.faces = Faces(policy: Daemon.accessPolicy(config))
    let loop = try EventLoop()
    self.loop = loop
    let logger = Logger(level: config.logLevel)
    self.logger = logger
    self.loader = loader
    self.zones = ZoneFollow(zoneData)
    self.clocks = EngineTimers(loop: loop)
    self.actions = SystemActions(
      bus: SystemBus(loop: loop, log: { level, message in logger.log(level, message) }))
    self.sources = SourceSet(loop: loop, make: makeSource)
    self.driver = EngineDriver(
      Engine(config: config, environment: zoneData.environment(configured: config.timeZone)), clock: clock,
      wallClock: { loop.now })
    driver.perform = { [unowned self] effects, request in self.execute(effects, request: request) }
  }

  /// Starts everything, tells systemd READY=1, runs until SIGTERM/SIGINT; returns the exit status.
  public func run() -> Int32 {
    do {
      try start()
    } catch {
      logger.error("cannot start: \(error)")
      Systemd.notify("STATUS=cannot start: \(error)")
      return 1
    }
    let code = loop.run()
    return code
  }

  func start() throws(Errno) {
    raiseFileLimit()
    // Before the loop waits again: what was changed meanwhile is written, then acknowledged
    // (decision 0061). At idle priority, so all the work that is ready (every client's turn,
    // each client's requests left for a later turn) is done first and shares one write a
    // file; its answers hold back the clients that wait for them, so the work ends.
    try loop.afterEachIteration(priority: .idle) { [unowned self] in self.flushWrites() }
    try loop.onSignal(Signals.terminate) { [unowned self] in self.shutdown(reason: "SIGTERM") }
    try loop.onSignal(Signals.interrupt) { [unowned self] in self.shutdown(reason: "SIGINT") }
    try loop.onSignal(Signals.hangUp) { [unowned self] in self.reload(requestedBy: nil) }
    Signals.ignoreBrokenPipe()

    // State before the socket: the first client must get the cached answer.
    var state: StoredState? = nil
    var problem: String? = nil
    var notes: [String] = []
    do { notes = try files.state.prepareDirectory() } catch { problem = "state directory: \(error)" }
    switch files.state.read(notes: &notes) {
    case .missing: break
    case .loaded(let s): state = s
    case .unusable(let why):
      problem = why
      files.counters.refused += 1
    }
    for note in notes { logger.warning(note) }
    feed(.started(state, stateProblem: problem))
    loadTimers(initial: true)
    loadApps(initial: true)
    applyStaticFile(config)
    if clock == .system {
      do {
        clocks.watcher = try ClockWatcher(
          loop: loop, stepped: { [unowned self] in self.feed(.clockStepped) },
          resumed: { [unowned self] slept in self.feed(.resumed(sleptFor: slept)) })
      } catch {
        logger.warning(
          "cannot watch for clock steps (\(error)); timers re-plan at their next deadline instead")
      }
    }
    actions.commands = makeCommandRunner()

    faces.server = try ControlServer(
      loop: loop, listening: try openSocket(), limits: ControlServer.Limits(config),
      serverVersion: VersionReport.release, sessionIDs: faces.sessions.ids,
      handlers: ControlServer.Handlers(
        access: { [unowned self] peer in self.faces.policy.level(for: peer) },
        opened: { [unowned self] id, peer, access, app, client, hello in
          let unit = PeerCgroup.unit(of: peer.pid)
          let said = SessionHello(peer: peer, access: access, client: client, app: app, unit: unit)
          self.faces.sessions.opened(id, on: .socket)
          self.feed(.sessionOpened(id, said, reply: hello))
        },
        request: { [unowned self] session, id, request in
          self.feed(.requestReceived(session, id, request))
          if self.replay.holding { self.replayRequest(request) }
        },
        closed: { [unowned self] id in
          self.faces.sessions.closed(id)
          self.feed(.sessionClosed(id))
        },
        // The counters are read when a status reply is sent (`complete(_:)`), not mirrored.
        counters: { _ in },
        log: { [unowned self] level, message in self.logger.log(level, message) }))

    startGeoClue()
    startGpsd()
    startNMEAOut()
    applyChrony(config)
    watchZoneData()
    enableFlowControl()
    if clock == .replay {
      holdSources()
    } else {
      startSources()
    }
    let watchdog = loop.enableWatchdog()
    logger.info(
      "locd \(VersionReport.release) ready on \(config.socketPath)\(watchdog ? ", watchdog on" : "")",
      fields: [("LOCD_SOCKET", config.socketPath)])
    // What start-up changed (a store split, a timer's memory) is on disk before READY=1.
    flushWrites()
    let status = engine.status(at: now).summary
    Systemd.notify("READY=1\nSTATUS=\(status)")
    releaseStartupCode()
  }

  /// Most of locd's code runs only while it starts (configuration, data files, the first
  /// plan) and stays resident for nothing, with its neighbours the kernel mapped around each
  /// fault: about 6 MB of the binary against 1.5 MB used while serving (bench/80-geoclue.sh).
  /// Paging the program's code out once ready gives that memory back; what runs again comes
  /// back from the file (MADV_PAGEOUT, Linux 5.4; a no-op before).
  func releaseStartupCode() {
    let bytes = CurrentProcess.pageOutProgramCode()
    logger.debug("start-up: \(bytes / 1024) KiB of program code paged out")
  }

  /// A soft limit of 1024 descriptors would cap clients far below MaxClients; raise the
  /// soft limit to the hard one (setrlimit(2)), as systemd recommends for servers.
  func raiseFileLimit() {
    CurrentProcess.raiseDescriptorLimit(toAtLeast: config.maxClients + 256)
  }

  /// The access policy of `config`, its group names resolved now.
  static func accessPolicy(_ config: DaemonConfig) -> AccessPolicy {
    AccessPolicy(
      daemonUID: CurrentProcess.userID, readGID: config.effectiveReadGroup.flatMap { Accounts.groupID($0) },
      adminGID: config.adminGroup.flatMap { Accounts.groupID($0) })
  }

  func openSocket() throws(Errno) -> FileDescriptor {
    if let passed = Systemd.passedSocket() {
      guard Systemd.isListeningUnixSocket(passed) else {
        throw Errno(
          call: "socket activation: descriptor 3 is not a listening Unix stream socket",
          code: Errno.invalidArgument)
      }
      faces.ownsSocketFile = false
      logger.debug("using the socket passed by the service manager")
      return passed
    }
    var gid: UInt32? = nil
    if let group = config.socketGroup {
      gid = Accounts.groupID(group)
      if gid == nil {
        // The built-in group is the one the package creates; run from a source tree (make run)
        // it is usually missing, and that is no news. A group the configuration names is.
        let message = "socket group '\(group)' does not exist; the socket keeps the daemon's group"
        if group == DaemonConfig().socketGroup { logger.debug(message) } else { logger.notice(message) }
      }
    }
    let directory = String(
      config.socketPath[..<(config.socketPath.lastIndex(of: "/") ?? config.socketPath.startIndex)])
    if !directory.isEmpty { try FileIO.makeDirectory(path: directory, mode: 0o755) }
    let socket: FileDescriptor
    do {
      socket = try UnixSocket.listen(path: config.socketPath, mode: config.socketMode, gid: gid)
    } catch let e where e.code == Errno.notPermitted && gid != nil {
      // Not allowed to give the socket that group (not root, not a member): keep ours.
      logger.notice(
        "cannot give the socket group '\(config.socketGroup ?? "")' (\(e)); keeping the daemon's group")
      socket = try UnixSocket.listen(path: config.socketPath, mode: config.socketMode, gid: nil)
    }
    faces.ownsSocketFile = true
    return socket
  }

  /// The configuration in effect (the engine's).
  var config: DaemonConfig { engine.config }
  /// The engine, for queries between effect lists.
  var engine: Engine { driver.engine }
  /// Where the engine's time comes from.
  var clock: ClockMode { driver.clock }

  /// Hands `event` to the engine through the driver: now, or after the effect list being
  /// carried out (an event raised by an effect is never handled inside it).
  func feed(_ event: EngineEvent, advancingTo time: Instant? = nil) {
    driver.submit(event, advancingTo: time)
  }

  /// The engine's now: the loop's wall clock, or the simulated clock of a replay (the wall
  /// clock until the first fix sets it).
  var now: Instant { driver.now }

  /// The runner of timer commands; nil (commands disabled, said in the log) when children
  /// cannot be watched.
  func makeCommandRunner() -> CommandRunner? {
    do {
      return try CommandRunner(
        loop: loop, log: { [unowned self] level, message in self.logger.log(level, message) },
        ended: { [unowned self] timer, succeeded, detail in
          // A command refused at once is reported from inside the effect list that ran it:
          // the driver handles this after that list.
          self.feed(.timerActionEnded(timer: timer, succeeded: succeeded, detail: detail))
        })
    } catch {
      logger.warning("cannot watch child processes (\(error)); timer commands are disabled")
      return nil
    }
  }

  /// Arms `which` on the wall clock. With the replay clock the driver's simulated clock
  /// keeps it, once the first fix has started that clock; before, the engine runs on the
  /// wall clock (`now`), and so do its deadlines: status's 'gives up at' comes when it says
  /// (issue 43, item 2). Such a timer firing after simulated time started is dropped: the
  /// clock step at the start planned again what is still wanted.
  func arm(_ which: EngineTimer, at: Instant) {
    if clock == .replay && driver.simulated.now != nil { return }
    do {
      try clocks.arm(which, at: at) { [unowned self] in
        if self.clock == .replay && self.driver.simulated.now != nil { return }
        self.feed(.timerFired(which))
      }
    } catch {
      logger.error("cannot create a timer: \(error)")
    }
  }

  /// Reads the configuration again and hands it to the engine; once the engine has it, the
  /// shell's part follows (access, sockets, sources, the faces), then the timer and app
  /// files. Called for SIGHUP and for the engine's `reloadConfiguration` effect: each step
  /// is an event of its own, handled after the effect list that asked for the reload.
  func reload(requestedBy requester: RequestRef?) {
    Systemd.notify("RELOADING=1\nMONOTONIC_USEC=\(loop.monotonicMicroseconds)")
    let result = loader.load()
    let old = config
    if case .success(let new) = result {
      logger.level = new.logLevel  // before the engine logs about the reload
      reloadZoneData(configured: new.timeZone, was: old.timeZone)
    }
    feed(.configReloaded(result, requestedBy: requester))
    driver.afterwards { [unowned self] in
      if case .success = result {
        self.apply(self.config, old: old)
        self.loadTimers(initial: false)
        self.loadApps(initial: false)
      }
      self.driver.afterwards { [unowned self] in
        Systemd.notify("READY=1\nSTATUS=\(self.engine.status(at: self.now).summary)")
      }
    }
  }

  /// Applies the shell's part of a new configuration (the engine has it already); the
  /// socket path needs a restart.
  func apply(_ new: DaemonConfig, old: DaemonConfig) {
    faces.policy = Daemon.accessPolicy(new)
    applyChrony(new)
    applyStaticFile(new)
    recheckAccess(reason: .configurationReloaded)
    faces.server?.limits = ControlServer.Limits(new)
    if new.socketPath != old.socketPath || new.socketMode != old.socketMode
      || new.socketGroup != old.socketGroup
    {
      logger.warning("socket settings changed; they take effect at the next restart")
    }
    if new.stateDirectory != old.stateDirectory {
      // What waits to be written goes to the new directory, with its answers.
      let (counters, batch, fault, retry) = (files.counters, files.batch, files.fault, files.retry)
      files = StateFiles(directory: new.stateDirectory)
      (files.counters, files.batch, files.fault, files.retry) = (counters, batch, fault, retry)
      do { try files.state.ensureDirectory() } catch { logger.error("state directory: \(error)") }
    }
    applyGeoClue(new, old: old)
    applyGpsd(new, old: old)
    applyNMEAOut(new, old: old)
    faces.server?.flowControl?.stallLimit = new.replayStallTimeout
    if new.effectiveSources != old.effectiveSources || new.usesDefaultSource != old.usesDefaultSource
      || new.allowUsers != old.allowUsers
      || new.allowGroups != old.allowGroups
    {
      // New lists apply to every peer: the listeners start over and their peers reconnect.
      logger.info("sources changed; restarting them")
      stopSources()
      startSources()
    }
  }

  /// Decides every open session's access again with the policy now in effect; each that
  /// changed goes to the server (idle sessions) and the engine (subscriptions, `locate`
  /// requests, the `access-changed` event).
  func recheckAccess(reason: AccessChangeReason) {
    faces.gpsd?.accessChanged()
    faces.nmeaTCP?.accessChanged()
    guard let server = faces.server else { return }
    for session in server.openSessions {
      let level = faces.policy.level(for: session.peer)
      guard level != session.access else { continue }
      server.setAccess(level, of: session.id)
      feed(.accessChanged(session.id, level, reason: reason))
    }
  }

  func shutdown(reason: String, code: Int32 = 0) {
    guard !stopping else { return }
    stopping = true
    logger.info("stopping (\(reason))")
    Systemd.notify("STOPPING=1\nSTATUS=stopping")
    feed(.stopping)
    // The loop ends after this iteration: what it and the stop changed is written now.
    driver.afterwards { [unowned self] in self.flushWrites() }
    stopGeoClue()
    stopGpsd()
    stopNMEAOut()
    stopSources()
    faces.server?.stop(notice: RequestError(.daemonStopping, "locd is stopping (\(reason))"))
    if faces.ownsSocketFile { try? FileIO.remove(path: config.socketPath) }
    clocks.cancelAll()
    replay.exitTimer?.cancel()
    loop.exit(code: code)
  }
}
