import LocCore

/// The compass's properties, its claim and its readings, and what status shows.
extension CompassSource {
  /// GetAll of the compass interface: HasCompass and CompassHeading.
  func readProperties() {
    guard let bus else { return }
    let epoch = presence.epoch
    do {
      try bus.call(
        destination: Self.busName, path: Self.path, interface: "org.freedesktop.DBus.Properties",
        member: "GetAll",
        arguments: [.string(Self.interface)]
      ) { [weak self] reply in
        guard let self, self.presence.epoch == epoch else { return }
        if let problem = reply.errorText {
          // Refused by the bus policy, or an iio-sensor-proxy without a compass interface.
          self.counters.readErrors += 1
          let first: Bool
          if case .unreadable = self.phase { first = false } else { first = true }
          self.log(first ? .warning : .debug, "cannot read the compass's properties: \(problem)")
          self.phase = .unreadable(problem)
          self.armClaimRetry(at: self.loop.monotonicMicroseconds + Self.claimRetryMicroseconds)
          self.report()
          return
        }
        do {
          self.took(try reply.readProperties(), initially: true)
        } catch {
          self.counters.badMessages += 1
        }
        self.report()
      }
    } catch {
      lost("cannot call iio-sensor-proxy: \(error)")
    }
  }

  /// PropertiesChanged of the compass, from iio-sensor-proxy's present owner only.
  func propertiesChanged(_ m: BusMessage) {
    // While the properties could not be read too: a signal from the object says it is there
    // now (the stand-in of the tests exports it just after taking the name).
    let following: Bool
    switch phase {
    case .ready, .noCompass, .unreadable: following = true
    default: following = false
    }
    guard let owner = presence.owner, m.isFrom(owner), following else { return }
    do {
      guard try m.readText() == Self.interface else { return }
      took(try m.readProperties(), initially: false)
    } catch {
      counters.badMessages += 1
    }
  }

  /// HasCompass and CompassHeading, read or changed.
  private func took(_ properties: [String: BusMessage.PropertyValue], initially: Bool) {
    if let has = properties["HasCompass"] {
      guard case .bool(let present) = has else {
        counters.badMessages += 1
        return
      }
      let was = phase
      phase = present ? .ready : .noCompass
      if phase != was {
        log(
          present ? .info : .notice,
          present ? "a compass is there" : "iio-sensor-proxy has no compass; waiting for one")
        reconcile()
        report()
      }
    }
    guard let value = properties["CompassHeading"] else { return }
    guard case .double(let degrees) = value else {
      counters.badMessages += 1
      return
    }
    // The value GetAll finds before the claim is whatever was last measured: not news.
    guard claim.held else {
      if !initially { counters.unclaimedHeadings += 1 }
      return
    }
    guard HeadingReading.isHeading(degrees) else {
      counters.unknownHeadings += 1
      return
    }
    counters.headings += 1
    sink.heading(degrees, id)
  }

  /// ClaimCompass while heading is wanted and a compass is there, ReleaseCompass once it is
  /// not wanted; a failed claim is tried again after `claimRetryMicroseconds`.
  func reconcile() {
    guard bus != nil, !claim.pending else { return }
    if case .unreadable = phase {
      // Read again when the retry is due (armed by the failure).
      if claimRetryDue { readProperties() }
      return
    }
    if claim.wanted, !claim.held, phase == .ready {
      if let failure = claim.failure, failure.retryAt > loop.monotonicMicroseconds {
        armClaimRetry(at: failure.retryAt)
        return
      }
      claimCompass()
    } else if !claim.wanted, claim.held {
      release()
    }
  }

