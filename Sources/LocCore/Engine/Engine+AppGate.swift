/// The apps gate in the engine: every app-facing event goes through one gate (authorization
/// × in use × accuracy). The delivery machine keeps the gate's verdict per session and kind
/// in its index; the engine hands it the authorization of the app from the authorization
/// machine whenever something changes one (decisions, activity, grace windows, updates,
/// subscriptions), so a fix costs nothing for apps that may not have it.
extension Engine {
  /// The gate's verdict for app session `id` now (nil: not an app session).
  func appVerdict(_ id: SessionID, _ kind: EventKind, at now: Instant) -> AppDeliveryMachine.Verdict? {
    guard let key = appDelivery.key(of: id) else { return nil }
    return appDelivery.verdict(id, kind, appAuthorization.authorization(key), at: now)
  }

  /// What app session `id` is told about its authorization now.
  func appReport(_ id: SessionID, at now: Instant) -> AppStatusReport? {
    guard let identity = appDelivery.identity(of: id) else { return nil }
    let key = identity.key
    return AppStatusReport(
      identity: identity, authorization: appAuthorization.authorization(key), prompt: appPrompts.state(key),
      inUse: appDelivery.inUse(id, at: now), decidedBy: appAuthorization.decider(key))
  }

  /// The earliest instant something of the apps changes by itself: a grace window ends, a
  /// prompt times out, a waiting event grows too old.
  var appsDeadline: Instant? {
    [appDelivery.nextDeadline(), appPrompts.nextDeadline()].compactMap { $0 }.min()
  }

  /// Recomputes everything about `key` after something changed: its sessions' entries, a
  /// once-grant that ends because the app is no longer in use, whether its events are
  /// queued while it is not connected, its waiting events, and what its sessions are told.
  mutating func reindexApp(_ key: AppKey, at now: Instant, into outputs: inout [AppsOutput]) {
    reindexSessions(of: key, at: now)
    if appAuthorization.record(key)?.temporary != nil, !appDelivery.anyInUse(key, at: now),
      appAuthorization.endTemporary(key) == .granted
    {
      // Core Location's rule: temporary full accuracy lasts until the app is no longer in use.
      outputs.append(.decided(key, appAuthorization.authorization(key), by: "temporary full accuracy ended"))
      reindexSessions(of: key, at: now)
    }
    if appAuthorization.record(key)?.once == true, !appDelivery.anyInUse(key, at: now),
      appAuthorization.endOnce(key)
    {
      outputs.append(.decided(key, .notDetermined, by: "Allow Once ended"))
      reindexSessions(of: key, at: now)
    }
    let absent = appDelivery.sessions(of: key).isEmpty
    let background = appAuthorization.authorization(key).allowsBackground
    let registrations = appAuthorization.registrations(key)
    for kind in EventKind.allCases where kind.needsAlways {
      appDelivery.setAbsent(key, kind, absent && background && registrations.contains(kind))
    }
    if appDelivery.settle(key, appAuthorization.authorization(key), at: now, into: &outputs) {
      forgetAppIfIdle(key)
    }
    tellApp(key, at: now, into: &outputs)
  }

  /// The index entries of `key`'s sessions, again; a session that may have the location
  /// makes now the app's last use.
  private mutating func reindexSessions(of key: AppKey, at now: Instant) {
    let a = appAuthorization.authorization(key)
    for id in appDelivery.sessions(of: key) where appDelivery.reindex(id, a, at: now) {
      appAuthorization.used(key, at: now)
    }
  }

  /// Tells each session of `key` that subscribed to `authorization` what changed for it.
  mutating func tellApp(_ key: AppKey, at now: Instant, into outputs: inout [AppsOutput]) {
    for id in appDelivery.sessions(of: key) {
      guard let report = appReport(id, at: now), appDelivery.noteTold(report, to: id) else { continue }
      if appDelivery.kinds(of: id)?.contains(.authorization) == true {
        outputs.append(.authorization(id, report))
      }
    }
  }

