import LocCore

/// Turning the modems' GNSS on and off (Modem.Location.Setup), asking for the location of
/// modems that do not signal it (GetLocation), and what status shows.
extension ModemSource {
  /// How long after a failed Setup it is tried again (ModemManager refuses Setup while the
  /// modem is still enabling, or while another client holds the GNSS engine).
  static let setupRetryMicroseconds: UInt64 = 5_000_000

  /// Whether locd wants the modems' GPS now.
  var wantsGPS: Bool { active && !presence.stopped && phase == .ready }

  /// Whether locd wants the modems' serving cells now: network positioning on (they go to
  /// its lookups), whether or not fixes are wanted.
  var wantsCells: Bool { !presence.stopped && phase == .ready && sink.now.networkOn() }

  /// Setup for each modem whose GNSS (or 3GPP source) is not as wanted; the poll timer
  /// armed while a running modem does not signal.
  func reconcile() {
    let wanted = wantsGPS
    let cells = wantsCells
    for modem in sortedModems {
      let lacks = modem.lacksCells(cells)
      switch modem.phase {
      case .off, .asleep: if wanted { wake(modem) } else if lacks { setup(modem, on: false) }
      case .running: if !wanted || lacks { setup(modem, on: wanted) }
      // A modem without GNSS is Setup for its cell alone.
      case .noGPS: if lacks && modem.hasCells { setup(modem, on: false) }
      case .settingUp, .failed, .held, .assisting: continue
      }
    }
    armPoll()
  }

  /// Setup with GPS NMEA, unless a running gpsd holds the modem's GPS port: then the modem
  /// is `held` (warned once, counted, in status), looked at again every 5 s.
  func wake(_ modem: ModemGNSS) {
    guard let holder = GpsdPortCheck.holder(of: modem.identity.gpsPorts) else {
      if wantsAssistance(modem) {
        assist(modem)
      } else {
        setup(modem, on: true)
      }
      return
    }
    counters.setup.gpsdHeld += 1
    modem.phase = .held(holder, retryAt: loop.monotonicMicroseconds + Self.setupRetryMicroseconds)
    log(.warning, "\(modem.name): \(holder.words) (no Setup with GPS while it runs)")
  }

  /// Setup(sources, signal_location=true): GPS NMEA added to the modem's enabled sources
  /// (`on`), or every GPS bit cleared; the 3GPP source added while `cells` (by default: while
  /// network positioning is on), cleared otherwise if locd had added it.
  func setup(_ modem: ModemGNSS, on: Bool, cells: Bool? = nil) {
    guard let bus else { return }
    var sources = modem.setupSources(on: on, cells: cells ?? wantsCells)
    if on && agpsWanted(modem) { sources.insert(.agpsMSB) }
    // Known now: the Enabled change may be signalled before the reply.
    let addsCells = sources.contains(.cellID) && !modem.enabled.contains(.cellID)
    counters.setup.calls += 1
    modem.phase = .settingUp(on: on)
    log(.debug, "\(modem.name): Setup sources=\(sources.rawValue) (GPS \(on ? "on" : "off"))")
    let serial = modem.serial
    do {
      try bus.call(
        destination: Self.busName, path: modem.path, interface: Self.locationInterface, member: "Setup",
        arguments: [.uint32(sources.rawValue), .bool(true)]
      ) { [weak self] reply in
        guard let self, let now = self.modems[modem.path], now.serial == serial else { return }
        self.setupAnswered(now, on: on, sources: sources, addsCells: addsCells, reply)
      }
    } catch {
      setupFailed(modem, error.description)
    }
  }

  private func setupAnswered(
    _ modem: ModemGNSS, on: Bool, sources: ModemLocationSources, addsCells: Bool, _ reply: BusMessage
  ) {
    if let problem = reply.errorText {
      setupFailed(modem, problem)
    } else {
      if addsCells { modem.cells.added = true }
      if !sources.contains(.cellID) { modem.cells.added = false }
      modem.enabled = sources
      modem.failures = 0
      if !modem.hasGPS {
        modem.phase = .noGPS
        log(.debug, "\(modem.name): Setup sources=\(sources.rawValue) done (no GNSS)")
      } else if on {
        modem.phase = .running
        modem.lastTrace = nil
        modem.live.begin()
        log(.info, "\(modem.name): GPS on")
        if modem.refresh.now != 0 { setRefreshRate(modem, 0) }
        getLocation(modem)
        report(restarted: true)
      } else {
        modem.phase = .asleep
        modem.live.end()
        log(.debug, "\(modem.name): GPS off")
      }
    }
    // Acquisition may have changed its mind while the call was on its way.
    reconcile()
    report()
  }

