/// Events meant for one app (its regions) through the same gate, holding and queueing as
/// the events every app may get; the app's registrations for monitoring kinds; the unit
/// started when an always app that is not connected has an event waiting.
extension AppsMachine {
  /// What became of an event for one app.
  enum Handed: Sendable, Hashable {
    /// Sent to sessions of the app.
    case delivered
    /// Held (provisional always, not in use: the upgrade is asked) or queued (always, not
    /// connected or not listening).
    case waiting
    /// Not sent: the app may not have it now (or no session of it listens and it may not
    /// have it in the background).
    case refused
  }

  /// Hands `notice` (of a gated kind) to app `key`: to its sessions that asked for the kind
  /// and may have it now at full accuracy; else held or queued by `hold`/`wait` like a
  /// broadcast event; when a queued event is the first one waiting and no session of the
  /// app is connected, its launch unit is started (`AppsOutput.launch`).
  mutating func hand(
    _ notice: Notice, to key: AppKey, at now: Instant, into outputs: inout [AppsOutput]
  ) -> Handed {
    guard let kind = notice.kind, records[key] != nil else { return .refused }
    let listening = sessions(of: key).filter { sessions[$0]?.kinds.contains(kind) == true }
    var to: [SessionID] = []
    var held = false
    for id in listening {
      switch gate(sessions[id]!, kind, at: now) {
      case .deliver(.full): to.append(id)
      case .deliver(.reduced), .refuse: continue  // regions and visits need precise positions
      case .hold: held = true
      }
    }
    if !to.isEmpty {
      outputs.append(.deliver(to, [WaitingEvent(notice, at: now)]))
      return .delivered
    }
    let a = authorization(key)
    let registered = records[key]?.registrations.contains(kind) == true
    if held || (listening.isEmpty && registered && a.provisional && !anyInUse(key, at: now)) {
      hold(notice, for: key, at: now, into: &outputs)
      return .waiting
    }
    guard registered, a.allowsBackground, a.accuracy == .full, to.isEmpty, listening.isEmpty else {
      return .refused
    }
    let first = waiting[key] == nil
    wait(notice, for: key, at: now)
    if first, sessions(of: key).isEmpty, let unit = records[key]?.launchUnit {
      outputs.append(.launch(key, unit: unit))
    }
    return .waiting
  }

  /// Whether session `id` may have an event of `kind` at full accuracy now (the gate's
  /// verdict, for answers that reveal as much as such an event: region states).
  func mayHavePrecisely(_ kind: EventKind, session id: SessionID, at now: Instant) -> Bool {
    guard let s = sessions[id] else { return false }
    return gate(s, kind, at: now) == .deliver(.full)
  }

  /// Marks `key` as registered for `kind` (it has regions, or monitors visits) or not: kept
  /// in apps.json, and events of the kind are queued while it is not connected (always).
  mutating func setRegistered(
    _ kind: EventKind, _ on: Bool, for key: AppKey, at now: Instant,
    into outputs: inout [AppsOutput]
  ) {
    guard let r = records[key], r.registrations.contains(kind) != on else { return }
    if on { records[key]?.registrations.insert(kind) } else { records[key]?.registrations.remove(kind) }
    storeChanged = true
    reindex(key: key, at: now, into: &outputs)
    forgetIfIdle(key)
  }

  /// Subscribes session `id` to `kind` without the checks of `subscribe` (the engine has
  /// made them: a region registered, visits started).
  mutating func listen(_ id: SessionID, to kind: EventKind, at now: Instant, into outputs: inout [AppsOutput])
  {
    guard let key = sessions[id]?.key, sessions[id]?.kinds.contains(kind) == false else { return }
    sessions[id]?.kinds.insert(kind)
    reindex(key: key, at: now, into: &outputs)
  }

  /// `set-launch-unit`: the systemd unit started when the app has an event waiting and is
  /// not connected (nil: none). Only a service named for the app itself by systemd's
  /// convention for apps (`app-[LAUNCHER-]ID[@…].service`), so that an app can start
  /// nothing but itself.
  mutating func setLaunchUnit(_ unit: String?, for id: SessionID) -> Result<AppKey, RequestError> {
    guard let key = sessions[id]?.key, records[key] != nil else {
      return .failure(RequestError(.internalError, "the app session is not known"))
    }
    if let unit {
      guard unit.utf8.count <= 255, unit.hasSuffix(".service"), PeerUnit.appName(unit)?.id == key.app,
        !unit.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "/") })
      else {
        return .failure(
          RequestError(
            .invalidParams,
            "a launch unit must be a service named for the app, such as app-\(key.app).service or app-LAUNCHER-\(key.app)@.service"
          ))
      }
    }
    if records[key]?.launchUnit != unit {
      records[key]?.launchUnit = unit
      storeChanged = true
    }
    return .success(key)
  }
}

extension AppsMachine {
  /// The regions apps.json held, taken out of the records (the regions machine keeps them
  /// from here on; the engine puts them back when it writes the store).
  mutating func takeStoredRegions() -> [(AppKey, [CircularRegion])] {
    var taken: [(AppKey, [CircularRegion])] = []
    for key in records.keys.sorted() where !(records[key]?.regions.isEmpty ?? true) {
      taken.append((key, records[key]!.regions))
      records[key]?.regions = []
    }
    return taken
  }

  /// An app's regions changed: apps.json is written again.
  mutating func regionsChanged() { storeChanged = true }

  /// The apps registered for visits in apps.json.
  var visitRegistrations: [AppKey] {
    records.values.filter { $0.registrations.contains(.visit) }.map(\.key).sorted()
  }
}
