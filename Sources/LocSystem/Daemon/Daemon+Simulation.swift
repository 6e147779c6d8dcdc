import LocCore

/// The shell's part of `locd --clock replay`: the sources wait for the first subscriber,
/// flow control pauses the replay while a client's queue is full, the end of the replay is
/// announced (log line, `simulation-finished` event, `status`), and `--exit-at-end` exits
/// once clients have read what was queued and timer commands have ended.
extension Daemon {
  /// The simulation as `status` and `simulation-finished` show it.
  var simulationReport: SimulationReport {
    replay.progress.report(
      waiting: replay.holding, time: driver.simulated.now, exitAtEnd: replay.exitAtEnd,
      now: loop.monotonicMicroseconds)
  }

  /// Keeps the sources until a client subscribes; `status` shows them waiting.
  func holdSources() {
    replay.holding = true
    for (index, uri) in config.effectiveSources.enumerated() {
      // Waiting, not failing (issue 43, item 5): no error, so no fault.
      let waiting = SourceSnapshot(
        id: SourceID(index), uri: uri.description, state: .waiting(retryAt: nil), heldForSubscriber: true)
      feed(.sourceUpdated(waiting, restarted: true))
    }
    logger.info("replay clock: sources wait for a subscriber (e.g. 'locctl watch --json')")
  }

  /// What `request` does to a held replay (`--clock replay`), nil for nothing: a client
  /// listening starts it, and so does one that asks for a position or waits for a moment of
  /// simulated time (`locate`, `wait`: they would otherwise wait on a clock that does not
  /// move; issue 43, item 2); a registration starts it once registrations settle. An app's
  /// subscription to its own authorization alone (what the LocationManager library sends
  /// with its hello) is neither, so an app can be authorized before the replay starts.
  static func startsReplay(_ request: Request) -> ReplayStart? {
    switch request {
    case .subscribe(let kinds):
      return kinds.subtracting([.authorization, .agentPrompt]).isEmpty ? nil : .listening
    case .rangeBeacons, .startUpdates, .locate, .wait: return .listening
    case .monitorBeacons, .monitorVisits(true), .registerRegion: return .registered
    default: return nil
    }
  }

  /// What starts held replay sources.
  enum ReplayStart {
    /// The client listens now (`subscribe`, `start-updates`, `range-beacons`) or waits for a
    /// position or a moment (`locate`, `wait`): at once.
    case listening
    /// An app registered something to be told about (`register-region`, `monitor-visits`,
    /// `monitor-beacons`): once no registration has come for `replaySettle`, so that what an app
    /// registers in one go, one request after another, is all in before the drive moves (at
    /// `speed=max` the drive would otherwise run minutes ahead between two of its requests).
    case registered
  }

  /// How long held sources wait after a registration for the next request: far above one
  /// request's round trip, far below what a person notices.
  static let replaySettleMicroseconds: UInt64 = 250_000

  /// A request while the sources are held: start them, or start them once the
  /// registrations settle (each further registration waits that long again; other
  /// requests, a `status` poll say, neither start nor hold the drive).
  func replayRequest(_ request: Request) {
    switch Daemon.startsReplay(request) {
    case .listening?:
      switch request {
      case .locate: releaseSources("a client asked for a position")
      case .wait: releaseSources("a client waits for a moment of simulated time")
      default: releaseSources("a client subscribed")
      }
    case .registered?: settleReplayStart()
    case nil: break
    }
  }

  private func settleReplayStart() {
    if replay.settle == nil {
      replay.settle = try? loop.timer(clock: .monotonic) { [unowned self] in
        self.releaseSources("an app's registrations are in")
      }
    }
    guard let settle = replay.settle else { return releaseSources("an app registered") }
    settle.arm(atMicroseconds: loop.monotonicMicroseconds + Daemon.replaySettleMicroseconds)
  }

