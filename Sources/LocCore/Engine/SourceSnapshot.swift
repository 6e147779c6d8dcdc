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
  /// The default source (none configured) with nothing listening at its address: no gpsd on
  /// this machine yet, which is no receiver yet rather than a failure. The next attempt is at
  /// `retryAt` (nil: when fixes are wanted), and at once when gpsd's socket appears
  /// (`SourceSnapshot.asDefaultSource`).
  case waiting(retryAt: Instant?)

  /// The state's name on the wire.
  public var name: String {
    switch self {
    case .starting: return "starting"
    case .connected: return "connected"
    case .reconnecting: return "reconnecting"
    case .finished: return "finished"
    case .failed: return "failed"
    case .idle: return "idle"
    case .waiting: return "waiting"
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
  /// What is wrong with it now, if anything: a fault the shell sees that the state does not
  /// say (silent, no NMEA at any speed). The engine adds one for `lastError` and dates each
  /// from its beginning (`SourceFault.continuing`); nil while all is well.
  public var fault: SourceFault?
  /// A replay source held by `locd --clock replay` until the first subscriber (state
  /// `waiting`): no receiver to wait for, and nothing wrong.
  public var heldForSubscriber: Bool

  /// A snapshot.
  public init(
    id: SourceID, uri: String, state: SourceState, counters: [Counter] = [], lastError: String? = nil,
    trust: SourceTrust = .system, givesFixes: Bool = true, fault: SourceFault? = nil,
    heldForSubscriber: Bool = false
  ) {
    self.heldForSubscriber = heldForSubscriber
    self.id = id
    self.uri = uri
    self.state = state
    self.counters = counters
    self.lastError = lastError
    self.trust = trust
    self.givesFixes = givesFixes
    self.fault = fault
  }

  /// What a subscriber is told of (`source-status`): the state's name and the fault. The
  /// time of the next attempt, the latest attempt's error and the counters change with every
  /// attempt or byte; they are in `status`, and in an event only as they were when it went
  /// out (docs/decisions/0047-faults-in-status.md).
  public var notice: Notice { Notice(state: state.name, fault: fault) }

  /// The snapshot of the default source, used because none is configured
  /// (`DaemonConfig.usesDefaultSource`): it stands for a gpsd that may not be installed or
  /// started yet. While `nobodyListens` (its latest attempt was refused at every address) that
  /// is no receiver yet, not a failure: the state is `waiting` (with the next attempt, if one
  /// is planned), without an error, so without a fault. Anything else (gpsd answered and then
  /// failed, an attempt timed out) is shown as it is, as for a configured source.
  public func asDefaultSource(nobodyListens: Bool) -> SourceSnapshot {
    guard nobodyListens else { return self }
    var waiting = self
    switch state {
    case .reconnecting(let at): waiting.state = .waiting(retryAt: at)
    case .idle: waiting.state = .waiting(retryAt: nil)
    case .starting, .connected, .finished, .failed, .waiting: return self
    }
    waiting.lastError = nil
    return waiting
  }

  /// The part of a snapshot that `source-status` events announce.
  public struct Notice: Sendable, Hashable {
    /// The state's name (`reconnecting`, whatever its next attempt).
    public var state: String
    /// The fault, with its reason and beginning.
    public var fault: SourceFault?
  }
}

/// Something wrong with a source that a client should see in `status` with its reason and
/// since when, as the log says it: the source went silent, a speed hunt found no NMEA, or
/// an error (`lastError`: an outage, a failure, a damaged file).
public struct SourceFault: Sendable, Hashable {
  /// Which fault; newer minor versions may add kinds.
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    /// Connected, and no byte for `SilenceWatch`'s limit (10 s).
    case silent
    /// `baud=auto` tried every speed and none gave valid NMEA; it goes on trying.
    case noNMEA = "no-nmea"
    /// The source reports an error (`lastError`): it cannot be opened, connected or bound,
    /// failed, or its file is damaged.
    case error
    /// A `modem:` source's modem has its GPS port held by a running gpsd: the GPS is left to it.
    case gpsdHoldsPort = "gpsd-holds-port"
  }

  /// Which fault.
  public var kind: Kind
  /// What is wrong, in words, as the log said it ("sent nothing for 10 s").
  public var reason: String
  /// When it began (the daemon's clock).
  public var since: Instant

  /// A fault of `kind` for `reason` that began at `since`.
  public init(kind: Kind, reason: String, since: Instant) {
    self.kind = kind
    self.reason = reason
    self.since = since
  }

  /// The fault in effect after an update at `now` that reports `reported` (nil: none) with
  /// `lastError`, when `previous` was in effect before. A fault the shell reports wins; else
  /// an error is one. A fault of the same kind as before goes on: its reason and beginning
  /// are those of its start (an outage is the error that began it, as the log says it once,
  /// not each attempt's); a new one begins at `now`.
  public static func continuing(
    _ previous: SourceFault?, reported: SourceFault?, lastError: String?, at now: Instant
  ) -> SourceFault? {
    guard let current = reported ?? lastError.map({ SourceFault(kind: .error, reason: $0, since: now) })
    else { return nil }
    if let previous, previous.kind == current.kind { return previous }
    return SourceFault(kind: current.kind, reason: current.reason, since: now)
  }
}