  private func claimCompass() {
    guard let bus else { return }
    let epoch = presence.epoch
    claim.pending = true
    do {
      try bus.call(
        destination: Self.busName, path: Self.path, interface: Self.interface, member: "ClaimCompass"
      ) {
        [weak self] reply in
        guard let self, self.presence.epoch == epoch else { return }
        self.claim.pending = false
        if let problem = reply.errorText {
          self.counters.claimErrors += 1
          let first = self.claim.failure == nil
          self.claim.failure = (problem, self.loop.monotonicMicroseconds + Self.claimRetryMicroseconds)
          self.log(first ? .warning : .debug, "ClaimCompass failed: \(problem); trying again in 10 s")
        } else {
          self.claim.held = true
          self.claim.failure = nil
          self.counters.claims += 1
          self.log(.info, "compass claimed")
          // The heading now, which iio-sensor-proxy signals only when it changes.
          if self.claim.wanted { self.readProperties() }
        }
        self.reconcile()
        self.report()
      }
    } catch {
      claim.pending = false
      lost("cannot call iio-sensor-proxy: \(error)")
    }
  }

  /// ReleaseCompass; the claim counts as given back at once (a reply that says otherwise is
  /// counted and logged: iio-sensor-proxy drops the claim when locd leaves the bus anyway).
  func release() {
    guard let bus else { return }
    claim.held = false
    counters.releases += 1
    log(.info, "compass released")
    do {
      try bus.call(
        destination: Self.busName, path: Self.path, interface: Self.interface, member: "ReleaseCompass"
      ) {
        [weak self] reply in
        guard let self, let problem = reply.errorText else { return }
        self.counters.claimErrors += 1
        self.log(.debug, "ReleaseCompass failed: \(problem)")
      }
    } catch {
      log(.debug, "cannot send ReleaseCompass: \(error)")
    }
  }

  /// Whether the retry timer fired since it was last armed.
  private var claimRetryDue: Bool { retryAt.map { $0 <= loop.monotonicMicroseconds } ?? false }
  private var retryAt: UInt64? { claim.retryAt }

  func armClaimRetry(at usec: UInt64) {
    claim.retryAt = usec
    if claimRetry == nil {
      claimRetry = try? loop.timer(clock: .monotonic, accuracyMicroseconds: 100_000) { [weak self] in
        guard let self else { return }
        if let failure = self.claim.failure { self.claim.failure = (failure.reason, 0) }
        self.reconcile()
        self.report()
      }
    }
    claimRetry?.arm(atMicroseconds: usec)
  }

  public var snapshot: SourceSnapshot {
    let state: SourceState
    var problem: String? = nil
    switch phase {
    case .off, .lookingForProxy, .reading: state = .starting
    case .disconnected(let why, let at):
      state = .reconnecting(retryAt: at)
      problem = why
    case .noProxy:
      state = .starting
      problem = "iio-sensor-proxy (\(Self.busName)) is not on the system bus; waiting for it"
    case .noCompass:
      state = .starting
      problem = "iio-sensor-proxy has no compass (HasCompass is false); waiting for one"
    case .unreadable(let why):
      state = .starting
      problem =
        "cannot read the compass's properties (is net.hadess.SensorProxy.locd.conf installed?): \(why)"
    case .ready:
      // Idle while nobody wants heading: the sensor sleeps.
      state = claim.held ? .connected : (claim.wanted ? .starting : .idle)
      problem = claim.failure.map { "ClaimCompass failed: \($0.reason)" }
    }
    let c = counters
    return SourceSnapshot(
      id: id, uri: uri, state: state,
      counters: [
        Counter("proxy", presence.owner == nil ? 0 : 1), Counter("compass", phase == .ready ? 1 : 0),
        Counter("wanted", claim.wanted ? 1 : 0), Counter("claimed", claim.held ? 1 : 0),
        Counter("claims", c.claims), Counter("releases", c.releases), Counter("claimErrors", c.claimErrors),
        Counter("headings", c.headings), Counter("unknownHeadings", c.unknownHeadings),
        Counter("unclaimedHeadings", c.unclaimedHeadings), Counter("readErrors", c.readErrors),
        Counter("badMessages", c.badMessages),
        Counter("proxyAppeared", c.proxyAppeared), Counter("proxyVanished", c.proxyVanished),
        Counter("busConnections", c.busConnections),
      ], lastError: problem, givesFixes: false)
  }
}
