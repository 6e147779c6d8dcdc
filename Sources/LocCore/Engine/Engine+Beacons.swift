/// Beacon monitoring and ranging: requests go to `BeaconSessionMachine`, its notices to the
/// session that asked (an app's through the apps gate, decision 0029), its need for
/// scanning to the shell, its deadline to a timer.
extension Engine {
  mutating func handleBeaconRequest(
    _ request: Request, ref: RequestRef, at now: Instant, into effects: inout [Effect]
  ) {
    func key(_ kind: BeaconSessionMachine.Kind, _ c: BeaconConstraint) -> BeaconSessionMachine.Key {
      BeaconSessionMachine.Key(session: ref.session, kind: kind, constraint: c)
    }
    switch request {
    case .rangeBeacons(let c):
      if let refusal = beaconRefusal(ref.session, "beacon ranging", at: now, into: &effects) {
        return effects.append(.reply(ref.session, ref.id, .failure(refusal)))
      }
      let (result, deliveries) = beacons.start(key(.range, c), exitAfter: nil, at: now)
      effects.append(.reply(ref.session, ref.id, result))
      deliver(deliveries, at: now, into: &effects)
    case .monitorBeacons(let c, let exitAfter):
      if let refusal = beaconRefusal(ref.session, "beacon monitoring", at: now, into: &effects) {
        return effects.append(.reply(ref.session, ref.id, .failure(refusal)))
      }
      let (result, deliveries) = beacons.start(key(.monitor, c), exitAfter: exitAfter, at: now)
      effects.append(.reply(ref.session, ref.id, result))
      deliver(deliveries, at: now, into: &effects)
    case .stopRangingBeacons(let c), .stopMonitoringBeacons(let c):
      let kind: BeaconSessionMachine.Kind = if case .stopRangingBeacons = request { .range } else { .monitor }
      guard let deliveries = beacons.stop(key(kind, c), at: now) else {
        let what = kind == .range ? "ranging" : "monitoring"
        effects.append(.reply(ref.session, ref.id, .failure(RequestError(.notFound, "not \(what) \(c)"))))
        return
      }
      effects.append(.reply(ref.session, ref.id, .success(.done)))
      deliver(deliveries, at: now, into: &effects)
    default:
      break
    }
  }

  /// Why an app session may not start `what` now (counted and logged), if it may not; nil
  /// for a plain session (admitted by its access already).
  private mutating func beaconRefusal(
    _ id: SessionID, _ what: String, at now: Instant, into effects: inout [Effect]
  ) -> RequestError? {
    guard sessions.isApp(id), let refusal = appBeaconRefusal(id, what, at: now) else { return nil }
    beacons.countRefusedApp()
    let key = appDelivery.key(of: id).map { "\($0)" } ?? "\(id)"
    effects.append(.log(.info, "\(key): \(what) refused: \(refusal.code.rawValue)"))
    return refusal
  }

  /// Turns the beacon machine's deliveries into effects and keeps its timer armed. A notice
  /// for an app session goes through the apps gate: pushed when the app may have it now,
  /// else counted (`notDeliveredToApps`).
  mutating func deliver(
    _ deliveries: [BeaconSessionMachine.Delivery], at now: Instant, into effects: inout [Effect]
  ) {
    var handed: [AppsOutput] = []
    for delivery in deliveries {
      switch delivery {
      case .notice(let session, let notice):
        if sessions.isApp(session), handBeaconToApp(notice, to: session, at: now, into: &handed) != .delivered
        {
          beacons.countNotDeliveredToApp()
          continue
        }
        effects.append(.push([session], notice, at: now))
      case .scanning(let active):
        effects.append(.log(.info, active ? "beacon scanning needed" : "beacon scanning no longer needed"))
        effects.append(.beaconScanning(active: active))
      }
    }
    arm(.beacons, at: beacons.nextDeadline, into: &effects)
    if !handed.isEmpty { carryOut(handed, at: now, into: &effects) }
  }

  /// After the apps machines moved: the beacon requests of app sessions whose app may no
  /// longer have the location (denied, restricted, reset, Allow Once ended, reduced) end,
  /// so that they keep no scanning going; the app hears of its authorization as usual.
  mutating func dropBeaconsNoLongerAllowed(at now: Instant, into effects: inout [Effect]) {
    guard !beacons.isEmpty else { return }
    for id in beacons.sessionsWithRequests where sessions.isApp(id) && !appMayKeepBeacons(id) {
      // A session that is closing (no longer in the delivery machine) ends its requests itself.
      guard let key = appDelivery.key(of: id) else { continue }
      let n = beacons.requests(of: id).count
      effects.append(.log(.info, "\(key): its authorization changed; its \(n) beacon request(s) ended"))
      deliver(beacons.handle(.closed(id), at: now), at: now, into: &effects)
    }
  }
}
