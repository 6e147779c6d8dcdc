import LocCore

/// Discovery follows need: SetDiscoveryFilter and StartDiscovery while the engine wants
/// scanning, StopDiscovery when it no longer does. One call at a time; after each answer the
/// wish is checked again, so a request that starts and ends meanwhile costs no stray session.
extension BlueZSource {
  /// The filter locd sets before StartDiscovery (org.bluez.Adapter1.SetDiscoveryFilter):
  /// LE only, and every advertisement reported even if its data did not change (BlueZ turns
  /// duplicate filtering on once a filter is set unless DuplicateData says otherwise; ranging
  /// needs every advertisement's RSSI).
  static let discoveryFilter: [(String, BusMessage.Value)] = [
    ("Transport", .string("le")), ("DuplicateData", .bool(true)),
  ]

  /// Starts or stops discovery to match what the engine wants, when BlueZ and the adapter
  /// are there and no call is on its way.
  func reconcileDiscovery() {
    guard let bus, let adapterPath else { return }
    let step = discovery.next(
      ready: phase == .ready, adapter: adapterPath.dropFirst(11), powered: presence.adapterPowered,
      retryPending: discoveryRetry != nil)
    switch step {
    case .wait: return
    case .start: startDiscovery(on: bus, adapterPath)
    case .stop: stopDiscovery(on: bus, adapterPath)
    }
  }

  private func startDiscovery(on bus: BusConnection, _ adapterPath: String) {
    let epoch = self.epoch
    discovery.calling()
    do {
      let message = try BusMessage.methodCall(
        on: bus, destination: Self.busName, path: adapterPath, interface: Self.adapterInterface,
        member: "SetDiscoveryFilter")
      try message.appendProperties(Self.discoveryFilter)
      try bus.call(message) { [weak self] reply in
        guard let self, self.epoch == epoch else { return }
        if let problem = reply.errorText {
          self.discoveryFailed("SetDiscoveryFilter", problem)
          return
        }
        do {
          try bus.call(
            destination: Self.busName, path: adapterPath, interface: Self.adapterInterface,
            member: "StartDiscovery"
          ) { [weak self] reply in
            guard let self, self.epoch == epoch else { return }
            self.started(reply)
          }
        } catch {
          self.discoveryFailed("StartDiscovery", "\(error)")
        }
      }
    } catch {
      discoveryFailed("SetDiscoveryFilter", "\(error)")
    }
  }

  private func started(_ reply: BusMessage) {
    if let problem = reply.errorText {
      discoveryFailed("StartDiscovery", problem)
      return
    }
    discovery.started()
    counters.discoveryStarts += 1
    log(.info, "discovery started (LE, every advertisement)")
    report()
    reconcileDiscovery()
  }

  private func stopDiscovery(on bus: BusConnection, _ adapterPath: String) {
    let epoch = self.epoch
    discovery.calling()
    do {
      try bus.call(
        destination: Self.busName, path: adapterPath, interface: Self.adapterInterface,
        member: "StopDiscovery"
      ) { [weak self] reply in
        guard let self, self.epoch == epoch else { return }
        // Whatever the answer, locd's session is over: BlueZ answers an error only when
        // there was none to stop (org.bluez.Error.Failed "No discovery started").
        self.discovery.stopped()
        self.counters.discoveryStops += 1
        if let problem = reply.errorText {
          self.counters.discoveryErrors += 1
          self.log(.notice, "StopDiscovery: \(problem), ignoring")
        } else {
          self.log(.info, "discovery stopped")
        }
        self.report()
        self.reconcileDiscovery()
      }
    } catch {
      discovery.stopped()
      counters.discoveryErrors += 1
      log(.notice, "cannot send StopDiscovery: \(error), ignoring")
    }
  }

  /// A call to start discovery failed: said in status, tried again a little later.
  private func discoveryFailed(_ call: String, _ problem: String) {
    counters.discoveryErrors += 1
    // A warning when the problem is new; the same one again at debug level.
    let new = discovery.failed("\(call) failed: \(problem); trying again")
    log(
      new ? .warning : .debug,
      "\(call) failed: \(problem); trying again in \(Self.discoveryRetryMicroseconds / 1_000_000) s")
    if discoveryRetry == nil {
      discoveryRetry = try? loop.timer(clock: .monotonic, accuracyMicroseconds: 100_000) { [weak self] in
        guard let self else { return }
        self.discoveryRetry = nil
        self.reconcileDiscovery()
      }
    }
    discoveryRetry?.arm(atMicroseconds: loop.monotonicMicroseconds + Self.discoveryRetryMicroseconds)
    report()
  }
}
