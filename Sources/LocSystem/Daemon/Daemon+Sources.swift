import LocCore
import LocProtocol

/// The source set: the fix and beacon sources of the configuration, started (with their
/// sink into the engine) and stopped together.
extension Daemon {
  func startSources() {
    let (admission, unknown) = PeerAdmission.resolving(config, daemonUID: CurrentProcess.userID)
    for name in unknown {
      logger.warning("AllowUsers=/AllowGroups=: no \(name) on this machine; it admits nobody, ignoring it")
    }
    var sink = SourceSink(
      // With the replay clock a fix's time moves simulated time first (the driver).
      fix: { [unowned self] fix, id, writer, cycleStart in
        self.sampleTime(fix, from: id, writer: writer, cycleStart: cycleStart)
        self.gpsdCycle(fix, from: id)
        self.feed(.fixDecoded(fix, source: id), advancingTo: fix.time)
      },
      update: { [unowned self] snapshot, restarted in
        self.feed(.sourceUpdated(snapshot, restarted: restarted))
        self.sourceChanged(snapshot)
      },
      log: { [unowned self] level, message in self.logger.log(level, message) },
      beacon: { [unowned self] advertisement, id in
        self.feed(.beaconHeard(advertisement.sighting, source: id), advancingTo: advertisement.time)
      },
      sighting: { [unowned self] sighting, id in self.feed(.beaconHeard(sighting, source: id)) },
      sky: { [unowned self] sky, id in
        self.feed(.skyDecoded(sky, source: id))
        self.faces.gpsd?.skyDecoded()
        self.faces.nmeaTCP?.skyDecoded()
      },
      sentence: { [unowned self] line, id in self.relay(line, from: id) },
      heading: { [unowned self] degrees, id in self.feed(.headingMeasured(degrees, source: id)) },
      admission: admission)
    sink.cells = { [unowned self] cells, id in self.feed(.cellsSeen(cells, source: id)) }
    sink.now.networkOn = { [unowned self] in self.config.network.enabled }
    sink.now.suplServer = { [unowned self] in self.config.suplServer }
    sink.now.skiesWanted = { [unowned self] in self.sources.skiesWanted }
    // Source ids are indices of this configuration: which sent sentences is learnt again.
    faces.nmeaSources = [:]
    faces.sourceNames = [:]
    if let face = config.defaultSourceSetAside {
      logger.notice(
        "no source configured, and the default \(SourceURI.defaultSource) would read \(face): it is not "
          + "used (the face stands in for gpsd); set Source= to the receiver")
    }
    for (index, uri) in config.effectiveSources.enumerated() {
      let id = SourceID(index)
      guard let source = sources.make(uri, id, loop, sink) else {
        logger.error("source \(uri) is not supported by this build, ignoring")
        feed(
          .sourceUpdated(
            SourceSnapshot(
              id: id, uri: uri.description, state: .failed, lastError: "not supported",
              trust: uri.trust(peersRestricted: admission.restricted)),
            restarted: true))
        continue
      }
      if config.usesDefaultSource, let gpsd = source as? GpsdSource {
        gpsd.standInForDefault(socketPath: SourceURI.gpsdControlSocket)
      }
      sources.add(source)
      if replay.progress.pausedSince != nil { (source as? ReplaySource)?.pause() }
      feed(.sourceUpdated(source.snapshot, restarted: true))
      source.start()
    }
    // A replay whose every source failed (or ended) inside `start()` ends here.
    if clock == .replay { checkReplayEnd() }
  }

  func stopSources() { sources.stopAll() }

  /// The receiver's time of `fix` to chrony (`[Time] ChronySocket=`), against the wall clock
  /// when its cycle's first sentence arrived (`cycleStart`: the moment nearest the receiver's
  /// second; none while the source does not yet know where its cycles begin, so none is
  /// sent then; decision 0064), when `ClockSampleRule` lets it: the writer is the source
  /// kind's own, or the one the source learned (`writer`), so a replay's recorded times and
  /// any user's feed are withheld (decision 0060). Under `--clock replay` nothing is judged
  /// or sent.
  func sampleTime(_ fix: Fix, from id: SourceID, writer learned: FixWriter?, cycleStart: Instant?) {
    guard let chrony = actions.chrony, clock == .system, let cycleStart,
      config.effectiveSources.indices.contains(id.index)
    else { return }
    let uri = config.effectiveSources[id.index]
    chrony.send(fix, readAt: cycleStart, writer: uri.writer(learned: learned), source: uri.description)
  }

  /// Makes, replaces or drops the chrony refclock for `[Time] ChronySocket=` (at start and
  /// on reload; a new path starts its counters again).
  func applyChrony(_ config: DaemonConfig) {
    guard let path = config.chronySocket else {
      actions.chrony = nil
      return
    }
    if config.acquisition.mode != .continuous {
      logger.notice(
        "[Time] ChronySocket=: samples go only while the receiver is read; set [Acquisition] Policy=continuous for a steady stream"
      )
    }
    if let chrony = actions.chrony, chrony.path == path {
      chrony.maxDisagreement = config.maxDisagreement
      return
    }
    // Root, and chrony's user where it has one (Debian's _chrony, chrony elsewhere): chronyd
    // binds the socket before it leaves root, so it is root's; one started as its own user
    // makes it that user's.
    let owners = Set([UInt32(0)] + ["_chrony", "chrony"].compactMap { Accounts.user(named: $0)?.uid })
    actions.chrony = ChronyRefclock(path: path, owners: owners, maxDisagreement: config.maxDisagreement) {
      [unowned self] level, message in self.logger.log(level, message)
    }
  }

  /// Watches the static location file of `config` (at start and on reload: a new path is
  /// watched instead, the same one read again, none forgets what the old one said).
  func applyStaticFile(_ config: DaemonConfig) {
    guard let path = config.staticFile else {
      if let old = sources.staticFile?.path {
        sources.staticFile = nil
        feed(.staticFileRead(path: old, contents: nil, problem: nil))
      }
      return
    }
    if let watch = sources.staticFile, watch.path == path {
      watch.readNow()
      return
    }
    let report: (String?, String?) -> Void = { [unowned self] contents, problem in
      self.feed(.staticFileRead(path: path, contents: contents, problem: problem))
    }
    do {
      sources.staticFile = try StaticFileWatch(loop: loop, path: path, read: report)
    } catch {
      sources.staticFile = nil
      logger.warning(
        "cannot watch the directory of \(path) (\(error)); it is read only at start and on reload")
      let (contents, problem) = StaticFileWatch.contents(of: path)
      report(contents, problem)
    }
  }
}
