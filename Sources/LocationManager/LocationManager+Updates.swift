import LocClient
import LocCore
import LocProtocol

extension LocationManager {
  /// Updates are delivered only after the device moved at least this far from the last
  /// position delivered (nil: every position). Read by `startUpdatingLocation()`.
  public var distanceFilter: Meters? {
    get { options.withLock { $0.distanceFilter } }
    set { options.withLock { $0.distanceFilter = newValue } }
  }

  /// The accuracy the app would like (it may get worse, or reduced). Read by
  /// `startUpdatingLocation()`.
  public var desiredAccuracy: Meters? {
    get { options.withLock { $0.desiredAccuracy } }
    set { options.withLock { $0.desiredAccuracy = newValue } }
  }

  /// Updates started while the app is in use keep it in use, and so keep coming, after it
  /// goes to the background (as long as it stays connected). Read by
  /// `startUpdatingLocation()`.
  public var allowsBackgroundLocationUpdates: Bool {
    get { options.withLock { $0.allowsBackgroundLocationUpdates } }
    set { options.withLock { $0.allowsBackgroundLocationUpdates = newValue } }
  }

  /// The latest position `events` delivered, if any.
  public var location: Location? { link.state.withLock { $0.location } }

  /// Starts updates with `distanceFilter`, `desiredAccuracy` and
  /// `allowsBackgroundLocationUpdates`: `location` events while the app may have them,
  /// the current position at once if it may now. Returns the authorization now.
  @discardableResult
  public func startUpdatingLocation() async throws(ControlClient.Failure) -> AppStatusView {
    let o = options.withLock { $0 }
    let updates = AppSession.Updates(
      distanceFilter: o.distanceFilter, desiredAccuracy: o.desiredAccuracy,
      background: o.allowsBackgroundLocationUpdates)
    return try await link.call(.startUpdates(updates), timeout: timeout, carriesAuthorization: true)
      .authorization
  }

  /// Stops updates.
  public func stopUpdatingLocation() async throws(ControlClient.Failure) {
    _ = try await link.call(.stopUpdates, timeout: timeout)
  }

  /// One position, now: locd answers within `timeout` with a fresh fix (as accurate as
  /// `desiredAccuracy`, if set), or the best it has
  /// (the last known position, the manual location) when none comes in time; nil when it
  /// has none at all (degraded mode: `locctl status` says why). Throws `not-authorized`
  /// (with the reason) when the app may not have the location now.
  public func requestLocation(timeout: Duration = .seconds(30)) async throws(ControlClient.Failure)
    -> Location?
  {
    // locd answers by itself once `timeout` passed; the call's own limit leaves it time to.
    let answer = try await link.call(
      .locate(timeout: timeout, accuracy: desiredAccuracy), timeout: timeout + self.timeout)
    guard let location = Location(answer.position) else { return nil }
    link.state.withLock { $0.location = location }
    return location
  }
}
