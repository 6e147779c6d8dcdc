/// What locd knows about one app of one user: the decision and what it registered. The
/// stored part goes to apps.json; once-grants and anything about sessions do not.
public struct AppRecord: Sendable, Hashable {
  /// Who decided.
  public enum Decider: String, Sendable, Hashable {
    /// The user's agent (`locctl agent`, or another face's agent).
    case agent
    /// `locctl apps grant|deny` (the user for their own apps, or the administrator).
    case user
  }

  /// The app and its user.
  public var key: AppKey
  /// The stored decision: not-determined, denied, when-in-use or always (restricted comes
  /// only from policy and is never stored).
  public var status = AuthorizationStatus.notDetermined
  /// The accuracy granted.
  public var accuracy = AccuracyAuthorization.full
  /// Provisional always (see `AppAuthorization.provisional`).
  public var provisional = false
  /// The person was asked to upgrade to always (and answered): not asked again.
  public var upgradeAsked = false
  /// Who decided, when.
  public var decidedBy: Decider? = nil
  /// When the decision was made.
  public var decidedAt: Instant? = nil
  /// How the app was known when it was decided for, if the kernel vouched for it (a Flatpak
  /// scope, a systemd app unit): the decision is then that app's, and a process that only
  /// claims the id may not use it (its hello is refused). nil: decided for the id alone.
  public var decidedFor: AppIdentity.Verification? = nil
  /// The purpose the app gave last, as it gave it.
  public var purpose: String? = nil
  /// Event kinds the app asked for that it gets while not connected, if always.
  public var registrations: Set<EventKind> = []
  /// The systemd service started when an event waits for the app and it is not connected.
  public var launchUnit: String? = nil
  /// The regions the app monitors, as they are stored (filled in by the engine when it
  /// writes apps.json and read back at start; not kept here otherwise).
  public var regions: [CircularRegion] = []
  /// When locd first saw the app.
  public var firstSeen: Instant
  /// When the app last received a position.
  public var lastUsed: Instant? = nil

  /// Allow Once is in effect (never stored).
  public var once = false
  /// The answer to a request for temporary full accuracy in this use (never stored).
  public var temporary: TemporaryAccuracy? = nil
  /// How it was last seen connected in this run (never stored).
  public var seenAs: AppIdentity? = nil

  /// A record of an app nobody decided for yet.
  public init(key: AppKey, firstSeen: Instant) {
    self.key = key
    self.firstSeen = firstSeen
  }

  /// The decision as the app sees it, before policy.
  public var authorization: AppAuthorization {
    let raised = temporary == .granted && accuracy == .reduced && (status == .whenInUse || status == .always)
    return AppAuthorization(
      status, accuracy: raised ? .full : accuracy, provisional: provisional, once: once,
      temporaryFullAccuracy: raised)
  }

  /// Whether there is anything to store (a decision or a registration).
  public var isWorthStoring: Bool {
    (status != .notDetermined && !once) || !registrations.isEmpty || launchUnit != nil
  }
}