  private func setupFailed(_ modem: ModemGNSS, _ problem: String) {
    counters.setup.errors += 1
    modem.failures += 1
    modem.phase = .failed(problem, retryAt: loop.monotonicMicroseconds + Self.setupRetryMicroseconds)
    log(
      modem.failures == 1 ? .warning : .debug,
      "\(modem.name): Setup failed (\(problem)); trying again every \(Self.setupRetryMicroseconds / 1_000_000) s"
    )
  }

  /// SetGpsRefreshRate(`rate`): 0 so that each trace is published as it comes (a receiver
  /// cycle a second) instead of one every 30 s; at stop, the rate the modem had. A failure is
  /// counted and logged: the traces then come at the modem's rate.
  func setRefreshRate(_ modem: ModemGNSS, _ rate: UInt32) {
    guard let bus else { return }
    if rate == 0 && modem.refresh.before == nil { modem.refresh.before = modem.refresh.now }
    if rate != 0 { modem.refresh.before = nil }
    do {
      try bus.call(
        destination: Self.busName, path: modem.path, interface: Self.locationInterface,
        member: "SetGpsRefreshRate", arguments: [.uint32(rate)]
      ) { [weak self] reply in
        guard let self, let problem = reply.errorText else { return }
        self.counters.setup.refreshRateErrors += 1
        self.log(
          .notice, "\(modem.name): SetGpsRefreshRate \(rate) failed (\(problem)); traces come at its rate")
      }
    } catch {
      counters.setup.refreshRateErrors += 1
    }
  }

  /// Failed modems are tried again when fixes are wanted anew.
  func retryFailed() {
    for modem in modems.values {
      if case .failed = modem.phase { modem.phase = modem.hasGPS ? .off : .noGPS }
    }
  }

  /// Failed modems whose retry is due are tried again; whether there was one.
  private func retryDue() -> Bool {
    let now = loop.monotonicMicroseconds
    var any = false
    for modem in modems.values {
      if case .failed(_, let at) = modem.phase, at <= now {
        modem.phase = modem.hasGPS ? .off : .noGPS
        any = true
      }
      if case .held(let before, let at) = modem.phase, at <= now {
        if let holder = GpsdPortCheck.holder(of: modem.identity.gpsPorts) {
          modem.phase = .held(holder, retryAt: now + Self.setupRetryMicroseconds)
          if holder != before { log(.notice, "\(modem.name): \(holder.words)") }
        } else {
          log(.info, "\(modem.name): gpsd no longer holds its GPS port; taking the GPS")
          modem.phase = .off
          any = true
        }
      }
    }
    return any
  }

  /// GetLocation: the current Location, read as a signalled one would be.
  func getLocation(_ modem: ModemGNSS) {
    guard let bus else { return }
    counters.locations.polls += 1
    let serial = modem.serial
    do {
      try bus.call(
        destination: Self.busName, path: modem.path, interface: Self.locationInterface, member: "GetLocation"
      ) { [weak self] reply in
        guard let self, let now = self.modems[modem.path], now.serial == serial else { return }
        guard reply.errorText == nil else {
          // Before the first fix ModemManager may have nothing yet; the next poll asks again.
          return
        }
        do {
          let (entries, skipped) = try reply.readLocations()
          self.counters.locations.skipped += skipped
          self.take(entries, of: now)
        } catch {
          self.counters.badMessages += 1
        }
      }
    } catch {
      counters.badMessages += 1
    }
  }

  /// Arms the tick while a running modem does not signal its location (GetLocation each
  /// second) or a failed Setup waits for its retry.
  func armPoll() {
    let polled = modems.values.contains { modem in
      if case .failed = modem.phase { return wantsGPS }
      if case .held = modem.phase { return wantsGPS }
      return modem.phase == .running && !modem.signals
    }
    guard polled else {
      pollTimer?.disarm()
      return
    }
    if pollTimer == nil {
      pollTimer = try? loop.timer(clock: .monotonic, accuracyMicroseconds: 50_000) { [weak self] in
        self?.pollFired()
      }
    }
    pollTimer?.arm(atMicroseconds: loop.monotonicMicroseconds + Self.pollMicroseconds)
  }

