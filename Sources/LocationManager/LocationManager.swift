import LocClient
import LocCore
import LocProtocol
import Synchronization

/// Core Location's CLLocationManager, for locd: an app's connection to the daemon, its
/// authorization and its positions (docs/APPS.md, "The LocationManager library").
///
/// Make one per app with `LocationManager(app:)`, which says hello as that app; ask for
/// authorization with a purpose the person will read; say when the app is in the
/// foreground; then ask for one location or start updates. What locd pushes — positions,
/// authorization changes, errors — comes through `events`, an `AsyncSequence` to iterate
/// once. The manager is `Sendable`: any task may call it. `close()` (or dropping the last
/// reference) ends the connection.
public final class LocationManager: Sendable {
  /// The socket locd listens on by default.
  public static let defaultSocketPath = DaemonConfig().socketPath

  /// What locd pushes, in order. Iterate it once; the newest `eventBuffer` events are
  /// kept while nobody reads.
  public let events: AsyncStream<LocationManagerEvent>
  /// Events kept for a reader that lags.
  public static let eventBuffer = 1024
  /// The app id locd took.
  public let app: String
  /// Whom the app's decisions belong to and how its id is known (at hello).
  public let greeting: Greeting

  let link: Link
  let options = Mutex(Options())
  /// How long a call may take unless it says otherwise.
  let timeout: Duration

  /// The settings of updates, as CLLocationManager has them.
  struct Options {
    var distanceFilter: Meters? = nil
    var desiredAccuracy: Meters? = nil
    var allowsBackgroundLocationUpdates = false
    var activity = AppActivity.background
  }

  /// Connects to locd at `socketPath` as app `app` (a reverse-DNS or desktop-file id) and
  /// subscribes to its authorization. Each reply may take `timeout`. Throws when locd does
  /// not run, refuses the id (`invalid-params`, `identity-mismatch`, `too-many-apps`) or
  /// speaks another major version.
  public init(
    app: String, socketPath: String = LocationManager.defaultSocketPath, timeout: Duration = .seconds(10)
  ) async throws(ControlClient.Failure) {
    let socket: FileDescriptor
    do { socket = try UnixSocket.connect(path: socketPath) } catch {
      if error.code == Errno.permissionDenied || error.code == Errno.notPermitted {
        throw .permissionDenied(path: socketPath)
      }
      throw .notRunning(path: socketPath, error)
    }
    let (stream, continuation) = AsyncStream.makeStream(
      of: LocationManagerEvent.self, bufferingPolicy: .bufferingNewest(Self.eventBuffer))
    events = stream
    self.timeout = timeout
    let link = Link(path: socketPath, socket: socket, events: continuation)
    self.link = link
    guard link.start() else {
      link.close()
      throw .protocolError("no thread could be started to read the socket")
    }
    // Hello and subscribe go out with the connection, before the greeting is read: the
    // handshake is one round trip, and locd's deadline for the hello does not depend on how
    // soon this task runs again. A daemon of another major version refuses the hello.
    let hello = Call<HelloResult>.hello(app: app, client: "LocationManager")
    let helloID = link.send(hello)
    let subscribe = Call<SubscriptionsResult>.subscribe([.authorization])
    let subscribeID = link.send(subscribe)
    do throws(ControlClient.Failure) {
      greeting = try await link.greeting(timeout: timeout)
      if case .failure(let mismatch) = greeting.check() { throw .versionMismatch(mismatch) }
      guard let status = try await link.result(of: hello, helloID, timeout: timeout).app else {
        throw .protocolError("locd did not take this session as an app's (protocol 1.2 or later needed)")
      }
      self.app = status.app
      link.state.withLock { $0.authorization = status }
      _ = try await link.result(of: subscribe, subscribeID, timeout: timeout)
    } catch {
      link.close()
      throw error
    }
  }

  deinit { link.close() }

  /// Ends the connection: locd forgets the app's session (it is no longer in use, its
  /// updates stop); `events` finishes.
  public func close() { link.close() }
}

// MARK: Authorization

extension LocationManager {
  /// The app's authorization as locd last said it, with how its id is known and where its
  /// request stands.
  public var authorization: AppStatusView {
    link.state.withLock { $0.authorization }!
  }

  /// `notDetermined`, `restricted`, `denied`, `whenInUse` or `always` (a provisional always
  /// included: see `authorization.provisional`). A status from a newer locd that this
  /// library does not know reads as `notDetermined`.
  public var authorizationStatus: AuthorizationStatus { authorization.status.known ?? .notDetermined }

  /// `full` or `reduced` (positions snapped to a grid of ~5 km cells).
  public var accuracyAuthorization: AccuracyAuthorization { authorization.accuracy.known ?? .reduced }

  /// Asks for when-in-use authorization, saying why (1–512 bytes, shown to the person).
  /// Returns the authorization now: decided already (policy, an earlier answer) or
  /// `notDetermined` with the prompt `asking` or `no-agent`; the decision comes later as an
  /// `authorization` event.
  @discardableResult
  public func requestWhenInUseAuthorization(purpose: String) async throws(ControlClient.Failure)
    -> AppStatusView
  {
    try await link.call(
      .requestAuthorization(.whenInUse, purpose: purpose), timeout: timeout, carriesAuthorization: true
    )
    .authorization
  }

  /// Asks for always authorization, saying why. From not-determined the person is asked
  /// for while-in-use and the app gets a provisional always (docs/APPS.md); an app with
  /// when-in-use gets the upgrade prompt once.
  @discardableResult
  public func requestAlwaysAuthorization(purpose: String) async throws(ControlClient.Failure) -> AppStatusView
  {
    try await link.call(
      .requestAuthorization(.always, purpose: purpose), timeout: timeout, carriesAuthorization: true
    )
    .authorization
  }

  /// Asks for full accuracy until the app is no longer in use, saying why (1–512 bytes, shown
  /// to the person): Core Location's requestTemporaryFullAccuracyAuthorization(withPurposeKey:)
  /// for an app whose authorization is reduced. Returns the authorization now: `full` already
  /// (nobody asked), or still `reduced` with the prompt `asking` or `no-agent`; the answer
  /// comes later as an `authorization` event with `accuracy` full and
  /// `temporaryFullAccuracy` true. When the app is no longer in use (background past the
  /// grace window, or disconnected) its accuracy is reduced again. Throws `not-authorized`
  /// when the app is not allowed the location, not in use, or held to reduced by a policy.
  @discardableResult
  public func requestTemporaryFullAccuracyAuthorization(purpose: String) async throws(ControlClient.Failure)
    -> AppStatusView
  {
    try await link.call(
      .requestTemporaryFullAccuracy(purpose: purpose), timeout: timeout, carriesAuthorization: true
    )
    .authorization
  }

  /// Whether the app says it is in the foreground.
  public var activity: AppActivity { options.withLock { $0.activity } }

  /// Says the app is in the foreground (the person uses it) or not. It stays in use for
  /// `InUseGrace=` after going to the background, and while updates it started in use with
  /// `allowsBackgroundLocationUpdates` run.
  @discardableResult
  public func setActivity(_ activity: AppActivity) async throws(ControlClient.Failure) -> AppStatusView {
    let now = try await link.call(.setActivity(activity), timeout: timeout, carriesAuthorization: true)
    options.withLock { $0.activity = activity }
    return now.authorization
  }
}
