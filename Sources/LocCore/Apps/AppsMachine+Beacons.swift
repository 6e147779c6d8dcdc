/// Beacon events for an app session go through the same gate as every app-facing event
/// (docs/decisions/0029-beacons-for-apps.md): a ranging list as a `location` update (in
/// use, or always), a beacon region's change as a `region` event (in use; out of use only
/// with always).
extension AppsMachine {
  /// The kind whose delivery rules a beacon notice follows; nil for any other notice.
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
  mutating func handBeacon(
    _ notice: Notice, to id: SessionID, at now: Instant, into outputs: inout [AppsOutput]
  ) -> Handed {
    guard let s = sessions[id], let kind = Self.beaconGateKind(notice) else { return .refused }
    switch gate(s, kind, at: now) {
    case .deliver:
      // A ranging list follows the app's authorization, not the accuracy its updates asked
      // for; an app with reduced accuracy has no beacon requests (`precise-location-required`).
      return authorization(s.key).accuracy == .full ? .delivered : .refused
    case .hold:
      askUpgrade(s.key, at: now, into: &outputs)
      return .refused
    case .refuse:
      return .refused
    }
  }

  /// Why app session `id` may not start ranging or monitoring beacons now, if it may not:
  /// its authorization must allow the location when in use, at full accuracy (as for
  /// regions). Being in use is not needed to start: delivery is gated.
  func beaconRefusal(_ id: SessionID, _ what: String, at now: Instant) -> RequestError? {
    guard let s = sessions[id] else { return RequestError(.internalError, "the app session is not known") }
    let a = authorization(s.key)
    guard a.allowsInUse else {
      return AppsMachine.refusal(s.key, a, inUse: s.inUse(at: now, grace: settings.inUseGrace))
    }
    guard a.accuracy == .full else {
      return RequestError(
        .preciseLocationRequired, "\(s.key.app) has reduced accuracy; \(what) needs precise location")
    }
    return nil
  }

  /// Whether app session `id` may keep its beacon requests: false once its app's
  /// authorization no longer allows the location (denied, restricted, reset, once ended)
  /// or is reduced. (A session the machine does not know is closing: it ends its own.)
  func mayKeepBeacons(_ id: SessionID) -> Bool {
    guard let s = sessions[id] else { return true }
    let a = authorization(s.key)
    return a.allowsInUse && a.accuracy == .full
  }
}
