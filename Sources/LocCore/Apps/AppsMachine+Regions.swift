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
    // The unit's name is checked again (apps.json may come from an older locd): never
    // anything but the app's own service (its launcher, unknown here, as it was accepted).
    if first, sessions(of: key).isEmpty, let unit = records[key]?.launchUnit,
      AppsMachine.isOwnLaunchUnit(unit, of: key.app, launcher: PeerUnit.appName(unit)?.launcher)
    {
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
  /// not connected (nil: none). Kept only for an app the kernel vouches for (its Flatpak
  /// scope or its systemd app unit: a claimed id is anyone's word, and locd starts the unit
  /// as root), and only a service that is the app's own by systemd's convention for apps:
  /// `app-ID.service`, or `app-LAUNCHER-ID.service` with the launcher of the unit the app
  /// runs in. No template or instance (`@`): an instance would be a parameter the app picks.
  mutating func setLaunchUnit(_ unit: String?, for id: SessionID) -> Result<AppKey, RequestError> {
    guard let session = sessions[id], records[session.key] != nil else {
      return .failure(RequestError(.internalError, "the app session is not known"))
    }
    let key = session.key
    guard session.identity.isVerified else {
      counters.launchUnitRefused += 1
      return .failure(
        RequestError(
          .notAuthorized,
          "a launch unit is kept only for an app the kernel vouches for (a Flatpak app, or a process in its systemd app unit); this session only says it is \(key.app)"
        ))
    }
    if let unit {
      let launcher = session.identity.unit.flatMap { PeerUnit.appName($0) }?.launcher
      guard AppsMachine.isOwnLaunchUnit(unit, of: key.app, launcher: launcher) else {
        counters.launchUnitRefused += 1
        let example = launcher.map { "app-\($0)-\(key.app).service" } ?? "app-\(key.app).service"
        return .failure(
          RequestError(
            .invalidParams,
            "a launch unit must be the app's own service, app-\(key.app).service or \(example), without an instance"
          ))
      }
    }
    if records[key]?.launchUnit != unit {
      records[key]?.launchUnit = unit
      storeChanged = true
    }
    return .success(key)
  }

  /// Whether `unit` is app `app`'s own service: `app-ID.service`, or with `launcher` (the
  /// launcher of the unit the app was seen in, when it has one) `app-LAUNCHER-ID.service`;
  /// no instance, no template, nothing a unit name may not hold.
  static func isOwnLaunchUnit(_ unit: String, of app: AppID, launcher: String?) -> Bool {
    guard unit.utf8.count <= 255, unit.hasSuffix(".service"), !unit.contains("@"),
      !unit.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "/") }),
      let named = PeerUnit.appName(unit), named.id == app
    else { return false }
    return named.launcher == nil || named.launcher == launcher
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
