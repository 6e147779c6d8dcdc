/// One connected session of an app: who it is, whether it is in use, what it asked for.
public struct AppSession: Sendable, Hashable {
  /// Location updates an app started (`start-updates`).
  public struct Updates: Sendable, Hashable {
    /// Deliver a position only when it moved at least this far from the last one delivered.
    public var distanceFilter: Meters?
    /// The accuracy the app would like (it may get worse, or reduced).
    public var desiredAccuracy: Meters?
    /// The app allows background updates (`allowsBackgroundLocationUpdates`).
    public var background: Bool
    /// The updates were started while the app was in use.
    public var startedInUse: Bool
    /// The most accuracy these updates get, whatever the app may have: `reduced` for a
    /// GeoClue client that asked for a country, city or neighbourhood level (not on the wire).
    public var accuracy: AccuracyAuthorization

    /// Updates, as an app asks for them (`startedInUse` is filled in by the machine).
    public init(
      distanceFilter: Meters? = nil, desiredAccuracy: Meters? = nil, background: Bool = false,
      accuracy: AccuracyAuthorization = .full
    ) {
      self.distanceFilter = distanceFilter
      self.desiredAccuracy = desiredAccuracy
      self.background = background
      self.startedInUse = false
      self.accuracy = accuracy
    }

    /// Keeps the app in use while it stays connected: started in use, with background updates.
    var keepsInUse: Bool { startedInUse && background }
  }

  /// Who it is.
  public var identity: AppIdentity
  /// What it said about itself (`set-activity`); background until it says otherwise.
  public var activity = AppActivity.background
  /// When it left the foreground (for the grace window); nil while in the foreground or
  /// when it never was.
  public var leftForegroundAt: Instant? = nil
  /// Its location updates, if running.
  public var updates: Updates? = nil
  /// The app-facing event kinds it subscribed to (`location` when updates run).
  public var kinds: Set<EventKind> = []
  /// The last position delivered to it (for the distance filter and for reduced accuracy,
  /// which repeats nothing while the device stays in its cell), and its tier.
  public var lastDelivered: Coordinate? = nil
  /// The tier of the last position delivered.
  public var lastTier: PositionTier? = nil
  /// What it was last told about its authorization.
  var lastTold: AppStatusReport? = nil
  /// The level it asked for and did not get an answer to yet.
  public var pendingRequest: AuthorizationLevel? = nil

  /// A session of `identity`.
  public init(identity: AppIdentity) { self.identity = identity }

  /// The key of its decisions.
  public var key: AppKey { identity.key }

  /// Whether it is in use at `now`: in the foreground, within `grace` after it left it, or
  /// running updates it started in use with background updates allowed.
  public func inUse(at now: Instant, grace: Duration) -> Bool {
    if activity == .foreground { return true }
    if let left = leftForegroundAt, now < left.adding(grace) { return true }
    return updates?.keepsInUse ?? false
  }

  /// When it stops being in use by the grace window running out, if that is ahead.
  public func graceEnds(after now: Instant, grace: Duration) -> Instant? {
    guard activity == .background, let left = leftForegroundAt else { return nil }
    let end = left.adding(grace)
    return end > now ? end : nil
  }
}

/// An event kept for an app until it may have it: held while the person is asked to
/// upgrade a provisional always, or queued while an always app is not connected.
public struct WaitingEvent: Sendable, Hashable {
  /// The event (as the app would have got it then).
  public var notice: Notice
  /// When it happened.
  public var at: Instant
  /// A waiting event.
  public init(_ notice: Notice, at: Instant) {
    self.notice = notice
    self.at = at
  }
}