  /// The held sources start (the simulation starts once someone watches, so no event is missed).
  func releaseSources(_ why: String) {
    guard replay.holding else { return }
    replay.holding = false
    replay.settle?.cancel()
    replay.settle = nil
    logger.info("replay clock: \(why); playing")
    startSources()
  }

  /// Holds clients over their queue limit instead of dropping them, pausing the replay.
  func enableFlowControl() {
    guard clock == .replay, let server = faces.server else { return }
    _ = server.enableFlowControl(stallLimit: config.replayStallTimeout) { [unowned self] congested in
      self.congestion(congested)
    }
  }

  /// Flow control: a client's queue is full (pause) or every held queue drained (go on).
  func congestion(_ congested: Bool) {
    let now = loop.monotonicMicroseconds
    if congested {
      replay.progress.paused(at: now)
      logger.debug("replay paused: a client's queue is full")
    } else {
      replay.progress.resumed(at: now)
      logger.debug("replay resumed")
    }
    for source in sources.replays {
      if congested { source.pause() } else { source.resume() }
    }
  }

  /// A source reported `snapshot`: with the replay clock, the end of the last source is the
  /// end of the simulation. A source that fails inside its own `start()` reports before the
  /// others exist: `startSources` checks once they all do.
  func sourceChanged(_ snapshot: SourceSnapshot) {
    guard clock == .replay, !replay.progress.finished else { return }
    switch snapshot.state {
    case .finished, .failed: checkReplayEnd()
    default: break
    }
  }

  /// Announces the end once every source finished or failed; with `--exit-at-end`, exits.
  func checkReplayEnd() {
    guard !replay.progress.finished, !replay.holding, !stopping,
      sources.all.count == config.effectiveSources.count
    else {
      return
    }
    var failed = false
    for source in sources.all {
      switch source.snapshot.state {
      case .finished: continue
      case .failed: failed = true
      default: return
      }
    }
    replay.progress.finished = true
    replay.progress.failed = failed
    let at = driver.simulated.now.map { "at \($0.iso8601()) simulated time" } ?? "before any fix"
    let problem = failed ? " (a source failed: see above)" : ""
    let then = replay.exitAtEnd ? "; exiting once clients have read what is queued" : ""
    logger.log(failed ? .error : .info, "replay finished \(at)\(problem)\(then)")
    feed(.simulationFinished(simulationReport))
    if replay.exitAtEnd { exitWhenDelivered(code: failed ? 1 : 0) }
  }

  /// Exits with `code` once every client's queue is written out (a client that reads
  /// nothing for `ReplayStallTimeout` is dropped) and timer commands have ended.
  func exitWhenDelivered(code: Int32) {
    guard let control = faces.server?.flowControl else {
      shutdown(reason: "replay finished", code: code)
      return
    }
    control.drain { [unowned self] in self.exitWhenCommandsEnd(code: code) }
  }

  /// Exits once no timer command runs, or after `ReplayStallTimeout` leaving them running.
  func exitWhenCommandsEnd(code: Int32) {
    guard let commands = actions.commands, commands.runningCount > 0 else {
      shutdown(reason: "replay finished", code: code)
      return
    }
    let limit = config.replayStallTimeout
    logger.info("replay finished; waiting for \(commands.runningCount) timer command(s) to end")
    commands.idle = { [unowned self] in self.shutdown(reason: "replay finished", code: code) }
    do {
      let timer = try loop.timer(clock: .monotonic, accuracyMicroseconds: 10_000) { [unowned self] in
        self.logger.warning(
          "timer command(s) still running after \(TimeFormat.duration(limit)); exiting without them")
        self.shutdown(reason: "replay finished", code: code)
      }
      timer.arm(atMicroseconds: loop.monotonicMicroseconds + UInt64(max(0, limit.seconds) * 1_000_000))
      replay.exitTimer = timer
    } catch {
      logger.warning("cannot time the wait for timer commands (\(error)); exiting without them")
      shutdown(reason: "replay finished", code: code)
    }
  }
}
