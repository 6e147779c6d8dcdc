/// The authorization machine's rules that need none of its state: how a record is stored,
/// what a decision binds to, which launch units are an app's own, the refusals, its counters.
extension AppAuthorizationMachine {
  /// A record as it is stored: a once-grant is not (the app is not determined after a
  /// restart), nor how it was last seen.
  static func stored(_ r: AppRecord) -> AppRecord {
    var copy = r
    copy.seenAs = nil
    copy.temporary = nil
    if copy.once {
      copy.once = false
      copy.status = .notDetermined
      copy.accuracy = .full
      copy.decidedBy = nil
      copy.decidedAt = nil
    }
    return copy
  }

  /// What a decision made for `identity` binds to: how the kernel knew the app, or nothing
  /// (the id alone) when it did not, or nobody was seen.
  static func binding(_ identity: AppIdentity?) -> AppIdentity.Verification? {
    guard let identity, identity.isVerified else { return nil }
    return identity.verification
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

  /// The error for a request the gate refused.
  static func refusal(_ key: AppKey, _ a: AppAuthorization, inUse: Bool) -> RequestError {
    switch a.status {
    case .notDetermined:
      return RequestError(.notAuthorized, "\(key.app) is not authorized yet; ask with request-authorization")
    case .restricted:
      return RequestError(.notAuthorized, "\(key.app) may not use the location (restricted by policy)")
    case .denied: return RequestError(.notAuthorized, "\(key.app) was denied the location")
    case .whenInUse, .always:
      return RequestError(
        .notAuthorized, "\(key.app) is authorized when in use and is not in use (say set-activity foreground)"
      )
    }
  }

  /// The machine's counters (status names them).
  struct Counters: Sendable, Hashable {
    /// Hellos refused because the claim contradicted the kernel.
    var identityRefused = 0
    /// Hellos and grants refused because of `MaxAppsPerUser=`.
    var tooManyApps = 0
    /// Problems reading apps.json (the file was set aside).
    var storeProblems = 0
    /// `set-launch-unit` refused: an unverified app, or a unit that is not the app's own.
    var launchUnitRefused = 0

    var all: [Counter] {
      [
        Counter("identityRefused", identityRefused), Counter("tooManyApps", tooManyApps),
        Counter("storeProblems", storeProblems), Counter("launchUnitRefused", launchUnitRefused),
      ]
    }
  }
}
