/// Stable error codes of the socket protocol (docs/PROTOCOL.md). Never renamed: clients
/// match on them. New codes may be added in minor versions.
public enum ErrorCode: String, Sendable, Hashable, CaseIterable {
  /// The line is not valid JSON.
  case invalidJSON = "invalid-json"
  /// Valid JSON, but not a request object (missing id or method, wrong types).
  case invalidRequest = "invalid-request"
  /// The request line is longer than the limit.
  case requestTooLarge = "request-too-large"
  /// The method is not known.
  case unknownMethod = "unknown-method"
  /// A request came before a successful `hello`.
  case handshakeRequired = "handshake-required"
  /// The client's protocol major version is not supported.
  case unsupportedVersion = "unsupported-version"
  /// The parameters are missing, of the wrong type or out of range.
  case invalidParams = "invalid-params"
  /// The peer may not do this (see PROTOCOL.md, Permissions).
  case permissionDenied = "permission-denied"
  /// The daemon serves as many clients as it may.
  case tooManyClients = "too-many-clients"
  /// The client did not complete the handshake in time.
  case handshakeTimeout = "handshake-timeout"
  /// The session could do nothing (no access) for `IdleTimeout`; it is closed.
  case idleTimeout = "idle-timeout"
  /// The client did not read its events; its queue overflowed and it is dropped.
  case slowConsumer = "slow-consumer"
  /// locd is stopping (SIGTERM, SIGINT, the end of a replay); the last line of every
  /// session, then the connection closes.
  case daemonStopping = "daemon-stopping"
  /// The request is valid but cannot be carried out now (e.g. a broken new config).
  case failed = "failed"
  /// The named thing (e.g. a timer) does not exist.
  case notFound = "not-found"
  /// Something of that name exists already (e.g. a timer).
  case alreadyExists = "already-exists"
  /// The app's hello names another app than the one the kernel vouches for (its Flatpak
  /// scope or systemd unit).
  case identityMismatch = "identity-mismatch"
  /// The app's authorization does not allow this now (not authorized, denied, restricted, or
  /// when-in-use and not in use).
  case notAuthorized = "not-authorized"
  /// The user has as many apps as `MaxAppsPerUser=` allows.
  case tooManyApps = "too-many-apps"
  /// The app has reduced accuracy and the request needs precise positions.
  case preciseLocationRequired = "precise-location-required"
  /// The app monitors as many regions as `MaxRegionsPerApp=` allows, or locd as many as
  /// `MaxRegions=` allows.
  case tooManyRegions = "too-many-regions"
  /// The change is in effect but could not be written to the state directory (a full disk,
  /// a read-only file system: the message has the system's words); it is lost at the next
  /// restart unless a later write succeeds.
  case notSaved = "not-saved"
  /// A bug in locd; reported, never expected.
  case internalError = "internal"
}

/// An error answer: a stable code and a human message.
public struct RequestError: Error, Sendable, Hashable {
  /// The stable code.
  public var code: ErrorCode
  /// A readable explanation; never contains coordinates.
  public var message: String
  /// An error answer.
  public init(_ code: ErrorCode, _ message: String) {
    self.code = code
    self.message = message
  }
}
