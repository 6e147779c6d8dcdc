/// Beacon monitoring and ranging: requests go to `BeaconSessionMachine`, its notices to the
/// session that asked, its need for scanning to the shell, its deadline to a timer.
extension Engine {
  mutating func handleBeaconRequest(
    _ request: Request, ref: RequestRef, at now: Instant, into effects: inout [Effect]
  ) {
    func key(_ kind: BeaconSessionMachine.Kind, _ c: BeaconConstraint) -> BeaconSessionMachine.Key {
      BeaconSessionMachine.Key(session: ref.session, kind: kind, constraint: c)
    }
    switch request {
    case .rangeBeacons(let c):
      let (result, deliveries) = beacons.start(key(.range, c), exitAfter: nil, at: now)
      effects.append(.reply(ref.session, ref.id, result))
      deliver(deliveries, at: now, into: &effects)
    case .monitorBeacons(let c, let exitAfter):
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

  /// Turns the beacon machine's deliveries into effects and keeps its timer armed.
  mutating func deliver(
    _ deliveries: [BeaconSessionMachine.Delivery], at now: Instant, into effects: inout [Effect]
  ) {
    for delivery in deliveries {
      switch delivery {
      case .notice(let session, let notice): effects.append(.push([session], notice, at: now))
      case .scanning(let active):
        effects.append(.log(.info, active ? "beacon scanning needed" : "beacon scanning no longer needed"))
        effects.append(.beaconScanning(active: active))
      }
    }
    arm(.beacons, at: beacons.nextDeadline, into: &effects)
  }
}
