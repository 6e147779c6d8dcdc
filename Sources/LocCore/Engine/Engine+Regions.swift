/// Regions and visits in the engine: the app requests, fixes and dwell ticks through the
/// regions machine, its events handed to apps through the apps gate (Engine+AppGate), the hint as
/// an acquisition trigger, and the regions stored with the apps' decisions.
extension Engine {
  /// `register-region`, `unregister-region`, `region-state`, `monitor-visits`,
  /// `set-launch-unit` of an app session (admission already decided: app sessions only).
  mutating func handleRegionRequest(
    _ request: Request, ref: RequestRef, at now: Instant, into effects: inout [Effect]
  ) {
    guard let key = appDelivery.key(of: ref.session) else {
      let error = RequestError(.internalError, "the app session is not known")
      return effects.append(.reply(ref.session, ref.id, .failure(error)))
    }
    var outputs: [AppsOutput] = []
    let result: Result<Response, RequestError>
    switch request {
    case .registerRegion(let region):
      if let refusal = undecidedRefusal(key, "register regions") {
        result = .failure(refusal)
      } else if let refusal = preciseRefusal(key, "region monitoring") {
        result = .failure(refusal)
      } else if let error = regions.register(region, for: key, room: storeRoom(for: key.uid), at: now) {
        result = .failure(Engine.requestError(error))
      } else {
        listenApp(ref.session, to: .region, at: now, into: &outputs)
        setAppRegistered(.region, true, for: key, at: now, into: &outputs)
        appAuthorization.regionsChanged()
        result = .success(.regions([RegionMonitor.Monitored(region: region, state: .unknown)]))
      }
    case .unregisterRegion(let id):
      if let error = regions.unregister(id, for: key, at: now) {
        result = .failure(Engine.requestError(error))
      } else {
        if regions.count(for: key) == 0 {
          setAppRegistered(.region, false, for: key, at: now, into: &outputs)
        }
        appAuthorization.regionsChanged()
        result = .success(.done)
      }
    case .regionState(let id):
      var list = regions.regions(of: key)
      if let id { list = list.filter { $0.region.id == id } }
      if let id, list.isEmpty {
        result = .failure(Engine.requestError(.notFound(id)))
      } else {
        result = .success(.regions(regionStates(list, for: ref.session, at: now)))
      }
    case .monitorVisits(let on):
      if on, let refusal = preciseRefusal(key, "visit monitoring") {
        result = .failure(refusal)
      } else {
        if on {
          listenApp(ref.session, to: .visit, at: now, into: &outputs)
          setAppRegistered(.visit, true, for: key, at: now, into: &outputs)
        } else {
          _ = unsubscribeApp(ref.session, from: [.visit], at: now, into: &outputs)
        }
        syncVisits(key)
        result = .success(.done)
      }
    case .setLaunchUnit(let unit):
      result = setAppLaunchUnit(unit, for: ref.session).map { _ in .done }
    default:
      result = .failure(RequestError(.internalError, "not a regions request"))
    }
    effects.append(.reply(ref.session, ref.id, result))
    carryOut(outputs, at: now, into: &effects)
  }

  /// The states `session` may see: a region's state says where the device is, so, like a
  /// region event, it exists for the app only while the gate would deliver it a region
  /// event at full accuracy now (authorized, in use or allowed in the background, precise).
  /// Otherwise every state reads `unknown` and the withholding is counted.
  mutating func regionStates(
    _ list: [RegionMonitor.Monitored], for session: SessionID, at now: Instant
  ) -> [RegionMonitor.Monitored] {
    guard !list.isEmpty, !appMayHavePrecisely(.region, session: session, at: now) else { return list }
    regions.count(\.statesWithheld)
    return list.map { RegionMonitor.Monitored(region: $0.region, state: .unknown) }
  }

  /// Visits are monitored for `key` while it is registered for them (`monitor-visits`, or
  /// a subscription to `visit`).
  mutating func syncVisits(_ key: AppKey) {
    regions.monitorVisits(appAuthorization.registrations(key).contains(.visit), for: key)
  }

  /// The app was reset (its record forgotten): its regions and visit monitoring go too.
  mutating func forgetRegions(of key: AppKey, at now: Instant, into effects: inout [Effect]) {
    let n = regions.unregisterAll(for: key, at: now)
    regions.monitorVisits(false, for: key)
    if n > 0 { appAuthorization.regionsChanged() }
    if n > 0 { effects.append(.log(.info, "\(key): reset; its \(n) region(s) no longer monitored")) }
  }

  /// The refusal for an app that may not have the location at all (not determined,
  /// denied, restricted; counted): a region is kept in apps.json and evaluated on every
  /// fix, so an app gets it only once its user allowed the location (issue 28, finding 4).
  mutating func undecidedRefusal(_ key: AppKey, _ what: String) -> RequestError? {
    let a = appAuthorization.authorization(key)
    guard !a.allowsInUse else { return nil }
    regions.count(\.refusedUnauthorized)
    var error = AppAuthorizationMachine.refusal(key, a, inUse: false)
    error.message += " (needed to \(what))"
    return error
  }