  /// Forgets `key`'s record if there is nothing to keep and nobody connected.
  mutating func forgetAppIfIdle(_ key: AppKey) {
    guard appDelivery.sessions(of: key).isEmpty, !appDelivery.hasWaiting(key),
      appAuthorization.forgetIfUnneeded(key)
    else { return }
    appPrompts.forget(key)
  }

  /// Routes an event of a gated kind among app sessions; it is held for provisional apps not
  /// in use and queued for always apps not connected.
  mutating func routeToApps(_ notice: Notice, at now: Instant, into outputs: inout [AppsOutput])
    -> AppDeliveryMachine.Routing
  {
    let routing = appDelivery.route(notice)
    for key in routing.held { holdForApp(notice, key, at: now, into: &outputs) }
    for key in routing.absent { waitForApp(notice, key, at: now) }
    return routing
  }

  /// Holds an event for a provisional always app not in use, and asks the person to upgrade.
  mutating func holdForApp(_ notice: Notice, _ key: AppKey, at now: Instant, into outputs: inout [AppsOutput])
  {
    waitForApp(notice, key, at: now)
    askUpgrade(key, at: now, into: &outputs)
  }

  /// Keeps an event for `key`, at the accuracy it has.
  mutating func waitForApp(_ notice: Notice, _ key: AppKey, at now: Instant) {
    appDelivery.wait(notice, for: key, accuracy: appAuthorization.authorization(key).accuracy, at: now)
  }

  /// Asks the person to upgrade a provisional always, if that was not asked yet.
  mutating func askUpgrade(_ key: AppKey, at now: Instant, into outputs: inout [AppsOutput]) {
    guard let r = appAuthorization.record(key), r.provisional, !r.upgradeAsked else { return }
    promptApp(.upgrade, key, requested: .always, at: now, into: &outputs)
    tellApp(key, at: now, into: &outputs)
  }

  /// Puts a prompt about `key` in its user's queue (see `AppPromptMachine.prompt`), with
  /// `purpose` (nil: the one the app gave with its request for authorization).
  @discardableResult
  mutating func promptApp(
    _ kind: AppPrompt.Kind, _ key: AppKey, requested: AuthorizationLevel, purpose: String? = nil,
    at now: Instant, into outputs: inout [AppsOutput]
  ) -> PromptState {
    let identity = appDelivery.sessions(of: key).first.flatMap { appDelivery.identity(of: $0) }
    return appPrompts.prompt(
      kind, for: key, as: identity, requested: requested,
      purpose: purpose ?? appAuthorization.record(key)?.purpose,
      maxAccuracy: appAuthorization.maxAccuracy(key), at: now, into: &outputs)
  }

  /// Hands `notice` (of a gated kind) to app `key`: to its sessions that asked for the kind
  /// and may have it now at full accuracy; else held or queued like a broadcast event; when
  /// a queued event is the first one waiting and no session of the app is connected, its
  /// launch unit is started (`AppsOutput.launch`).
  mutating func handToApp(_ notice: Notice, to key: AppKey, at now: Instant, into outputs: inout [AppsOutput])
    -> AppDeliveryMachine.Handed
  {
    guard let kind = notice.kind, let record = appAuthorization.record(key) else { return .refused }
    let a = appAuthorization.authorization(key)
    let listening = appDelivery.sessions(of: key).filter { appDelivery.kinds(of: $0)?.contains(kind) == true }
    var to: [SessionID] = []
    var held = false
    for id in listening {
      switch appDelivery.verdict(id, kind, a, at: now) {
      case .deliver(.full)?: to.append(id)
      case .deliver(.reduced)?, .refuse?, nil: continue  // regions and visits need precise positions
      case .hold?: held = true
      }
    }
    if !to.isEmpty {
      outputs.append(.deliver(to, [WaitingEvent(notice, at: now)]))
      return .delivered
    }
    let registered = record.registrations.contains(kind)
    if held || (listening.isEmpty && registered && a.provisional && !appDelivery.anyInUse(key, at: now)) {
      holdForApp(notice, key, at: now, into: &outputs)
      return .waiting
    }
    guard registered, a.allowsBackground, a.accuracy == .full, to.isEmpty, listening.isEmpty else {
      return .refused
    }
    let first = !appDelivery.hasWaiting(key)
    waitForApp(notice, key, at: now)
    // The unit's name is checked again (apps.json may come from an older locd): never
    // anything but the app's own service (its launcher, unknown here, as it was accepted).
    if first, appDelivery.sessions(of: key).isEmpty, let unit = appAuthorization.record(key)?.launchUnit,
      AppAuthorizationMachine.isOwnLaunchUnit(unit, of: key.app, launcher: PeerUnit.appName(unit)?.launcher)
    {
      outputs.append(.launch(key, unit: unit))
    }
    return .waiting
  }

