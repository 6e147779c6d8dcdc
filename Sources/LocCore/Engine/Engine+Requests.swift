/// Requests: the sessions machine decides whether one is allowed, then it goes to the
/// machine it concerns.
extension Engine {
  mutating func handleRequest(
    _ request: Request, ref: RequestRef, at now: Instant, into effects: inout [Effect]
  ) {
    let peer: Peer
    switch sessions.admit(request, from: ref.session) {
    case .unknownSession:
      // Its hello was refused (an app's claim the kernel contradicts, too many apps): it may
      // not go on, and is told so instead of waiting for an answer that never comes.
      let error = RequestError(.handshakeRequired, "this connection's hello was refused; connect again")
      effects.append(.reply(ref.session, ref.id, .failure(error)))
      return
    case .denied(let error):
      effects.append(.reply(ref.session, ref.id, .failure(error)))
      return
    case .allowed(let allowed): peer = allowed
    }
    func reply(_ response: Response) { effects.append(.reply(ref.session, ref.id, .success(response))) }
    let isApp = sessions.isApp(ref.session)
    switch request {
    case .subscribe where isApp, .unsubscribe where isApp:
      handleAppRequest(request, ref: ref, peer: peer, at: now, into: &effects)
    case .requestAuthorization, .requestTemporaryFullAccuracy, .setActivity, .startUpdates, .stopUpdates,
      .registerAgent, .answerPrompt, .listApps, .changeApp:
      handleAppRequest(request, ref: ref, peer: peer, at: now, into: &effects)
    case .status:
      reply(.status(answerStatus(at: now)))
    case .sky:
      askSky(ref, at: now, into: &effects)
    case .subscribe(let kinds):
      reply(.subscriptions(sessions.subscribe(ref.session, to: kinds)))
      if kinds.contains(.sky) { settleSkyDemand(at: now, into: &effects) }
      if kinds.contains(.location) {
        // A new subscriber gets the current answer at once instead of waiting for a fix.
        effects.append(.push([ref.session], .location(resolve(at: now), fix: positions.latest?.fix), at: now))
      }
    case .unsubscribe(let kinds):
      reply(.subscriptions(sessions.unsubscribe(ref.session, from: kinds)))
      if kinds.contains(.sky) { settleSkyDemand(at: now, into: &effects) }
    case .setLocation(let coordinate, let name, let accuracy):
      if let accuracy, let off = PositionBounds.accuracy(accuracy.value, of: .manual).outOfBounds {
        // A statement below what any place can be known to (0, 1e-300): refused, as the static
        // file's, and shown in status; the wire already holds it to 0…20,000 km.
        noteOutOfBounds([off], from: "manual (uid \(peer.uid))", .manual, at: now, into: &effects)
        let error = RequestError(
          .invalidParams,
          "\"accuracy\" must be at least \(OutOfBounds.number(PositionBounds.statedAccuracyFloor.value)) m "
            + "(no machine's place is known to less than a centimetre), not \(OutOfBounds.number(accuracy.value))"
        )
        effects.append(.reply(ref.session, ref.id, .failure(error)))
        return
      }
      let manual = Position(
        coordinate: coordinate, accuracy: accuracy, time: now, receivedAt: now, source: "manual", name: name,
        origin: .manual)
      setManual(manual, ref: ref, by: peer, at: now, into: &effects)
    case .clearLocation:
      setManual(nil, ref: ref, by: peer, at: now, into: &effects)
    case .reload:
      effects.append(.reloadConfiguration(requestedBy: ref))
    case .listTimers, .showTimer, .addTimer, .removeTimer:
      handleTimerRequest(request, ref: ref, peer: peer, at: now, into: &effects)
    case .locate(let timeout, let accuracy):
      if isApp, case .refuse(let a, let inUse)? = appVerdict(ref.session, .location, at: now) {
        let key = appDelivery.key(of: ref.session)!
        effects.append(
          .reply(ref.session, ref.id, .failure(AppAuthorizationMachine.refusal(key, a, inUse: inUse))))
        return
      }
      locate(ref, timeout: timeout, accuracy: accuracy, at: now, into: &effects)
    case .refresh:
      effects.append(.log(.info, "fresh fix requested by uid \(peer.uid)"))
      let transitions = acquisition.trigger(.manual, at: now)
      announce(transitions, into: &effects)
      reply(.acquisition(acquisition.report))
    case .rangeBeacons, .stopRangingBeacons, .monitorBeacons, .stopMonitoringBeacons:
      handleBeaconRequest(request, ref: ref, at: now, into: &effects)
    case .wait(let target):
      startWait(target, ref: ref, at: now, into: &effects)
    case .registerRegion, .unregisterRegion, .regionState, .monitorVisits, .setLaunchUnit:
      handleRegionRequest(request, ref: ref, at: now, into: &effects)
    case .startHeading, .stopHeading:
      handleHeadingRequest(request, ref: ref, at: now, into: &effects)
    case .lightDark, .setMode:
      handleLightDarkRequest(request, ref: ref, peer: peer, at: now, into: &effects)
    }
  }

  /// `set-location` (a position) and `clear-location` (nil): stored, answered, re-planned.
  private mutating func setManual(
    _ manual: Position?, ref: RequestRef, by peer: Peer, at now: Instant, into effects: inout [Effect]
  ) {
    let previous = positions.manualLocation
    positions.setManual(manual)
    effects.append(.persist(positions.storedState))
    let what = manual == nil ? (previous == nil ? "cleared (there was none)" : "cleared") : "set"
    effects.append(.log(.notice, "manual location \(what) by uid \(peer.uid)"))
    effects.append(.reply(ref.session, ref.id, .success(.manualLocation(manual, previous: previous))))
    regenerate(.manualLocation, at: now, into: &effects)
  }
}