  private func pollFired() {
    for modem in sortedModems where modem.phase == .running && !modem.signals { getLocation(modem) }
    if retryDue() {
      reconcile()
      report()
    } else {
      armPoll()
    }
  }

  // MARK: Status

  public var snapshot: SourceSnapshot {
    let state: SourceState
    var problem: String? = nil
    switch phase {
    case .off, .lookingForManager, .readingObjects: state = .starting
    case .disconnected(let why, let at):
      state = .reconnecting(retryAt: at)
      problem = why
    case .noManager:
      state = .starting
      problem =
        "ModemManager (\(Self.busName)) is not on the system bus; waiting for it (is ModemManager.service running?)"
    case .ready:
      let all = sortedModems
      if !active {
        state = .idle
      } else if all.contains(where: { $0.phase == .running }) {
        state = .connected
      } else if !all.contains(where: \.hasGPS) && all.contains(where: { $0.cells.tower != nil }) {
        // Modems without GNSS whose cell goes to the network lookups: that is their use.
        state = .connected
      } else {
        state = .starting
      }
      problem = Self.problem(all, none: wantedModem, cells: wantsCells)
    }
    let now = loop.now
    let held = sortedModems.lazy.compactMap { m -> SourceFault? in
      guard case .held(let holder, _) = m.phase else { return nil }
      return SourceFault(kind: .gpsdHoldsPort, reason: "\(m.name): \(holder.words)", since: now)
    }.first
    let fault = held ?? sortedModems.lazy.compactMap { $0.phase == .running ? $0.live.fault : nil }.first
    return SourceSnapshot(
      id: id, uri: uri, state: state, counters: statusCounters, lastError: problem, trust: .system,
      fault: fault)
  }

  /// What status says is wrong: a failed Setup first, then no modem, then no GNSS.
  static func problem(_ all: [ModemGNSS], none: String, cells: Bool = false) -> String? {
    for modem in all {
      if case .held(let holder, _) = modem.phase { return "\(modem.name): \(holder.words)" }
      if case .failed(let why, _) = modem.phase { return "\(modem.name): Setup failed: \(why)" }
    }
    for modem in all {
      if case .failed(let why, _) = modem.progress.assistance {
        return "\(modem.name): no GNSS assistance: \(why); the GPS started without it"
      }
    }
    guard let first = all.first else { return "ModemManager has \(none); waiting for one" }
    if !all.contains(where: \.hasGPS) {
      if cells, all.contains(where: { $0.cells.tower != nil }) { return nil }
      if cells, let c = all.first(where: \.hasCells) {
        return "\(c.name) has no GPS NMEA location source and no serving cell to use now"
      }
      return "\(first.name) has no GPS NMEA location source; not used"
    }
    return nil
  }

  private var statusCounters: [Counter] {
    var totals = counters.retired
    for modem in modems.values { totals.add(modem.live) }
    let all = modems.values
    let c = counters
    return totals.decoding.sourceCounters + [
      Counter("silences", totals.silences),
      Counter("modems", all.count), Counter("gpsModems", all.filter(\.hasGPS).count),
      Counter("gpsRunning", all.filter { $0.phase == .running }.count),
      Counter("modemsWithoutGPS", all.filter { !$0.hasGPS }.count), Counter("otherModems", c.otherModems),
      Counter("modemsAppeared", c.modemsAppeared), Counter("modemsVanished", c.modemsVanished),
      Counter("setupCalls", c.setup.calls), Counter("setupErrors", c.setup.errors),
      Counter("refreshRateErrors", c.setup.refreshRateErrors), Counter("gpsdHeld", c.setup.gpsdHeld),
      Counter("assistanceDownloads", c.setup.assistance.downloads),
      Counter("assistanceGiven", c.setup.assistance.given),
      Counter("assistanceErrors", c.setup.assistance.errors),
      Counter("traces", c.locations.traces), Counter("repeatedTraces", c.locations.repeatedTraces),
      Counter("locationPolls", c.locations.polls), Counter("skippedLocations", c.locations.skipped),
      Counter("cellsRead", c.cells.read), Counter("badCells", c.cells.bad),
      Counter("badMessages", c.badMessages), Counter("managerAppeared", c.managerAppeared),
      Counter("managerVanished", c.managerVanished), Counter("busConnections", c.busConnections),
    ]
  }
}