  /// Whether session `id` may have an event of `kind` at full accuracy now (the gate's
  /// verdict, for answers that reveal as much as such an event: region states).
  func appMayHavePrecisely(_ kind: EventKind, session id: SessionID, at now: Instant) -> Bool {
    appVerdict(id, kind, at: now) == .deliver(.full)
  }

  // MARK: Beacons (docs/decisions/0029-beacons-for-apps.md)

  /// The kind whose delivery rules a beacon notice follows; nil for any other notice: a
  /// ranging list as a `location` update (in use, or always), a beacon region's change as a
  /// `region` event (in use; out of use only with always).
  static func beaconGateKind(_ notice: Notice) -> EventKind? {
    switch notice {
    case .beaconsRanged: return .location
    case .beaconRegion: return .region
    default: return nil
    }
  }

  /// Hands a beacon notice meant for session `id` (the one that asked for it) through the
  /// gate: `delivered` when the session may have it now at full accuracy, else `refused`.
  /// Nothing waits: a beacon request lives with its session, and the next list or change
  /// tells the app where it stands. A provisional always app not in use is asked the
  /// upgrade, as for any event that needs always (the event itself is not held).
  mutating func handBeaconToApp(
    _ notice: Notice, to id: SessionID, at now: Instant, into outputs: inout [AppsOutput]
  ) -> AppDeliveryMachine.Handed {
    guard let key = appDelivery.key(of: id), let kind = Self.beaconGateKind(notice) else { return .refused }
    let a = appAuthorization.authorization(key)
    switch appDelivery.verdict(id, kind, a, at: now) {
    case .deliver?:
      // A ranging list follows the app's authorization, not the accuracy its updates asked
      // for; an app with reduced accuracy has no beacon requests (`precise-location-required`).
      return a.accuracy == .full ? .delivered : .refused
    case .hold?:
      askUpgrade(key, at: now, into: &outputs)
      return .refused
    case .refuse?, nil:
      return .refused
    }
  }

  /// Why app session `id` may not start ranging or monitoring beacons now, if it may not:
  /// its authorization must allow the location when in use, at full accuracy (as for
  /// regions). Being in use is not needed to start: delivery is gated.
  func appBeaconRefusal(_ id: SessionID, _ what: String, at now: Instant) -> RequestError? {
    guard let key = appDelivery.key(of: id) else {
      return RequestError(.internalError, "the app session is not known")
    }
    let a = appAuthorization.authorization(key)
    guard a.allowsInUse else {
      return AppAuthorizationMachine.refusal(key, a, inUse: appDelivery.inUse(id, at: now))
    }
    guard a.accuracy == .full else {
      return RequestError(
        .preciseLocationRequired, "\(key.app) has reduced accuracy; \(what) needs precise location")
    }
    return nil
  }

  /// Whether app session `id` may keep its beacon requests: false once its app's
  /// authorization no longer allows the location (denied, restricted, reset, once ended)
  /// or is reduced. (A session the machine does not know is closing: it ends its own.)
  func appMayKeepBeacons(_ id: SessionID) -> Bool {
    guard let key = appDelivery.key(of: id) else { return true }
    let a = appAuthorization.authorization(key)
    return a.allowsInUse && a.accuracy == .full
  }
}