  /// The refusal for an app with reduced accuracy (counted): monitoring needs precise
  /// positions, as in Core Location.
  mutating func preciseRefusal(_ key: AppKey, _ what: String) -> RequestError? {
    guard appAuthorization.authorization(key).accuracy == .reduced else { return nil }
    regions.count(\.refusedReduced)
    return RequestError(
      .preciseLocationRequired, "\(key.app) has reduced accuracy; \(what) needs precise location")
  }

  /// A region error as the protocol answers it.
  static func requestError(_ error: RegionError) -> RequestError {
    switch error {
    case .invalidID, .invalidRadius, .invalidCentre, .invalidDwell:
      return RequestError(.invalidParams, error.description)
    case .duplicateID: return RequestError(.alreadyExists, error.description)
    case .notFound: return RequestError(.notFound, error.description)
    case .tooManyForOwner(let limit):
      return RequestError(.tooManyRegions, error.description + " (MaxRegionsPerApp=\(limit))")
    case .tooManyInTotal(let limit):
      return RequestError(.tooManyRegions, error.description + " (MaxRegions=\(limit))")
    case .tooManyForUser(let limit):
      return RequestError(.tooManyRegions, error.description + " (MaxRegionsPerUser=\(limit))")
    case .storeFull:
      return RequestError(.tooManyRegions, error.description + " (MaxStoreBytesPerUser=)")
    }
  }

  /// The bytes `uid`'s regions may take in the user's apps file, which is never written
  /// larger than MaxStoreBytesPerUser=: the limit less the file's frame and room for the
  /// user's app records (`AppStore.recordBytesBound` each, and one more app).
  func storeRoom(for uid: UInt32) -> Int {
    config.apps.maxStoreBytesPerUser - AppStore.frameBytes
      - (appAuthorization.appCount(forUser: uid) + 1) * AppStore.recordBytesBound
  }

  /// The regions machine's events, handed to apps: a region event to its app through the
  /// gate (delivered, held, queued with the launch unit started, or not delivered and
  /// counted), a visit to every app that may have it like any gated event.
  mutating func deliverRegions(
    _ outputs: [RegionsMachine.Output], at now: Instant, into effects: inout [Effect]
  ) {
    for output in outputs {
      switch output {
      case .region(let key, let notice):
        var handed: [AppsOutput] = []
        let what = "\(key): region \"\(notice.id)\" \(notice.event.rawValue)"
        switch handToApp(.region(notice), to: key, at: now, into: &handed) {
        // Debug: an app makes as many of these as it registers regions, and each names the
        // app's own region id (issue 28).
        case .delivered: effects.append(.log(.debug, what))
        case .waiting: effects.append(.log(.debug, "\(what), waiting for the app"))
        case .refused:
          regions.count(\.notDelivered)
          effects.append(.log(.debug, "\(what), not delivered: the app may not have it now"))
        }
        carryOut(handed, at: now, into: &effects)
      case .visit(let event):
        publish(.visit(event), at: now, into: &effects)
      }
    }
  }

  /// The apps store as the shell writes it (`Effect.persistApps`): every record worth
  /// storing, with its app's regions.
  public var appsStore: AppStore { withRegions(appAuthorization.store()) }

  /// The store as written: every record with its app's regions.
  func withRegions(_ store: AppStore) -> AppStore {
    var s = store
    for i in s.records.indices {
      s.records[i].regions = regions.regions(of: s.records[i].key).map(\.region)
    }
    return s
  }

  /// apps.json was read: its regions are registered again (states unknown until the first
  /// fix), and its apps that monitor visits monitor them again.
  mutating func restoreRegions(at now: Instant, into effects: inout [Effect]) {
    for (key, list) in appAuthorization.takeStoredRegions() {
      for region in list {
        if let error = regions.register(region, for: key, at: now) {
          effects.append(
            .log(.warning, "\(key): stored region \"\(region.id)\" not monitored again: \(error)"))
        }
      }
    }
    for key in appAuthorization.visitRegistrations() { regions.monitorVisits(true, for: key) }
  }

  /// The `regions` timer: dwell deadlines.
  mutating func regionsTimerFired(at now: Instant, into effects: inout [Effect]) {
    let events = regions.handle(.tick, at: now)
    deliverRegions(events, at: now, into: &effects)
  }

  /// After every event: the dwell timer, and the hint as a fix trigger while acquisition is
  /// idle and the periodic refresh would come later (not after a timeout: the retry's
  /// back-off then decides, so a receiver that finds no fix is not kept on).
  mutating func syncRegions(at now: Instant, into effects: inout [Effect]) {
    arm(.regions, at: regions.nextDeadline, into: &effects)
    var due: Instant? = nil
    if !acquisition.isAcquiring, let hint = regions.hint(at: now, refresh: config.acquisition.refreshInterval)
    {
      if !acquisition.lastTimedOut, acquisition.refreshDue.map({ hint.due < $0 }) ?? true { due = hint.due }
    }
    arm(.regionsFix, at: due, into: &effects)
  }

  /// The hint's timer fired: a fix is wanted for regions or visits.
  mutating func regionsFixDue(at now: Instant, into effects: inout [Effect]) {
    guard !acquisition.isAcquiring,
      let hint = regions.hint(at: now, refresh: config.acquisition.refreshInterval)
    else { return }
    effects.append(.log(.debug, "acquisition for regions: \(hint.because)"))
    regions.triggered(at: now)
    let transitions = acquisition.trigger(.regions, at: now)
    announce(transitions, into: &effects)
  }
}
