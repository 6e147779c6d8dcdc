/// The connection state of a source.
public enum SourceState: Sendable, Hashable {
  /// Opening (connecting, opening the device or file).
  case starting
  /// Connected and reading.
  case connected
  /// Lost; the next attempt is at `retryAt`.
  case reconnecting(retryAt: Instant)
  /// A replay that reached its end without looping.
  case finished
  /// Cannot work as configured (e.g. file missing); not retried.
  case failed
  /// Released while acquisition is idle: nothing open, nothing retried until fixes are
  /// wanted again (a serial device closed, a connection gpsd ended while unwatched).
  case idle

  /// The state's name on the wire.
  public var name: String {
    switch self {
    case .starting: return "starting"
    case .connected: return "connected"
    case .reconnecting: return "reconnecting"
    case .finished: return "finished"
    case .failed: return "failed"
    case .idle: return "idle"
    }
  }
}

/// What the shell reports about one source.
public struct SourceSnapshot: Sendable, Hashable {
  /// Which source.
  public var id: SourceID
  /// Its URI (normalised; never contains coordinates).
  public var uri: String
  /// Connection state.
  public var state: SourceState
  /// Counters in a stable order (sentences, fixes, bad checksums, ...).
  public var counters: [Counter]
  /// The last error, e.g. "connect: Connection refused".
  public var lastError: String?
  /// Who can put fixes into it; a live source outranks every less trusted one.
  public var trust: SourceTrust
  /// Whether the source can deliver fixes (false for beacon sources: their state says
  /// nothing about where fixes come from).
  public var givesFixes: Bool

  /// A snapshot.
  public init(
    id: SourceID, uri: String, state: SourceState, counters: [Counter] = [], lastError: String? = nil,
    trust: SourceTrust = .system, givesFixes: Bool = true
  ) {
    self.id = id
    self.uri = uri
    self.state = state
    self.counters = counters
    self.lastError = lastError
    self.trust = trust
    self.givesFixes = givesFixes
  }
}
